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

/**
 * Already-deployed profiles looked up by what the cross-profile rules need, so a write is judged in the time
 * its own profile takes, not the number deployed (stores keep one incrementally; an array is indexed once).
 */
export interface ProfileIndex {
  /** The profile whose name is `lower` ignoring case. */
  byName(lower: string): Profile | undefined;
  /** The profile answering at this relativeName (lower case, no trailing dot). */
  byRelativeName(lower: string): Profile | undefined;
  /** How many profiles. */
  readonly size: number;
}

/** An index of a list of profiles (the first of equal names wins). */
export function indexProfiles(profiles: Iterable<Profile>): ProfileIndex {
  const names = new Map<string, Profile>();
  const rns = new Map<string, Profile>();
  let size = 0;
  for (const p of profiles) {
    if (!isObj(p as unknown)) continue;
    const k = lowerName(p);
    if (k === undefined || names.has(k)) continue;
    names.set(k, p);
    size++;
    const rn = p.dnsConfig?.relativeName as unknown;
    if (typeof rn === 'string') {
      const key = rn.toLowerCase().replace(/\.$/, '');
      if (!rns.has(key)) rns.set(key, p);
    }
  }
  return { byName: (l) => names.get(l), byRelativeName: (l) => rns.get(l), size };
}

export interface ValidateOptions {
  /** Adds the Azure-only rules (public-address targets, GUID subscriptions, profile limit; README.md, Concepts). */
  strictAzure?: boolean;
  /**
   * Already-deployed normalized profiles that are NOT in this document: nested endpoints may reference
   * them; they count for FQDN uniqueness, cycles and nesting depth; they are never reported on. A context
   * profile with the same name as a document profile is replaced by the document's. A `ProfileIndex` (what
   * stores keep) spares indexing them again per validation.
   */
  context?: readonly Profile[] | ProfileIndex;
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
  /** The profile of a lower-cased name: the document's (first wins), else a context profile. */
  known(lower: string): Profile | undefined;
  /** The context profile answering at a relativeName (lower case), unless a document profile replaces it. */
  contextByRelativeName(lower: string): Profile | undefined;
  /** Context profiles not replaced by a document profile. */
  contextSize: number;
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
  const rawEndpoints = Array.isArray(raw.endpoints) ? (raw.endpoints as unknown[]) : [];
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
  const documentNames = new Map<string, Profile>();
  for (const p of profiles) {
    const k = lowerName(p.profile);
    if (k !== undefined && !documentNames.has(k)) documentNames.set(k, p.profile);
  }
  const raw = options.context;
  const index: ProfileIndex =
    raw === undefined ? indexProfiles([]) : Array.isArray(raw) ? indexProfiles(raw as readonly Profile[]) : (raw as ProfileIndex);
  const replaced = (p: Profile): boolean => {
    const k = lowerName(p);
    return k !== undefined && documentNames.has(k);
  };
  let replacedCount = 0;
  for (const k of documentNames.keys()) if (index.byName(k) !== undefined) replacedCount++;
  return {
    r,
    strictAzure: options.strictAzure === true,
    profiles,
    known: (lower) => documentNames.get(lower) ?? index.byName(lower),
    contextByRelativeName: (lower) => {
      const p = index.byRelativeName(lower);
      return p === undefined || replaced(p) ? undefined : p;
    },
    contextSize: index.size - replacedCount,
  };
}
