/**
 * Edits of one stored profile that the endpoint-level API (docs/ARCHITECTURE.md, "Providers") and the providers make: put or
 * delete one endpoint, merge-patch one endpoint, merge-patch the profile's settings without touching its
 * endpoints. Pure: each returns the profile input to validate and store whole, like a PUT of the profile.
 */
import { problem, type Diagnostic } from '../diagnostics';
import { canonicalJson } from '../store/conditions';
import { sha256Hex } from '../sha256';
import type { Endpoint, EndpointInput, Profile, ProfileInput } from './types';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A deep copy of JSON data (profiles and patches are JSON). */
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** RFC 7396 JSON merge patch: objects merge recursively, `null` removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Json = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * The RFC 7396 merge patch that turns `before` into `after` (the inverse of `mergePatch` for JSON without
 * `null` values, which a merge patch cannot express): objects are patched key by key, a key `after` lacks
 * becomes `null`, and anything else that differs is replaced whole. `{}` when they are equal.
 */
export function mergePatchFrom(before: unknown, after: unknown): unknown {
  if (!isObj(before) || !isObj(after)) return clone(after);
  const patch: Json = {};
  for (const k of Object.keys(before)) if (!(k in after) || after[k] === undefined) patch[k] = null;
  for (const [k, v] of Object.entries(after)) {
    if (v === undefined) continue;
    if (!(k in before) || before[k] === undefined) {
      patch[k] = clone(v);
      continue;
    }
    if (isObj(before[k]) && isObj(v)) {
      const inner = mergePatchFrom(before[k], v);
      if (Object.keys(inner as Json).length > 0) patch[k] = inner;
    } else if (canonicalJson(before[k]) !== canonicalJson(v)) {
      patch[k] = clone(v);
    }
  }
  return patch;
}

/**
 * The strong ETag of one endpoint (docs/ARCHITECTURE.md, "Providers"): a hash of its normalized content, quoted. It changes
 * exactly when the endpoint's stored content changes, whatever happens to the rest of the profile.
 */
export function endpointEtag(profile: string, e: Endpoint): string {
  return `"${sha256Hex(canonicalJson({ profile: profile.toLowerCase(), endpoint: e })).slice(0, 16)}"`;
}

/** The stored endpoint of that name (names compare case-insensitively, as Azure's do). */
export function findEndpoint(p: Profile, name: string): Endpoint | undefined {
  const lower = name.toLowerCase();
  return p.endpoints.find((e) => e.name.toLowerCase() === lower);
}

/**
 * The profile as the input of an edit: a new top-level object and endpoint list, sharing everything below
 * (stored profiles are read-only, and the edits below replace what they change instead of changing it), so an
 * edit of one endpoint does not copy the other 199.
 */
const asInput = (p: Profile): ProfileInput => ({ ...p, endpoints: [...p.endpoints] }) as unknown as ProfileInput;

/**
 * The profile with `endpoint` created or replaced (by name). A stored profile's endpoints all have
 * priorities (normalize derives them from the order), whatever the routing method, so an endpoint written
 * without one keeps its own or gets the next free priority after the others (as Azure assigns it), instead
 * of making the profile's priorities partial (PRIORITY_PARTIAL) or duplicated.
 */
export function withEndpoint(p: Profile, endpoint: EndpointInput): { input: ProfileInput; created: boolean } {
  const input = asInput(p);
  const list = (input.endpoints ?? []) as EndpointInput[];
  const at = list.findIndex((e) => e.name.toLowerCase() === endpoint.name.toLowerCase());
  const e = clone(endpoint);
  if (e.priority === undefined && list.some((x, i) => i !== at && x.priority !== undefined)) {
    const others = list.filter((_, i) => i !== at).map((x) => x.priority ?? 0);
    e.priority =
      at >= 0 && list[at]!.priority !== undefined && !others.includes(list[at]!.priority!)
        ? list[at]!.priority!
        : Math.min(1000, Math.max(0, ...others) + 1);
  }
  if (at >= 0) list[at] = e;
  else list.push(e);
  input.endpoints = list;
  return { input, created: at < 0 };
}

/** The profile without that endpoint (undefined when it has none of that name). */
export function withoutEndpoint(p: Profile, name: string): ProfileInput | undefined {
  const lower = name.toLowerCase();
  if (!p.endpoints.some((e) => e.name.toLowerCase() === lower)) return undefined;
  const input = asInput(p);
  input.endpoints = (input.endpoints ?? []).filter((e) => e.name.toLowerCase() !== lower);
  return input;
}

/** The profile with one endpoint merge-patched (`PATCH …/endpoints/{endpoint}`); undefined when absent. */
export function withEndpointPatch(p: Profile, name: string, patch: Json): ProfileInput | undefined {
  const lower = name.toLowerCase();
  if (!p.endpoints.some((e) => e.name.toLowerCase() === lower)) return undefined;
  const input = asInput(p);
  input.endpoints = (input.endpoints ?? []).map((e) => (e.name.toLowerCase() === lower ? (mergePatch(e, patch) as EndpointInput) : e));
  return input;
}

/**
 * The profile with its settings merge-patched (`PATCH /v1/profiles/{name}`): everything but `endpoints`,
 * which such a patch never touches (a patch naming them is refused), and `name`, which cannot change.
 */
export function withSettingsPatch(p: Profile, patch: Json): { input: ProfileInput } | { error: Diagnostic } {
  if ('endpoints' in patch) {
    return {
      error: problem(
        'BAD_REQUEST',
        'PATCH /v1/profiles/{name} changes profile settings only and never endpoints; write endpoints ' +
          'with PUT or DELETE /v1/profiles/{name}/endpoints/{endpoint}, or PUT the whole profile',
        { path: `profiles[${p.name}].endpoints` },
      ),
    };
  }
  if ('name' in patch && patch.name !== p.name) {
    return {
      error: problem(
        'NAME_MISMATCH',
        `a profile cannot be renamed by PATCH (body name ${JSON.stringify(patch.name)}, stored '${p.name}'); create the new profile and delete the old one`,
        { path: `profiles[${p.name}].name` },
      ),
    };
  }
  const { endpoints, ...settings } = asInput(p);
  const merged = mergePatch(settings, patch) as ProfileInput;
  return { input: { ...merged, name: p.name, endpoints: endpoints ?? [] } };
}
