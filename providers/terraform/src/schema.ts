/**
 * Schemas for the provider, its resources and data sources (protocol 6), as plain TS objects keyed by
 * name, and the value shape they imply. The shape is what the codec decodes and encodes against: every
 * attribute and block of the schema is present in an encoded object (cty requires it), with the value
 * Terraform uses for "not set": null for attributes and single blocks, [] for list/set blocks, {} for map
 * blocks, an object of nulls for group blocks.
 */
import type { CtyType } from './cty';

export type StringKind = 'plain' | 'markdown';

export interface Attribute {
  /** The attribute's type; exactly one of `type` and `nested`. */
  type?: CtyType;
  /** A nested attribute type (protocol 6): an object, or a list/set/map of objects, of attributes. */
  nested?: NestedAttributes;
  required?: boolean;
  optional?: boolean;
  computed?: boolean;
  sensitive?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
  description?: string;
  descriptionKind?: StringKind;
  /**
   * Not sent to Terraform: a change of this attribute replaces the resource (azurerm's ForceNew). The
   * provider() router puts its path into PlanResourceChange's requires_replace.
   */
  requiresReplace?: boolean;
}

export interface NestedAttributes {
  nesting: 'single' | 'list' | 'set' | 'map';
  attributes: Record<string, Attribute>;
}

export interface NestedBlock {
  nesting: 'single' | 'list' | 'set' | 'map' | 'group';
  block: Block;
  minItems?: number;
  maxItems?: number;
}

export interface Block {
  attributes?: Record<string, Attribute>;
  blocks?: Record<string, NestedBlock>;
  description?: string;
  descriptionKind?: StringKind;
  deprecated?: boolean;
}

export interface Schema {
  /** The schema version recorded with a resource's state; raise it and handle the old form in upgrade. */
  version?: number;
  block: Block;
}

/**
 * The shape of a value: a cty type plus, for objects, what a missing attribute stands for. The codec
 * works on shapes so that schemas and plain types (of attributes, of dynamic values) decode the same way.
 */
export type Shape =
  | { kind: 'string' | 'number' | 'bool' | 'dynamic' }
  | { kind: 'list' | 'set' | 'map'; elem: Shape }
  | { kind: 'tuple'; elems: Shape[] }
  | { kind: 'object'; attrs: Array<[string, Shape, Absent]> };

/** What an object attribute that the value leaves out is encoded as. */
export type Absent = 'null' | 'empty-list' | 'empty-map' | Shape;

const shapeCache = new WeakMap<object, Shape>();

export function shapeOfType(t: CtyType): Shape {
  if (typeof t === 'string') return { kind: t };
  switch (t[0]) {
    case 'list':
    case 'set':
    case 'map':
      return { kind: t[0], elem: shapeOfType(t[1]) };
    case 'tuple':
      return { kind: 'tuple', elems: t[1].map(shapeOfType) };
    case 'object':
      return {
        kind: 'object',
        attrs: Object.keys(t[1])
          .sort()
          .map((k) => [k, shapeOfType(t[1][k]!), 'null'] as [string, Shape, Absent]),
      };
  }
}

function shapeOfAttribute(a: Attribute): Shape {
  if (a.nested) {
    const obj = shapeOfAttributes(a.nested.attributes);
    return a.nested.nesting === 'single' ? obj : { kind: a.nested.nesting, elem: obj };
  }
  return shapeOfType(a.type!);
}

function shapeOfAttributes(attrs: Record<string, Attribute>): Shape {
  return {
    kind: 'object',
    attrs: Object.keys(attrs)
      .sort()
      .map((k) => [k, shapeOfAttribute(attrs[k]!), 'null'] as [string, Shape, Absent]),
  };
}

/** The shape of a block: an object of its attributes and nested blocks. Cached per block object. */
export function shapeOfBlock(b: Block): Shape {
  const hit = shapeCache.get(b);
  if (hit) return hit;
  const entries: Array<[string, Shape, Absent]> = [];
  for (const [k, a] of Object.entries(b.attributes ?? {})) entries.push([k, shapeOfAttribute(a), 'null']);
  for (const [k, nb] of Object.entries(b.blocks ?? {})) {
    const inner = shapeOfBlock(nb.block);
    switch (nb.nesting) {
      case 'single':
        entries.push([k, inner, 'null']);
        break;
      case 'group':
        entries.push([k, inner, inner]);
        break;
      case 'list':
      case 'set':
        entries.push([k, { kind: nb.nesting, elem: inner }, 'empty-list']);
        break;
      case 'map':
        entries.push([k, { kind: 'map', elem: inner }, 'empty-map']);
        break;
    }
  }
  entries.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const s: Shape = { kind: 'object', attrs: entries };
  shapeCache.set(b, s);
  return s;
}

/**
 * Checks a schema definition (a programming error in a provider, found at start-up): every attribute
 * has exactly one of type/nested and at least one of required/optional/computed, required stands
 * alone, names are Terraform identifiers and attribute and block names do not collide.
 */
export function checkSchema(s: Schema, where: string): string[] {
  const problems: string[] = [];
  const ident = /^[a-z_][a-z0-9_]*$/;
  const attrs = (as: Record<string, Attribute> | undefined, at: string): void => {
    for (const [name, a] of Object.entries(as ?? {})) {
      const p = `${at}.${name}`;
      if (!ident.test(name)) problems.push(`${p}: attribute names are lower-case letters, digits and _`);
      if ((a.type === undefined) === (a.nested === undefined)) problems.push(`${p}: give exactly one of type and nested`);
      if (!a.required && !a.optional && !a.computed) problems.push(`${p}: mark it required, optional or computed`);
      if (a.required && (a.optional || a.computed)) problems.push(`${p}: required cannot be combined with optional or computed`);
      if (a.nested) attrs(a.nested.attributes, p);
    }
  };
  const block = (b: Block, at: string): void => {
    attrs(b.attributes, at);
    for (const [name, nb] of Object.entries(b.blocks ?? {})) {
      const p = `${at}.${name}`;
      if (!ident.test(name)) problems.push(`${p}: block names are lower-case letters, digits and _`);
      if (b.attributes && name in b.attributes) problems.push(`${p}: an attribute has the same name`);
      if (nb.minItems !== undefined && nb.maxItems !== undefined && nb.minItems > nb.maxItems) problems.push(`${p}: minItems > maxItems`);
      block(nb.block, p);
    }
  };
  block(s.block, where);
  return problems;
}
