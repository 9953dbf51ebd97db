/**
 * `tmkit external-dns`'s mapping (docs/kubernetes.md): ExternalDNS endpoints (its webhook protocol's JSON) to
 * tmkit profiles and back. No I/O: the server (external-dns-server.ts) reads the stack, calls these, and
 * deploys the result through the plan/ETag path of `tmkit apply`.
 *
 * - A DNS name under the zone is a profile: its name and relativeName are the name less the zone.
 * - A record (name, record type, set identifier) is a group of endpoints, one per target, named
 *   `<set identifier or default>-<type>-<n>` (`eu-a-1`).
 * - What GET /records must give back for ExternalDNS to see no difference, and what a profile cannot hold
 *   (each record's owner id and set identifier, the providerSpecific keys as given, the TXT registry's
 *   ownership records), is kept in the profile's `tags` (`external-dns/owner`: the creator, `external-dns/records`,
 *   `external-dns/txt`). Several owner ids share a profile through set identifiers; each reads and writes only
 *   its own records.
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

/** `webhook/tmkit-weight` (an `external-dns.kubernetes.io/webhook-tmkit-weight` annotation) or `tmkit/weight`: `weight`. */
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

/** A group as the profile's `external-dns/records` tag keeps it (`owner`: the owner id that wrote it). */
interface KeptGroup {
  owner?: string;
  recordType: string;
  setIdentifier?: string;
  recordTTL?: number;
  providerSpecific?: Array<{ name: string; value: string }>;
  endpoints: string[];
}

/** A TXT record as the profile's `external-dns/txt` tag keeps it. */
interface KeptTxt {
  owner?: string;
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

/** A record and the owner id that wrote it. */
interface Owned {
  owner: string;
  record: ExtEndpoint;
}

/** Every record a profile holds, each with its owner (a group without one is the profile's creator's). */
function ownedRecords(profile: Profile, zone: string): Owned[] {
  const creator = profile.tags?.[TAG_OWNER] ?? '';
  const byName = new Map(profile.endpoints.map((e) => [e.name, e] as const));
  const dnsName = `${profile.dnsConfig.relativeName}.${zone.toLowerCase().replace(/\.$/, '')}`;
  const out: Owned[] = [];
  for (const g of parseTag<KeptGroup>(profile, TAG_RECORDS)) {
    const targets = g.endpoints.flatMap((n) => {
      const t = byName.get(n)?.target;
      return t === undefined ? [] : [t.toLowerCase()];
    });
    if (targets.length === 0) continue;
    out.push({
      owner: g.owner ?? creator,
      record: {
        dnsName,
        targets: targets.sort(),
        recordType: g.recordType,
        ...(g.setIdentifier ? { setIdentifier: g.setIdentifier } : {}),
        ...(g.recordTTL ? { recordTTL: g.recordTTL } : {}),
        ...(g.providerSpecific && g.providerSpecific.length > 0 ? { providerSpecific: g.providerSpecific } : {}),
      },
    });
  }
  for (const t of parseTag<KeptTxt>(profile, TAG_TXT))
    out.push({
      owner: t.owner ?? creator,
      record: { dnsName: t.dnsName, targets: t.targets, recordType: 'TXT', ...(t.setIdentifier ? { setIdentifier: t.setIdentifier } : {}) },
    });
  return out;
}

/** The records of `owner` a profile holds, as ExternalDNS reads them (GET /records); another owner's are not its. */
export function recordsOf(profile: Profile, zone: string, owner: string): ExtEndpoint[] {
  return ownedRecords(profile, zone)
    .filter((o) => o.owner === owner)
    .map((o) => o.record);
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

/** A deployed profile and its stack. */
export interface Held {
  stack: string;
  profile: Profile;
}

/** The result of applying ExternalDNS's changes: the documents to plan, one per stack they touch. */
export interface Applied {
  /** Stack → every profile it should hold (those not touched as they are). */
  stacks: Map<string, ProfileInput[]>;
  /** TXT records no profile can hold (their record is not here): logged, not failed. */
  dropped: string[];
}

/**
 * The profiles after `owner`'s `changes`. `current`: every profile of the ExternalDNS stacks (all owners'). The
 * owner's records are taken out (deletes, old updates) and put in (creates, new updates); a record another
 * owner holds is never touched (a RecordError if this owner tries to write it). A name already held by a
 * profile stays in that profile's stack, with every owner's records in it (set identifiers tell them apart);
 * a new name goes to `ownStack`. Throws RecordError for a record tmkit cannot hold.
 */
export function applyChanges(current: readonly Held[], changes: ExtChanges, zone: string, owner: string, ownStack: string): Applied {
  const records = new Map<string, Owned>();
  const held = new Map<string, Held>();
  for (const h of current) {
    held.set(h.profile.name, h);
    for (const o of ownedRecords(h.profile, zone)) records.set(keyOf(o.record), o);
  }
  const checked = (list: ExtEndpoint[] | undefined, what: string): ExtEndpoint[] =>
    (list ?? []).map((e, i) => {
      const a = adjustEndpoint(e, zone);
      if ('reason' in a) throw new RecordError(`${what}[${i}] (${e.dnsName} ${e.recordType}): ${a.reason}`);
      const other = records.get(keyOf(a.endpoint));
      if (other && other.owner !== owner)
        throw new RecordError(
          `${what}[${i}] (${recordLabel(a.endpoint)}): owned by ${other.owner}; give this cluster's record its own set identifier (external-dns.kubernetes.io/set-identifier)`,
        );
      return a.endpoint;
    });
  const touched = new Set<string>();
  const nameOf = (e: ExtEndpoint): string | undefined => {
    const rel = relativeName(
      e.recordType === 'TXT' ? (e.labels?.ownedRecord ?? e.dnsName.replace(/^(a|aaaa|cname)-/, '')) : e.dnsName,
      zone,
    );
    return 'name' in rel ? rel.name : undefined;
  };
  for (const e of [...checked(changes.delete, 'delete'), ...checked(changes.updateOld, 'updateOld')]) {
    records.delete(keyOf(e));
    const n = nameOf(e);
    if (n !== undefined) touched.add(n);
  }
  for (const e of [...checked(changes.create, 'create'), ...checked(changes.updateNew, 'updateNew')]) {
    records.set(keyOf(e), { owner, record: e });
    const n = nameOf(e);
    if (n !== undefined) touched.add(n);
  }

  const groups = new Map<string, Owned[]>();
  const txts: Owned[] = [];
  for (const o of [...records.values()].sort((a, b) => (keyOf(a.record) < keyOf(b.record) ? -1 : 1))) {
    if (o.record.recordType === 'TXT') {
      txts.push(o);
      continue;
    }
    const rel = relativeName(o.record.dnsName, zone);
    if (!('name' in rel)) continue;
    groups.set(rel.name, [...(groups.get(rel.name) ?? []), o]);
  }
  const names = new Set(groups.keys());
  const txtBy = new Map<string, KeptTxt[]>();
  const dropped: string[] = [];
  for (const { owner: by, record: t } of txts) {
    const name = txtOwner(t, zone, names);
    if (name === undefined) {
      if (by === owner)
        dropped.push(
          `${t.dnsName} TXT${t.setIdentifier ? ` (set ${t.setIdentifier})` : ''}: no A, AAAA or CNAME record it owns is kept here`,
        );
      continue;
    }
    txtBy.set(name, [
      ...(txtBy.get(name) ?? []),
      { owner: by, dnsName: t.dnsName, ...(t.setIdentifier ? { setIdentifier: t.setIdentifier } : {}), targets: t.targets },
    ]);
  }
  // The stacks the touched names are (or go) in, each with every profile it holds.
  const stackOfName = (n: string): string => held.get(n)?.stack ?? ownStack;
  const stacks = new Map<string, ProfileInput[]>();
  for (const n of touched) if (!stacks.has(stackOfName(n))) stacks.set(stackOfName(n), []);
  const all = new Set([...held.keys(), ...groups.keys()]);
  for (const name of [...all].sort()) {
    const stack = stackOfName(name);
    const list = stacks.get(stack);
    if (!list) continue;
    if (!touched.has(name)) {
      const h = held.get(name);
      if (h) list.push(h.profile);
      continue;
    }
    const recs = groups.get(name);
    if (recs)
      list.push(profileOf(name, recs, txtBy.get(name) ?? [], held.get(name)?.profile.tags?.[TAG_OWNER] ?? owner, held.get(name)?.profile));
  }
  return { stacks, dropped };
}

function profileOf(name: string, owned: Owned[], txt: KeptTxt[], creator: string, previous: Profile | undefined): ProfileInput {
  const recs = owned.map((o) => o.record);
  const kept: KeptGroup[] = [];
  const endpoints: EndpointInput[] = [];
  const profileSettings: Settings = {};
  let ttl: number | undefined;
  const types = new Set(recs.map((r) => r.recordType));
  let nextPriority = 1;
  for (const [gi, r] of recs.entries()) {
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
      owner: owned[gi]!.owner,
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
  const tags: Record<string, string> = { ...(previous?.tags ?? {}), [TAG_OWNER]: creator, [TAG_RECORDS]: JSON.stringify(kept) };
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
