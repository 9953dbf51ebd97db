/**
 * The routing preview's client population (preview.ts): the synthetic clients it asks the routing engine
 * about (one per country/region, state/province, subnet range, an address outside every range, an unknown
 * location, and `--clients` addresses), the GeoLookup that places them, which of them the engine must
 * answer as one (classKeys), and the profile trees the preview resolves over.
 */
import { GEO_REGIONS, geoAncestry } from '../data';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import { parseIp } from '../net/ip';
import type { ClientGeo, GeoLookup } from '../ports';
import type { CompiledProfile, CompiledSnapshot } from '../routing';
import { rangeContains, ROUTING_IP_SYNTAX, subnetRange } from '../routing/ip';

const UNKNOWN_ADDRESS = '100::ffff:ffff:ffff:ffff';

export interface ClientClass {
  client: string;
  name: string;
  group: string;
  address: string;
  /**
   * One real client (`--clients`): resolved as that client, so an even split over clients (Performance
   * ties) gives the one endpoint its hash picks. Every other class stands for a population (a region, a
   * range, "other addresses") and gets the split itself: the fraction of its clients each endpoint answers.
   */
  individual?: boolean;
}

/** Synthetic clients for every region of the hierarchy, and a GeoLookup that places them. */
export class PreviewGeo implements GeoLookup {
  private readonly located = new Map<string, ClientGeo>();
  readonly countries: ClientClass[] = [];
  readonly subdivisions: ClientClass[] = [];

  constructor(private readonly base: GeoLookup) {
    let i = 1;
    for (const r of GEO_REGIONS.values()) {
      if (r.depth < 2) continue;
      const address = `100::${(i++).toString(16)}`;
      const grouping = groupingOf(r.code);
      if (r.depth === 2) {
        this.located.set(address, { country: r.code });
        this.countries.push({ client: r.code, name: r.name, group: grouping, address });
      } else {
        this.located.set(address, { country: r.parent!, subdivision: r.code });
        this.subdivisions.push({ client: r.code, name: r.name, group: grouping, address });
      }
    }
  }

  private readonly lowerMaps = new Map<ReadonlyMap<string, Profile>, Map<string, Profile>>();
  /** byLowerName(profiles), computed once per map for this preview (the maps are the preview's inputs). */
  lowerOf(profiles: ReadonlyMap<string, Profile>): Map<string, Profile> {
    let m = this.lowerMaps.get(profiles);
    if (!m) {
      m = byLowerName(profiles);
      this.lowerMaps.set(profiles, m);
    }
    return m;
  }

  /** True for the preview's own client addresses (region classes and the unknown-location client). */
  isSynthetic(address: string): boolean {
    return address === UNKNOWN_ADDRESS || this.located.has(address);
  }

  locate(address: string): ClientGeo | undefined {
    if (address === UNKNOWN_ADDRESS) return undefined;
    return this.located.get(address) ?? this.base.locate(address);
  }

  /** Synthetic clients ask the same (client, region) pairs for every profile and scenario: remember them. */
  private readonly latency = new Map<string, Map<string, number | undefined>>();

  latencyMs(address: string, geo: ClientGeo | undefined, region: string): number | undefined {
    if (!this.located.has(address)) return this.base.latencyMs(address, geo, region);
    let row = this.latency.get(address);
    if (!row) {
      row = new Map();
      this.latency.set(address, row);
    }
    if (row.has(region)) return row.get(region);
    const ms = this.base.latencyMs(address, geo, region);
    row.set(region, ms);
    return ms;
  }
}

function groupingOf(code: string): string {
  let cur = GEO_REGIONS.get(code);
  while (cur && cur.depth > 1) cur = cur.parent === undefined ? undefined : GEO_REGIONS.get(cur.parent);
  return cur?.code ?? 'WORLD';
}

/** The profiles by lower-cased name (nested references match case-insensitively). */
function byLowerName(profiles: ReadonlyMap<string, Profile>): Map<string, Profile> {
  const m = new Map<string, Profile>();
  for (const [n, p] of profiles) if (!m.has(n.toLowerCase())) m.set(n.toLowerCase(), p);
  return m;
}

/** The profile and every profile it nests, transitively (missing children skipped). */
export function tree(root: string, profiles: ReadonlyMap<string, Profile>, lower: ReadonlyMap<string, Profile>): Profile[] {
  const out: Profile[] = [];
  const seen = new Set<string>();
  const walk = (name: string): void => {
    const p = profiles.get(name) ?? lower.get(name.toLowerCase());
    if (!p || seen.has(p.name)) return;
    seen.add(p.name);
    out.push(p);
    for (const e of p.endpoints) if (e.type === 'nestedEndpoints' && e.targetResourceId) walk(childProfileName(e.targetResourceId));
  };
  walk(root);
  return out;
}

/** Leaf endpoint paths (`profile/endpoint`) under an endpoint of `p`, through nesting; enabled only. */
export function leavesUnder(p: Profile, endpointName: string, profiles: ReadonlyMap<string, Profile>, seen = new Set<string>()): string[] {
  const e = p.endpoints.find((x) => x.name === endpointName);
  if (e?.endpointStatus !== 'Enabled') return [];
  if (e.type !== 'nestedEndpoints') return [`${p.name}/${e.name}`];
  const childName = childProfileName(e.targetResourceId ?? '');
  const child = profiles.get(childName) ?? byLowerName(profiles).get(childName.toLowerCase());
  if (!child || seen.has(child.name)) return [];
  seen.add(child.name);
  return child.endpoints.flatMap((c) => leavesUnder(child, c.name, profiles, seen));
}

const FALLBACK_CANDIDATES = ['203.0.113.77', '198.51.100.77', '192.0.2.77', '100.64.0.77', '240.0.0.77', '2001:db8:ffff::77', '100::77:77'];

export function clientClasses(
  profiles: Profile[],
  pg: PreviewGeo,
  extra: ReadonlyArray<{ label: string; address: string }> | undefined,
): ClientClass[] {
  const methods = new Set(profiles.map((p) => p.trafficRoutingMethod));
  const out: ClientClass[] = [];
  if (methods.has('Geographic')) {
    // A state/province client answers like its country unless some endpoint maps a state/province code.
    const mapsSubdivision = profiles.some((p) =>
      p.endpoints.some((e) => e.geoMapping.some((c) => (GEO_REGIONS.get(c.toUpperCase())?.depth ?? 0) === 3)),
    );
    out.push(...pg.countries, ...(mapsSubdivision ? pg.subdivisions : []));
  } else if (methods.has('Performance')) out.push(...pg.countries);
  const ranges = profiles.flatMap((p) =>
    p.endpoints.filter((e) => e.endpointStatus === 'Enabled').flatMap((e) => e.subnets.map((s) => ({ p, e, s }))),
  );
  for (const { p, e, s } of ranges) {
    const text = s.scope !== undefined ? `${s.first}/${s.scope}` : s.last !== undefined ? `${s.first}-${s.last}` : s.first;
    out.push({ client: text, name: `range of ${p.name}/${e.name}`, group: 'subnets', address: s.first });
  }
  if (ranges.length > 0 || methods.has('Subnet')) {
    const parsed = profiles.flatMap((p) => p.endpoints.flatMap((e) => e.subnets.map(subnetRange))).filter((r) => r !== undefined);
    const outside = FALLBACK_CANDIDATES.find((a) => {
      const ip = parseIp(a, ROUTING_IP_SYNTAX)!;
      return !parsed.some((r) => rangeContains(r!, ip));
    });
    if (outside) out.push({ client: 'other addresses', name: `e.g. ${outside}`, group: 'subnets', address: outside });
  }
  if (out.length > 0 && (methods.has('Geographic') || methods.has('Performance'))) {
    out.push({ client: 'unknown location', name: 'address the geo database cannot place', group: 'WORLD', address: UNKNOWN_ADDRESS });
  }
  // The answer cannot depend on the client: one class, and no point asking for particular clients.
  if (out.length === 0)
    return [{ client: 'all clients', name: 'the answer does not depend on the client', group: 'all', address: UNKNOWN_ADDRESS }];
  for (const c of extra ?? []) out.push({ client: c.label, name: c.address, group: 'clients', address: c.address, individual: true });
  return out;
}

/**
 * Which client classes the engine must answer as one: classes with the same key get the same answer in
 * every health state, so only one representative per key is resolved and its answer is shared. The key is
 * exactly what the engine's decision reads for a located client (snapshot-compiled data, never health):
 * for each Geographic profile of the tree, the first code of the client's chain (state/province → country
 * → grouping → WORLD) that an enabled endpoint maps; for each Performance profile, the order of the
 * tree's endpoint regions by the client's latency, ties kept. Classes that are real addresses, subnet
 * ranges, or fall inside any endpoint's subnet range are never merged. `exhaustive` turns this off (the
 * tests compare both).
 */
export function classKeys(classes: readonly ClientClass[], snapshot: CompiledSnapshot, pg: PreviewGeo, tree: readonly Profile[]): string[] {
  const compiled = tree.map((p) => snapshot.compiled.get(p.name.toLowerCase())).filter((c): c is CompiledProfile => c !== undefined);
  const ranges = compiled.flatMap((cp) => cp.endpoints.flatMap((e) => e.subnets));
  return classes.map((c, i) => {
    if (!pg.isSynthetic(c.address)) return `#${i}`;
    if (ranges.length > 0) {
      const ip = parseIp(c.address, ROUTING_IP_SYNTAX);
      if (ip && ranges.some((r) => rangeContains(r, ip))) return `#${i}`;
    }
    const geo = pg.locate(c.address);
    const parts: string[] = [];
    for (const cp of compiled) {
      const method = cp.profile.trafficRoutingMethod;
      if (method === 'Geographic') {
        parts.push(`G${geoChain(geo).find((code) => cp.geo.has(code)) ?? '-'}`);
      } else if (method === 'Performance') {
        const ms = cp.regions.map((g) => ({ r: g.region, v: g.region === '' ? undefined : pg.latencyMs(c.address, geo, g.region) }));
        ms.sort((a, b) => (a.v ?? Infinity) - (b.v ?? Infinity) || (a.r < b.r ? -1 : a.r > b.r ? 1 : 0));
        parts.push(`P${ms.map((x, k) => `${k > 0 && (ms[k - 1]!.v ?? Infinity) === (x.v ?? Infinity) ? '=' : '<'}${x.r}`).join('')}`);
      }
    }
    return parts.join('|');
  });
}

/** The client's geographic codes, most specific first, as the routing engine derives them. */
function geoChain(g: ClientGeo | undefined): string[] {
  const sub = g?.subdivision?.toUpperCase();
  const country = g?.country?.toUpperCase();
  const code = sub !== undefined && GEO_REGIONS.has(sub) ? sub : country !== undefined && GEO_REGIONS.has(country) ? country : undefined;
  return code === undefined ? ['WORLD'] : geoAncestry(code);
}
