/**
 * The tfplugin6 message side of the server (server.ts): schemas, attribute paths and diagnostics to the
 * wire, and client capabilities, raw states and byte fields from it. DynamicValues are decoded against the
 * schemas by the server itself.
 */
import type { Msg } from './proto';
import type { Attribute, Block, Schema } from './schema';
import {
  DiagnosticsError,
  type AttributePath,
  type ClientCapabilities,
  type Diagnostic,
  type FunctionParameter,
  type FunctionSignature,
  type RawState,
} from './tfprotov6';

export const errorDiag = (summary: string, detail?: string): Diagnostic => ({ severity: 'error', summary, ...(detail ? { detail } : {}) });

// ------------------------------------------------------------------------------------------ to wire

function wireAttributes(attrs: Record<string, Attribute> | undefined): Msg[] {
  return Object.keys(attrs ?? {})
    .sort()
    .map((name) => {
      const a = attrs![name]!;
      return {
        name,
        type: a.type !== undefined ? Buffer.from(JSON.stringify(a.type)) : Buffer.alloc(0),
        nested_type: a.nested ? { attributes: wireAttributes(a.nested.attributes), nesting: a.nested.nesting.toUpperCase() } : null,
        description: a.description ?? '',
        required: !!a.required,
        optional: !!a.optional,
        computed: !!a.computed,
        sensitive: !!a.sensitive,
        description_kind: (a.descriptionKind ?? 'plain').toUpperCase(),
        deprecated: !!a.deprecated,
        write_only: !!a.writeOnly,
      };
    });
}

function wireBlock(b: Block, version: number): Msg {
  return {
    version,
    attributes: wireAttributes(b.attributes),
    block_types: Object.keys(b.blocks ?? {})
      .sort()
      .map((name) => {
        const nb = b.blocks![name]!;
        return {
          type_name: name,
          block: wireBlock(nb.block, 0),
          nesting: nb.nesting.toUpperCase(),
          min_items: nb.minItems ?? 0,
          max_items: nb.maxItems ?? 0,
        };
      }),
    description: b.description ?? '',
    description_kind: (b.descriptionKind ?? 'plain').toUpperCase(),
    deprecated: !!b.deprecated,
  };
}

export function wireSchema(s: Schema): Msg {
  return { version: s.version ?? 0, block: wireBlock(s.block, s.version ?? 0) };
}

function wireParameter(p: FunctionParameter): Msg {
  return {
    name: p.name,
    type: Buffer.from(JSON.stringify(p.type)),
    allow_null_value: !!p.allowNull,
    allow_unknown_values: !!p.allowUnknown,
    description: p.description ?? '',
    description_kind: 'PLAIN',
  };
}

/** A provider function's signature as tfplugin6.Function. */
export function wireFunction(f: FunctionSignature): Msg {
  return {
    parameters: f.parameters.map(wireParameter),
    variadic_parameter: f.variadic ? wireParameter(f.variadic) : null,
    return: { type: Buffer.from(JSON.stringify(f.returnType)) },
    summary: f.summary ?? '',
    description: f.description ?? '',
    description_kind: 'PLAIN',
    deprecation_message: f.deprecationMessage ?? '',
  };
}

export function wirePath(p: AttributePath): Msg {
  return {
    steps: p.map((s) =>
      'attribute' in s ? { attribute_name: s.attribute } : 'key' in s ? { element_key_string: s.key } : { element_key_int: s.index },
    ),
  };
}

export function wireDiagnostics(ds: Diagnostic[] | undefined): Msg[] {
  return (ds ?? []).map((d) => ({
    severity: d.severity === 'warning' ? 'WARNING' : 'ERROR',
    summary: d.summary,
    detail: d.detail ?? '',
    attribute: d.path?.length ? wirePath(d.path) : null,
  }));
}

// ---------------------------------------------------------------------------------------- from wire

export function caps(m: Msg | null | undefined): ClientCapabilities {
  return { deferralAllowed: !!m?.deferral_allowed, writeOnlyAttributesAllowed: !!m?.write_only_attributes_allowed };
}

export function rawState(m: Msg | null | undefined, what: string): RawState {
  const out: RawState = {};
  if (m?.json?.length) {
    try {
      out.json = JSON.parse(Buffer.from(m.json).toString('utf8'));
    } catch (e) {
      throw new DiagnosticsError(errorDiag(`${what}: the stored state is not valid JSON`, (e as Error).message));
    }
  }
  if (m?.flatmap && Object.keys(m.flatmap).length) out.flatmap = m.flatmap as Record<string, string>;
  return out;
}

export const bytes = (b: Uint8Array | null | undefined): Uint8Array => (b ? new Uint8Array(b) : new Uint8Array(0));

/** The answer to every ephemeral-resource RPC: this provider has none. */
export function noEphemeral(typeName: string): Msg {
  return {
    diagnostics: wireDiagnostics([errorDiag(`Unknown ephemeral resource type "${typeName}"`, 'This provider has no ephemeral resources.')]),
  };
}
