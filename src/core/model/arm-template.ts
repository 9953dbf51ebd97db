/**
 * ARM templates (arm-import.ts): the literal forms of ARM expressions tmkit evaluates, and the profile
 * resources of a template's resource list with their endpoint child resources attached.
 */
import type { Severity } from '../diagnostics';
import { isObj, type Obj, PROFILE_TYPE } from './arm-shape';
import { parseEndpointType } from './names';

// ---------------------------------------------------------------------------------------------------
// ARM expressions (only the literal forms)

export interface TemplateContext {
  parameters: Obj;
  variables: Obj;
}

const EXPR = /^\[(?!\[)([\s\S]*)\]$/;
const LITERAL_REF = /^\s*(parameters|variables)\(\s*'([^']*)'\s*\)\s*$/;
const RESOURCE_ID = /^\s*resourceId\(([\s\S]*)\)\s*$/;

export function isExpression(v: unknown): boolean {
  return typeof v === 'string' && EXPR.test(v.trim());
}

/** A literal value for `parameters('x')` / `variables('x')`, or undefined. */
function literalRef(expr: string, ctx: TemplateContext | undefined): unknown {
  const m = LITERAL_REF.exec(expr);
  if (!m || !ctx) return undefined;
  if (m[1] === 'parameters') {
    const p = ctx.parameters[m[2]!];
    return isObj(p) ? p.defaultValue : undefined;
  }
  const v = ctx.variables[m[2]!];
  return isExpression(v) ? undefined : v;
}

/** An argument of a template function call: `'literal'` or `parameters('x')`. */
function literalArg(arg: string, ctx: TemplateContext | undefined): string | undefined {
  const a = arg.trim();
  const q = /^'([^']*)'$/.exec(a);
  if (q) return q[1];
  const v = literalRef(a, ctx);
  return typeof v === 'string' ? v : undefined;
}

/** Resolves the simple literal expression forms; returns `{ok:false}` for anything else. */
export function resolveExpression(value: string, ctx: TemplateContext | undefined): { ok: true; value: unknown } | { ok: false } {
  const inner = EXPR.exec(value.trim())![1]!;
  const ref = literalRef(inner, ctx);
  if (ref !== undefined && !isExpression(ref)) return { ok: true, value: ref };
  const rid = RESOURCE_ID.exec(inner);
  if (rid) {
    const args = rid[1]!.split(',').map((a) => literalArg(a, ctx));
    const i = args.findIndex((a) => a !== undefined && a.toLowerCase() === PROFILE_TYPE);
    if (i >= 0 && args.length === i + 2 && args[i + 1] !== undefined) {
      return { ok: true, value: `/providers/Microsoft.Network/trafficManagerProfiles/${args[i + 1]}` };
    }
  }
  return { ok: false };
}

// ---------------------------------------------------------------------------------------------------
// Template resources

/** What reading a template's resources needs of the importer (arm-mapping.ts): values and issues. */
export interface TemplateReader {
  value(v: unknown, path: string, report?: boolean): unknown;
  issue(severity: Severity, code: string, path: string, message: string, hint?: string): void;
}

/** Profile resources (with their endpoint child resources attached) from an ARM template's resource list. */
export function templateProfiles(imp: TemplateReader, resources: unknown[]): Obj[] {
  const profiles: Obj[] = [];
  const children: Array<{ parent: string; res: Obj; type: string }> = [];
  const visit = (list: unknown[], parent: string | undefined): void => {
    for (const r of list) {
      if (!isObj(r) || typeof r.type !== 'string') continue;
      const t = r.type.trim().toLowerCase();
      if (t === PROFILE_TYPE) {
        const copy: Obj = { ...r, properties: isObj(r.properties) ? { ...r.properties } : {} };
        profiles.push(copy);
        const name = imp.value(r.name, '$', false);
        if (Array.isArray(r.resources)) visit(r.resources, typeof name === 'string' ? name : undefined);
      } else if (parseEndpointType(r.type) && (parent !== undefined || t.startsWith(`${PROFILE_TYPE}/`))) {
        const name = imp.value(r.name, '$', false);
        const owner = typeof name === 'string' && name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : parent;
        if (owner === undefined) {
          imp.issue(
            'error',
            'ARM_IMPORT_ORPHAN_ENDPOINT',
            '$',
            `endpoint resource ${JSON.stringify(r.name)} names no profile (expected "<profile>/<endpoint>")`,
          );
        } else children.push({ parent: owner, res: { ...r, name }, type: r.type });
      }
    }
  };
  visit(resources, undefined);
  for (const c of children) {
    const owner = profiles.find((p) => imp.value(p.name, '$', false) === c.parent);
    if (!owner) {
      imp.issue(
        'error',
        'ARM_IMPORT_ORPHAN_ENDPOINT',
        `profiles[${c.parent}]`,
        `endpoint resource ${JSON.stringify(c.res.name)} belongs to profile "${c.parent}", which is not in the template`,
      );
      continue;
    }
    const props = owner.properties as Obj;
    props.endpoints = [...(Array.isArray(props.endpoints) ? props.endpoints : []), { ...c.res, type: c.type }];
  }
  return profiles;
}
