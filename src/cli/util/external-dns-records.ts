/**
 * `tmkit external-dns`'s mapping (docs/kubernetes.md): ExternalDNS endpoints (its webhook protocol's JSON) to
 * tmkit profiles and back. No I/O: the server (external-dns-server.ts) reads the stack, calls these, and
 * deploys the result through the plan/ETag path of `tmkit apply`.
 *
 * - A DNS name under the zone is a profile: its name and relativeName are the name less the zone.
 * - A record (name, record type, set identifier) is a group of endpoints, one per target, named
 *   `<set identifier or default>-<type>-<n>` (`eu-a-1`).
 * - What GET /records must give back for ExternalDNS to see no difference, and what a profile cannot hold
 *   (the set identifier, the providerSpecific keys as given, the TXT registry's ownership records), is kept
 *   in the profile's `tags` (`external-dns/owner`, `external-dns/records`, `external-dns/txt`).
 */
import type { EndpointInput, MonitorProtocol, Profile, ProfileInput, TrafficRoutingMethod } from '../../core/model/types';
import { TRAFFIC_ROUTING_METHODS } from '../../core/model/types';

/** ExternalDNS's endpoint (sigs.k8s.io/external-dns/endpoint.Endpoint) as its webhook protocol encodes it. */
export interface ExtEndpoint {
  dnsName: string;
  targets: string[];
  recordType: string;
  setIdentifier?: string;
  recordTTL?: number;
  labels?: Record<string, string>;
  providerSpecific?: Array<{ name: string; value: string }>;
}

/** plan.Changes. */
export interface ExtChanges {
  create?: ExtEndpoint[];
  updateOld?: ExtEndpoint[];
  updateNew?: ExtEndpoint[];
  delete?: ExtEndpoint[];
}

/** The record types a profile can answer (targets become endpoints); TXT is kept as ownership metadata. */
export const SERVED_TYPES = ['A', 'AAAA', 'CNAME'] as const;
export const KEPT_TYPES = [...SERVED_TYPES, 'TXT'] as const;

/** The providerSpecific keys tmkit reads, without their `tmkit/` prefix. */
export const TMKIT_KEYS = [
  'routing-method',
  'weight',
  'priority',
  'geo',
  'endpoint-location',
  'monitor-path',
  'monitor-port',
  'monitor-protocol',
  'always-serve',
] as const;

export const TAG_OWNER = 'external-dns/owner';
export const TAG_RECORDS = 'external-dns/records';
export const TAG_TXT = 'external-dns/txt';

/** A bad request: the path in the request and the rule it breaks. */
export class RecordError extends Error {}

const NAME = /^[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?$/;

/** The profile name (and relativeName) of `dnsName` under `zone`, or why it has none. */
export function relativeName(dnsName: string, zone: string): { name: string } | { reason: string } {
  const d = dnsName.toLowerCase().replace(/\.$/, '');
  const z = zone.toLowerCase().replace(/\.$/, '');
  if (d === z) return { reason: `the zone apex ${z} is tmkit's own (SOA, NS); use a name under it` };
  if (!d.endsWith(`.${z}`)) return { reason: `not under the tmkit zone ${z}` };
  const rel = d.slice(0, -(z.length + 1));
  if (!NAME.test(rel) || rel.includes('..'))
    return { reason: `"${rel}" cannot be a profile name (letters, digits, dots and hyphens, at most 63, no wildcard)` };
  return { name: rel };
}

/** `webhook/tmkit-weight` (an `external-dns.alpha.kubernetes.io/webhook-tmkit-weight` annotation) or `tmkit/weight`: `weight`. */
function tmkitKey(name: string): string | undefined {
  if (name.startsWith('tmkit/')) return name.slice(6);
  if (name.startsWith('webhook/tmkit-')) return name.slice(14);
  return undefined;
}

/**
 * The endpoint as tmkit keeps it: name lower-cased without the trailing dot, targets sorted, providerSpecific
 * only tmkit's keys in their `tmkit/` spelling, sorted; or why tmkit cannot hold it (adjustendpoints drops
 * it with that reason in the log).
 */
export function adjustEndpoint(e: ExtEndpoint, zone: string): { endpoint: ExtEndpoint } | { reason: string } {
  const type = e.recordType.toUpperCase();
  if (!(KEPT_TYPES as readonly string[]).includes(type))
    return { reason: `record type ${e.recordType}: tmkit serves A, AAAA and CNAME (and keeps TXT ownership records)` };
  const rel = relativeName(e.dnsName, zone);
  if ('reason' in rel) return rel;
  const ps: Array<{ name: string; value: string }> = [];
  for (const p of e.providerSpecific ?? []) {
    const key = tmkitKey(p.name);
    if (key === undefined) continue;
    if (!(TMKIT_KEYS as readonly string[]).includes(key))
      return { reason: `providerSpecific ${p.name}: not a tmkit key (tmkit/${TMKIT_KEYS.join(', tmkit/')})` };
    ps.push({ name: `tmkit/${key}`, value: p.value });
  }
  ps.sort((a, b) => (a.name < b.name ? -1 : 1));
  const out: ExtEndpoint = {
    dnsName: e.dnsName.toLowerCase().replace(/\.$/, ''),
    targets: type === 'TXT' ? [...e.targets] : e.targets.map((t) => t.replace(/\.$/, '').toLowerCase()).sort(),
    recordType: type,
    ...(e.setIdentifier ? { setIdentifier: e.setIdentifier } : {}),
    ...(e.recordTTL ? { recordTTL: e.recordTTL } : {}),
    ...(e.labels && Object.keys(e.labels).length > 0 ? { labels: e.labels } : {}),
    ...(ps.length > 0 ? { providerSpecific: ps } : {}),
  };
  if (type !== 'TXT') {
    try {
      settings(out);
    } catch (err) {
      return { reason: (err as Error).message };
    }
  }
  return { endpoint: out };
}

/** What a group's providerSpecific keys set, checked; a RecordError names the record, the key and the rule. */
interface Settings {
  routingMethod?: TrafficRoutingMethod;
  weight?: number;
  priority?: number;
  geo?: string[];
  endpointLocation?: string;
  monitorPath?: string;
  monitorPort?: number;
  monitorProtocol?: MonitorProtocol;
  alwaysServe?: 'Enabled' | 'Disabled';
}

function recordLabel(e: ExtEndpoint): string {
  return `${e.dnsName} ${e.recordType}${e.setIdentifier ? ` (set ${e.setIdentifier})` : ''}`;
}

function settings(e: ExtEndpoint): Settings {
  const s: Settings = {};
  const int = (key: string, v: string, min: number, max: number): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || n < min || n > max)
      throw new RecordError(`${recordLabel(e)}: providerSpecific tmkit/${key} "${v}": an integer from ${min} to ${max}`);
    return n;
  };
  for (const { name, value } of e.providerSpecific ?? []) {
    const key = tmkitKey(name);
    const v = value.trim();
    switch (key) {
      case 'routing-method': {
        const m = TRAFFIC_ROUTING_METHODS.find((r) => r.toLowerCase() === v.toLowerCase());
        if (!m)
          throw new RecordError(
            `${recordLabel(e)}: providerSpecific tmkit/routing-method "${v}": one of ${TRAFFIC_ROUTING_METHODS.join(', ')}`,
          );
        s.routingMethod = m;
        break;
      }
      case 'weight':
        s.weight = int(key, v, 1, 1000);
        break;
      case 'priority':
        s.priority = int(key, v, 1, 1000);
        break;
      case 'geo':
        s.geo = v
          .split(',')
          .map((g) => g.trim())
          .filter((g) => g !== '');
        break;
      case 'endpoint-location':
        s.endpointLocation = v;
        break;
      case 'monitor-path':
        if (!v.startsWith('/'))
          throw new RecordError(`${recordLabel(e)}: providerSpecific tmkit/monitor-path "${v}": a path starting with /`);
        s.monitorPath = v;
        break;
      case 'monitor-port':
        s.monitorPort = int(key, v, 1, 65535);
        break;
      case 'monitor-protocol': {
        const p = (['HTTP', 'HTTPS', 'TCP'] as const).find((x) => x === v.toUpperCase());
        if (!p) throw new RecordError(`${recordLabel(e)}: providerSpecific tmkit/monitor-protocol "${v}": HTTP, HTTPS or TCP`);
        s.monitorProtocol = p;
        break;
      }
      case 'always-serve': {
        const on = ['true', 'enabled'].includes(v.toLowerCase());
        const off = ['false', 'disabled'].includes(v.toLowerCase());
        if (!on && !off) throw new RecordError(`${recordLabel(e)}: providerSpecific tmkit/always-serve "${v}": true or false`);
        s.alwaysServe = on ? 'Enabled' : 'Disabled';
        break;
      }
      default:
        break;
    }
  }
  return s;
}

/** A group as the profile's `external-dns/records` tag keeps it. */
interface KeptGroup {
  recordType: string;
  setIdentifier?: string;
  recordTTL?: number;
  providerSpecific?: Array<{ name: string; value: string }>;
  endpoints: string[];
}

/** A TXT record as the profile's `external-dns/txt` tag keeps it. */
interface KeptTxt {
  dnsName: string;
  setIdentifier?: string;
  targets: string[];
}

function parseTag<T>(profile: Profile, tag: string): T[] {
  const raw = profile.tags?.[tag];
  if (raw === undefined) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

/** The records a profile of this stack holds, as ExternalDNS reads them (GET /records). */
export function recordsOf(profile: Profile, zone: string): ExtEndpoint[] {
  const byName = new Map(profile.endpoints.map((e) => [e.name, e] as const));
  const dnsName = `${profile.dnsConfig.relativeName}.${zone.toLowerCase().replace(/\.$/, '')}`;
  const out: ExtEndpoint[] = [];
  for (const g of parseTag<KeptGroup>(profile, TAG_RECORDS)) {
    const targets = g.endpoints.flatMap((n) => {
      const t = byName.get(n)?.target;
      return t === undefined ? [] : [t.toLowerCase()];
    });
    if (targets.length === 0) continue;
    out.push({
      dnsName,
      targets: targets.sort(),
      recordType: g.recordType,
      ...(g.setIdentifier ? { setIdentifier: g.setIdentifier } : {}),
      ...(g.recordTTL ? { recordTTL: g.recordTTL } : {}),
      ...(g.providerSpecific && g.providerSpecific.length > 0 ? { providerSpecific: g.providerSpecific } : {}),
    });
  }
  for (const t of parseTag<KeptTxt>(profile, TAG_TXT))
    out.push({ dnsName: t.dnsName, targets: t.targets, recordType: 'TXT', ...(t.setIdentifier ? { setIdentifier: t.setIdentifier } : {}) });
  return out;
}

const keyOf = (e: Pick<ExtEndpoint, 'dnsName' | 'recordType' | 'setIdentifier'>): string =>
  `${e.dnsName.toLowerCase().replace(/\.$/, '')}|${e.recordType.toUpperCase()}|${e.setIdentifier ?? ''}`;

/**
 * The profile a TXT ownership record belongs to: the one its `ownedRecord` label names, else its name less
 * the registry's record-type prefix (`a-`, `aaaa-`, `cname-`), else its own name.
 */
function txtOwner(e: ExtEndpoint, zone: string, names: ReadonlySet<string>): string | undefined {
  const candidates: string[] = [];
  const owned = e.labels?.ownedRecord;
  if (owned) candidates.push(owned);
  const m = /^(a|aaaa|cname)-(.+)$/.exec(e.dnsName);
  if (m) candidates.push(m[2]!);
  candidates.push(e.dnsName);
  for (const c of candidates) {
    const r = relativeName(c, zone);
    if ('name' in r && names.has(r.name)) return r.name;
  }
  return undefined;
}

/** The result of applying ExternalDNS's changes to a stack's profiles. */
export interface Applied {
  profiles: ProfileInput[];
  /** TXT records no profile can hold (their record is not here): logged, not failed. */
  dropped: string[];
}

/**
 * The stack's profiles after `changes`: `current` (this owner's stack as deployed) read as records, the
 * deletes and old updates taken out, the creates and new updates put in, and every name with a served
 * record made into one profile. Throws RecordError for a record tmkit cannot hold.
 */
export function applyChanges(current: readonly Profile[], changes: ExtChanges, zone: string, owner: string): Applied {
  const records = new Map<string, ExtEndpoint>();
  const previous = new Map<string, Profile>();
  for (const p of current) {
    previous.set(p.name, p);
    for (const r of recordsOf(p, zone)) records.set(keyOf(r), r);
  }
  const checked = (list: ExtEndpoint[] | undefined, what: string): ExtEndpoint[] =>
    (list ?? []).map((e, i) => {
      const a = adjustEndpoint(e, zone);
      if ('reason' in a) throw new RecordError(`${what}[${i}] (${e.dnsName} ${e.recordType}): ${a.reason}`);
      return a.endpoint;
    });
  for (const e of [...checked(changes.delete, 'delete'), ...checked(changes.updateOld, 'updateOld')]) records.delete(keyOf(e));
  for (const e of [...checked(changes.create, 'create'), ...checked(changes.updateNew, 'updateNew')]) records.set(keyOf(e), e);

  const groups = new Map<string, ExtEndpoint[]>();
  const txts: ExtEndpoint[] = [];
  for (const r of [...records.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1))) {
    if (r.recordType === 'TXT') {
      txts.push(r);
      continue;
    }
    const rel = relativeName(r.dnsName, zone);
    if (!('name' in rel)) continue;
    groups.set(rel.name, [...(groups.get(rel.name) ?? []), r]);
  }
  const names = new Set(groups.keys());
  const txtBy = new Map<string, KeptTxt[]>();
  const dropped: string[] = [];
  for (const t of txts) {
    const owner = txtOwner(t, zone, names);
    if (owner === undefined) {
      dropped.push(
        `${t.dnsName} TXT${t.setIdentifier ? ` (set ${t.setIdentifier})` : ''}: no A, AAAA or CNAME record it owns is kept here`,
      );
      continue;
    }
    txtBy.set(owner, [
      ...(txtBy.get(owner) ?? []),
      { dnsName: t.dnsName, ...(t.setIdentifier ? { setIdentifier: t.setIdentifier } : {}), targets: t.targets },
    ]);
  }
  const profiles: ProfileInput[] = [];
  for (const [name, recs] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1)))
    profiles.push(profileOf(name, recs, txtBy.get(name) ?? [], owner, previous.get(name)));
  return { profiles, dropped };
}

function profileOf(name: string, recs: ExtEndpoint[], txt: KeptTxt[], owner: string, previous: Profile | undefined): ProfileInput {
  const kept: KeptGroup[] = [];
  const endpoints: EndpointInput[] = [];
  const profileSettings: Settings = {};
  let ttl: number | undefined;
  const types = new Set(recs.map((r) => r.recordType));
  let nextPriority = 1;
  for (const r of recs) {
    const s = settings(r);
    for (const k of ['routingMethod', 'monitorPath', 'monitorPort', 'monitorProtocol'] as const)
      if (s[k] !== undefined && profileSettings[k] === undefined) (profileSettings as Record<string, unknown>)[k] = s[k];
    if (r.recordTTL && ttl === undefined) ttl = r.recordTTL;
    const base = `${r.setIdentifier ?? 'default'}${types.size > 1 ? `-${r.recordType.toLowerCase()}` : ''}`;
    const names: string[] = [];
    r.targets.forEach((target, i) => {
      const epName = `${base}-${i + 1}`;
      names.push(epName);
      const priority = s.priority !== undefined ? s.priority + i : undefined;
      endpoints.push({
        name: epName,
        type: 'externalEndpoints',
        target,
        ...(s.weight !== undefined ? { weight: s.weight } : {}),
        ...(priority !== undefined ? { priority } : {}),
        ...(s.geo !== undefined ? { geoMapping: s.geo } : {}),
        ...(s.endpointLocation !== undefined ? { endpointLocation: s.endpointLocation } : {}),
        ...(s.alwaysServe !== undefined ? { alwaysServe: s.alwaysServe } : {}),
      });
    });
    kept.push({
      recordType: r.recordType,
      ...(r.setIdentifier ? { setIdentifier: r.setIdentifier } : {}),
      ...(r.recordTTL ? { recordTTL: r.recordTTL } : {}),
      ...(r.providerSpecific ? { providerSpecific: r.providerSpecific } : {}),
      endpoints: names,
    });
  }
  // Priority routing needs a priority on every endpoint or none: those without one follow the highest given.
  if (endpoints.some((e) => e.priority !== undefined)) {
    nextPriority = Math.max(...endpoints.map((e) => e.priority ?? 0)) + 1;
    for (const e of endpoints) if (e.priority === undefined) e.priority = nextPriority++;
  }
  const monitor =
    profileSettings.monitorPath !== undefined || profileSettings.monitorPort !== undefined || profileSettings.monitorProtocol !== undefined
      ? {
          ...(profileSettings.monitorProtocol !== undefined ? { protocol: profileSettings.monitorProtocol } : {}),
          ...(profileSettings.monitorPort !== undefined ? { port: profileSettings.monitorPort } : {}),
          ...(profileSettings.monitorPath !== undefined && profileSettings.monitorProtocol !== 'TCP'
            ? { path: profileSettings.monitorPath }
            : {}),
        }
      : undefined;
  const tags: Record<string, string> = { ...(previous?.tags ?? {}), [TAG_OWNER]: owner, [TAG_RECORDS]: JSON.stringify(kept) };
  if (txt.length > 0) tags[TAG_TXT] = JSON.stringify(txt);
  else delete tags[TAG_TXT];
  return {
    name,
    trafficRoutingMethod: profileSettings.routingMethod ?? 'Weighted',
    dnsConfig: { relativeName: name, ttl: ttl ?? DEFAULT_TTL },
    ...(monitor ? { monitorConfig: monitor } : {}),
    endpoints,
    tags,
  };
}

/** The TTL of a profile whose records set none (ExternalDNS's own default is 300; a GSLB answer wants less). */
export const DEFAULT_TTL = 60;
