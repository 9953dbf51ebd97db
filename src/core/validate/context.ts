/**
 * What every rule module works on: each profile of the input with its raw object (to tell what the user
 * actually wrote), its normalized form (defaults filled in), its path, and the endpoints likewise; plus
 * the index of every known profile (document and deployed context) by lower-cased name. Built once.
 */
import { normalizeProfile } from '../model/normalize';
import { parseEndpointType } from '../model/names';
import {
  TRAFFIC_ROUTING_METHODS,
  type Endpoint,
  type EndpointType,
  type Profile,
  type ProfileInput,
  type TrafficRoutingMethod,
} from '../model/types';
import type { Reporter } from './diagnostics';
import { analyzeTarget, classifyTarget, type ClassifiedTarget } from './target';
import { isObj, itemSegment } from './util';

export interface ValidateOptions {
  /** Adds the Azure-only rules (public-address targets, GUID subscriptions, profile limit; README.md, Concepts). */
  strictAzure?: boolean;
  /**
   * Already-deployed normalized profiles that are NOT in this document: nested endpoints may reference
   * them; they count for FQDN uniqueness, cycles and nesting depth; they are never reported on. A context
   * profile with the same name as a document profile is replaced by the document's.
   */
  context?: readonly Profile[];
}

export interface EndpointCtx {
  raw: Record<string, unknown>;
  ep: Endpoint;
  path: string;
  /** The endpoint type when it is valid. */
  type: EndpointType | undefined;
  /** The target when it is a valid string target. */
  target: ClassifiedTarget | undefined;
  /** Why the target string is invalid (undefined when valid or absent). */
  targetProblem: string | undefined;
}

export interface ProfileCtx {
  raw: Record<string, unknown>;
  profile: Profile;
  path: string;
  /** The routing method when it is valid. */
  method: TrafficRoutingMethod | undefined;
  endpoints: EndpointCtx[];
}

export interface Ctx {
  r: Reporter;
  strictAzure: boolean;
  profiles: ProfileCtx[];
  /** Lower-cased name → profile, for the document's profiles (first wins) and then context profiles. */
  known: Map<string, Profile>;
  /** Context profiles not replaced by a document profile. */
  context: Profile[];
}

const METHODS = new Set<string>(TRAFFIC_ROUTING_METHODS);

export const lowerName = (p: { name?: unknown }): string | undefined =>
  typeof p.name === 'string' && p.name !== '' ? p.name.toLowerCase() : undefined;

export function endpointTypeOf(e: { type?: unknown }): EndpointType | undefined {
  return typeof e.type === 'string' ? parseEndpointType(e.type) : undefined;
}

export function targetOf(e: { target?: unknown }): ClassifiedTarget | undefined {
  return typeof e.target === 'string' ? classifyTarget(e.target) : undefined;
}

function profileCtx(raw: Record<string, unknown>, path: string): ProfileCtx {
  const profile = normalizeProfile(raw as unknown as ProfileInput);
  const rawEndpoints = Array.isArray(raw['endpoints']) ? (raw['endpoints'] as unknown[]) : [];
  const endpoints: EndpointCtx[] = [];
  let n = 0;
  rawEndpoints.forEach((e, i) => {
    if (!isObj(e)) return;
    const ep = profile.endpoints[n++]!;
    const t = typeof ep.target === 'string' ? analyzeTarget(ep.target) : undefined;
    endpoints.push({
      raw: e,
      ep,
      path: `${path}.endpoints${itemSegment(e, i, true)}`,
      type: endpointTypeOf(ep),
      target: t === undefined || 'problem' in t ? undefined : t,
      targetProblem: t !== undefined && 'problem' in t ? t.problem : undefined,
    });
  });
  const m = profile.trafficRoutingMethod as unknown;
  return { raw, profile, path, method: typeof m === 'string' && METHODS.has(m) ? (m as TrafficRoutingMethod) : undefined, endpoints };
}

/** Builds the context for the profiles in `rawProfiles` (only object items; paths use the raw index). */
export function buildCtx(r: Reporter, rawProfiles: readonly unknown[], options: ValidateOptions): Ctx {
  const profiles: ProfileCtx[] = [];
  rawProfiles.forEach((p, i) => {
    if (isObj(p)) profiles.push(profileCtx(p, `profiles${itemSegment(p, i, true)}`));
  });
  const known = new Map<string, Profile>();
  for (const p of profiles) {
    const k = lowerName(p.profile);
    if (k !== undefined && !known.has(k)) known.set(k, p.profile);
  }
  const context: Profile[] = [];
  for (const p of Array.isArray(options.context) ? options.context : []) {
    if (!isObj(p as unknown)) continue;
    const k = lowerName(p);
    if (k === undefined || known.has(k)) continue;
    known.set(k, p);
    context.push(p);
  }
  return { r, strictAzure: options.strictAzure === true, profiles, known, context };
}
