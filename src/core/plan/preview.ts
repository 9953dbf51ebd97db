import type { LatencyView } from '../health/latency';
import type { HealthView, ProbeVerdict } from '../health/types';
import { childProfileName, profileFqdn } from '../model/names';
import type { Profile } from '../model/types';
import type { GeoLookup, ResourceCatalog } from '../ports';
import { buildSnapshot, resolve, type CompiledSnapshot } from '../routing';
import type { RoutingResolution } from '../routing/types';
import { plannedProfiles } from './diff';
import { classKeys, clientClasses, leavesUnder, PreviewGeo, tree, type ClientClass } from './preview-clients';
import type {
  AnswerLabel,
  ClientGroupSummary,
  ClientRow,
  PlanPreview,
  PriorityView,
  ProfilePreview,
  ScenarioRow,
  ShareRow,
} from './preview-types';
import { affectedProfiles } from './report';
import type { DeployedProfile, Plan } from './types';

/**
 * The routing preview. Every figure comes from the routing engine's `resolve()` on a snapshot of the
 * profile's nesting tree, so the preview is exactly what the DNS server would answer:
 *
 * - client classes: for trees with Geographic routing, one client per country/region (and per
 *   state/province of the hierarchy when an endpoint maps one; otherwise they answer exactly as their
 *   country) plus one whose location is unknown; with Performance routing, one per
 *   country/region plus unknown; one per subnet range (its first address) and one address outside every
 *   range when subnets are used; otherwise a single client (the answer does not depend on it). Clients are
 *   synthetic addresses in the discard-only prefix 100::/64 that the preview's GeoLookup wrapper locates in
 *   their class; latency comes from the injected GeoLookup's `latencyMs` (the country's representative
 *   point for the distance model, or the measured table);
 * - health: every endpoint Online; failure scenarios mark one endpoint (or a whole nested child) Degraded;
 * - queries: type ANY (so the endpoint is answered whatever its record kind; MultiValue returns both kinds),
 *   for a population of clients (the class), so Performance ties show their even split over clients; a
 *   `--clients` address is one client and shows the endpoint its hash picks.
 */
export interface PreviewInput {
  before: ReadonlyMap<string, Profile>;
  after: ReadonlyMap<string, Profile>;
  /** Profiles to preview, in order. */
  profiles: ReadonlyArray<{ name: string; action: ProfilePreview['action']; reason?: string }>;
  geo: GeoLookup;
  resources?: ResourceCatalog;
  /** Extra named client addresses (`tmkit preview --clients`), shown as their own classes. */
  clients?: ReadonlyArray<{ label: string; address: string }>;
  /** Compute failure scenarios and never-receiving endpoints (default true). */
  scenarios?: boolean;
  /** Also return one row per client class (`ProfilePreview.clients`); the groups carry the same answers. Default false. */
  clientRows?: boolean;
  /** Resolve every client class separately instead of once per class key (see classKeys); for tests. */
  exhaustive?: boolean;
}

const ZONE = 'preview.tmkit.invalid';

const ALL_ONLINE: HealthView = { verdict: () => 'Online' };

function healthWithDown(down: ReadonlySet<string>): HealthView {
  return { verdict: (p, e): ProbeVerdict => (down.has(`${p}/${e}`) ? 'Degraded' : 'Online') };
}

/** Answer label: leaf endpoints (own prefix stripped), NODATA / NXDOMAIN, or a split with shares. */
function label(root: string, r: RoutingResolution): AnswerLabel {
  if (r.rcode === 'NXDOMAIN') return 'NXDOMAIN';
  if (r.rcode === 'REFUSED') return 'REFUSED';
  const answered = r.outcomes.filter((o) => o.records.length > 0);
  if (answered.length === 0) return 'NODATA';
  const strip = (path: string): string => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);
  if (r.outcomes.length === 1) return r.outcomes[0]!.endpoints.map(strip).join(' + ');
  const parts = r.outcomes.map((o) => `${o.records.length === 0 ? 'NODATA' : o.endpoints.map(strip).join(' + ')} ${fmtPct(o.probability)}`);
  return parts.sort().join(' · ');
}

function fmtPct(p: number): string {
  const v = Math.round(p * 10000) / 100;
  return `${Number.isInteger(v) ? v : v.toFixed(2)}%`;
}

const isNoAnswer = (l: AnswerLabel | null): boolean => l === 'NODATA' || l === 'NXDOMAIN' || l === 'REFUSED';

/** Leaf shares over all outcomes (the probability that each leaf is in the answer). */
function shares(root: string, r: RoutingResolution): Map<string, number> {
  const out = new Map<string, number>();
  const strip = (path: string): string => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);
  for (const o of r.outcomes) {
    if (o.records.length === 0) {
      out.set('NODATA', (out.get('NODATA') ?? 0) + o.probability);
      continue;
    }
    for (const e of o.endpoints) out.set(strip(e), (out.get(strip(e)) ?? 0) + o.probability);
  }
  return out;
}

interface SideEval {
  profile: Profile;
  classes: ClientClass[];
  baseline: RoutingResolution[];
  labels: AnswerLabel[];
  dependent: boolean;
  /** Resolutions with `down` Degraded, for the classes at `only` (all when omitted; other slots undefined). */
  run: (down: ReadonlySet<string>, only?: readonly number[]) => Array<RoutingResolution | undefined>;
  /** True as soon as one class's resolution (with `down` Degraded) satisfies `hit`. */
  some: (down: ReadonlySet<string>, hit: (r: RoutingResolution) => boolean) => boolean;
  treeProfiles: ReadonlyMap<string, Profile>;
}

function evaluate(name: string, profiles: ReadonlyMap<string, Profile>, pg: PreviewGeo, input: PreviewInput): SideEval | null {
  const p = profiles.get(name);
  if (!p) return null;
  const t = tree(name, profiles, pg.lowerOf(profiles));
  const classes = clientClasses(t, pg, input.clients);
  const qname = profileFqdn(p.dnsConfig.relativeName, ZONE);
  const snap = (down: ReadonlySet<string>) =>
    buildSnapshot({
      zone: ZONE,
      profiles: t,
      geo: pg,
      health: down.size === 0 ? ALL_ONLINE : healthWithDown(down),
      ...(input.resources ? { resources: input.resources } : {}),
    });
  const first = snap(new Set());
  // rep[i]: the class whose answer class i shares.
  const rep: number[] = classes.map((_, i) => i);
  if (input.exhaustive !== true && classes.length > 1) {
    const seen = new Map<string, number>();
    classKeys(classes, first, pg, t).forEach((k, i) => {
      const r = seen.get(k);
      if (r === undefined) seen.set(k, i);
      else rep[i] = r;
    });
  }
  const reps = [...new Set(rep)];
  const ask = (snapshot: CompiledSnapshot, i: number): RoutingResolution =>
    resolve(snapshot, {
      name: qname,
      type: 'ANY',
      clientAddress: classes[i]!.address,
      ...(classes[i]!.individual === true ? {} : { population: true }),
    });
  const some = (down: ReadonlySet<string>, hit: (r: RoutingResolution) => boolean): boolean => {
    const snapshot = snap(down);
    return reps.some((i) => hit(ask(snapshot, i)));
  };
  const run = (down: ReadonlySet<string>, only?: readonly number[], snapshot = snap(down)): Array<RoutingResolution | undefined> => {
    const wanted = only ?? classes.map((_, i) => i);
    const byRep = new Map<number, RoutingResolution>();
    const out: Array<RoutingResolution | undefined> = new Array(classes.length);
    for (const i of wanted) {
      const r = rep[i]!;
      let res = byRep.get(r);
      if (!res) {
        res = ask(snapshot, r);
        byRep.set(r, res);
      }
      out[i] = res;
    }
    return out;
  };
  const baseline = run(new Set(), undefined, first) as RoutingResolution[];
  return {
    profile: p,
    classes,
    baseline,
    labels: baseline.map((r) => label(name, r)),
    dependent: classes.length > 1,
    run,
    some,
    treeProfiles: new Map(t.map((x) => [x.name, x])),
  };
}

function priorityView(side: SideEval): PriorityView {
  return {
    active: side.labels[0]!,
    order: side.profile.endpoints
      .filter((e) => e.endpointStatus === 'Enabled')
      .slice()
      .sort((a, b) => a.priority - b.priority)
      .map((e) => e.name),
  };
}

function groupRows(rows: ClientRow[]): ClientGroupSummary[] {
  const by = new Map<string, ClientGroupSummary>();
  for (const r of rows) {
    const key = `${r.group}\u0000${r.before ?? ''}\u0000${r.after ?? ''}`;
    const g = by.get(key);
    if (g) {
      g.count++;
      g.clients.push(r.client);
    } else by.set(key, { group: r.group, before: r.before, after: r.after, count: 1, clients: [r.client] });
  }
  const groups = [...by.values()];
  const order = (g: ClientGroupSummary): number => (g.before === g.after ? 1 : 0);
  return groups.sort(
    (a, b) =>
      order(a) - order(b) ||
      (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) ||
      b.count - a.count ||
      String(a.after).localeCompare(String(b.after)),
  );
}

function scenarios(side: SideEval): { rows: ScenarioRow[]; never: string[] } {
  const root = side.profile.name;
  const strip = (path: string): string => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);
  const allLeaves = side.profile.endpoints.flatMap((e) => leavesUnder(side.profile, e.name, side.treeProfiles));
  const downs: Array<{ label: string; leaves: string[] }> = allLeaves.map((l) => ({ label: strip(l), leaves: [l] }));
  // A whole nested child going down (every leaf under a nested endpoint, at every level).
  for (const p of side.treeProfiles.values()) {
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints' || e.endpointStatus !== 'Enabled') continue;
      const leaves = leavesUnder(p, e.name, side.treeProfiles);
      if (leaves.length > 1)
        downs.push({ label: `${strip(`${p.name}/${e.name}`)} (all of ${childProfileName(e.targetResourceId ?? '')})`, leaves });
    }
  }
  const rows: ScenarioRow[] = [];
  const baseShares = side.baseline.map((r) => shares(root, r));
  /** Leaves seen receiving traffic in the baseline or any scenario. */
  const seen = new Set<string>();
  for (const m of baseShares) for (const k of m.keys()) seen.add(k);
  for (const d of downs) {
    const downLabels = new Set(d.leaves.map(strip));
    const hits = (m: Map<string, number>): number => [...m].filter(([k]) => downLabels.has(k)).reduce((s, [, v]) => s + v, 0);
    const affected = baseShares.map((m, i) => [i, hits(m)] as const).filter(([, s]) => s > 0);
    if (affected.length === 0) continue; // receives no traffic normally (e.g. a Priority backup)
    const res = side.run(
      new Set(d.leaves),
      affected.map(([i]) => i),
    );
    for (const r of res) if (r) for (const k of shares(root, r).keys()) seen.add(k);
    const labels = res.map((r) => (r === undefined ? '' : label(root, r)));
    const noAnswer = affected.filter(([i]) => isNoAnswer(labels[i]!)).map(([i]) => side.classes[i]!.client);
    const still = affected.filter(([i]) => hits(shares(root, res[i]!)) > 0);
    const flags: ScenarioRow['flags'] = [];
    let goesTo: string;
    let stillDown: string | null = null;
    if (!side.dependent) {
      const before = baseShares[0]!;
      const after = shares(root, res[0]!);
      const gains = [...after]
        .filter(([k, v]) => !downLabels.has(k) && v - (before.get(k) ?? 0) > 1e-12)
        .map(([k, v]) => `${k} ${points(v - (before.get(k) ?? 0))}`);
      goesTo = gains.length > 0 ? gains.join(', ') : 'nowhere else';
      const s = hits(after);
      if (s > 0) stillDown = `${fmtPct(s)} of answers`;
    } else {
      const dest = new Map<string, number>();
      const stillSet = new Set(still.map(([i]) => i));
      for (const [i] of affected) {
        if (stillSet.has(i)) continue;
        const l = labels[i]!;
        dest.set(l, (dest.get(l) ?? 0) + 1);
      }
      goesTo =
        dest.size === 0
          ? 'nowhere: its clients are still answered with it'
          : [...dest]
              .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
              .map(([l, n]) => `${l} (${n})`)
              .join(', ');
      if (still.length > 0) stillDown = `${still.length} of the ${affected.length} client groups it serves`;
    }
    if (stillDown !== null) flags.push('single-point-of-failure');
    if (noAnswer.length > 0) flags.push('no-answer');
    rows.push({ down: d.label, goesTo, stillDown, noAnswer, flags });
  }
  // Endpoints that get no client even when every other endpoint of the profile is down.
  const never: string[] = [];
  for (const e of side.profile.endpoints) {
    if (e.endpointStatus !== 'Enabled') continue;
    const mine = new Set(leavesUnder(side.profile, e.name, side.treeProfiles));
    if (mine.size === 0) {
      never.push(e.name);
      continue;
    }
    const mineLabels = new Set([...mine].map(strip));
    if ([...mineLabels].some((k) => seen.has(k))) continue; // already seen answering
    const others = allLeaves.filter((l) => !mine.has(l));
    const hit = (r: RoutingResolution): boolean => [...shares(root, r).keys()].some((k) => mineLabels.has(k));
    if (!(others.length === 0 ? side.baseline.some(hit) : side.some(new Set(others), hit))) never.push(e.name);
  }
  return { rows, never };
}

function points(d: number): string {
  const v = Math.round(d * 10000) / 100;
  return `${v >= 0 ? '+' : '−'}${Number.isInteger(v) ? Math.abs(v) : Math.abs(v).toFixed(2)} pts`;
}

/** Previews the given profiles before vs after. */
export function previewRouting(input: PreviewInput): PlanPreview {
  const pg = new PreviewGeo(input.geo);
  const out: ProfilePreview[] = [];
  for (const target of input.profiles) {
    const b = evaluate(target.name, input.before, pg, input);
    const a = evaluate(target.name, input.after, pg, input);
    const method = (s: SideEval | null) => s?.profile.trafficRoutingMethod ?? null;
    const pv: ProfilePreview = {
      profile: target.name,
      action: target.action,
      methodBefore: method(b),
      methodAfter: method(a),
      lostAnswer: [],
      scenarios: [],
      neverReceive: [],
      notes: [],
    };
    if (target.reason !== undefined) pv.reason = target.reason;
    const anyDependent = (b?.dependent ?? false) || (a?.dependent ?? false);
    if (!anyDependent) {
      const sb = b ? shares(target.name, b.baseline[0]!) : new Map<string, number>();
      const sa = a ? shares(target.name, a.baseline[0]!) : new Map<string, number>();
      const m = method(a) ?? method(b);
      if (m === 'Priority') {
        pv.priority = { before: b ? priorityView(b) : null, after: a ? priorityView(a) : null };
      } else {
        const keys = [...new Set([...sb.keys(), ...sa.keys()])].sort();
        pv.shares = keys.map((k): ShareRow => {
          const before = b ? (sb.get(k) ?? 0) : null;
          const after = a ? (sa.get(k) ?? 0) : null;
          return {
            endpoint: k,
            before,
            after,
            deltaPoints: before !== null && after !== null ? Math.round((after - before) * 1e6) / 1e4 : 0,
          };
        });
      }
      if (m === 'MultiValue') {
        const mv = (s: SideEval | null) =>
          s
            ? {
                set: [...shares(target.name, s.baseline[0]!).keys()].filter((k) => k !== 'NODATA').sort(),
                maxReturn: s.profile.maxReturn ?? 2,
              }
            : null;
        pv.multiValue = { before: mv(b), after: mv(a) };
      }
    } else {
      const classes = new Map<string, ClientRow>();
      for (const s of [b, a]) {
        if (!s) continue;
        s.classes.forEach((c, i) => {
          const row = classes.get(c.client) ?? { client: c.client, name: c.name, group: c.group, before: null, after: null };
          if (s === b) row.before = s.labels[i]!;
          else row.after = s.labels[i]!;
          classes.set(c.client, row);
        });
      }
      const rows = [...classes.values()];
      if (input.clientRows === true) pv.clients = rows;
      pv.clientGroups = groupRows(rows);
      if (b && a)
        pv.lostAnswer = rows
          .filter((r) => r.before !== null && !isNoAnswer(r.before) && (r.after === null || isNoAnswer(r.after)))
          .map((r) => r.client);
    }
    if (a && input.scenarios !== false) {
      const sc = scenarios(a);
      pv.scenarios = sc.rows;
      pv.neverReceive = sc.never;
    }
    if (target.action === 'delete' && b) {
      pv.notes.push(`profile destroyed: every query for ${b.profile.dnsConfig.relativeName} gets NXDOMAIN`);
    }
    if (target.action === 'replace' && b && a) {
      pv.notes.push(
        `the DNS name moves from ${b.profile.dnsConfig.relativeName} to ${a.profile.dnsConfig.relativeName}: clients still using the old name get NXDOMAIN`,
      );
    }
    out.push(pv);
  }
  return {
    profiles: out,
    clientModel:
      'exact shares from the routing engine; Geographic: one client per country/region (and state/province where one is mapped) of the hierarchy; ' +
      'Performance: one client per country/region at its representative point, latency ' +
      'from the geo model; every endpoint Online unless a scenario says otherwise',
  };
}

/** The preview of every profile a plan affects (changed ones and the parents that nest them). */
export function previewPlan(
  plan: Plan,
  deployed: readonly DeployedProfile[],
  geo: GeoLookup,
  options: Pick<PreviewInput, 'resources' | 'clients' | 'scenarios' | 'clientRows' | 'exhaustive'> = {},
): PlanPreview {
  const before = new Map(deployed.map((d) => [d.profile.name, d.profile] as const));
  const after = plannedProfiles(plan, deployed);
  const actionOf = new Map(plan.changes.map((c) => [c.profile, c.action]));
  const profiles = affectedProfiles(plan, deployed).map((a) => {
    const act = actionOf.get(a.name);
    const action: ProfilePreview['action'] = act === undefined || act === 'no-op' ? 'affected' : act;
    return a.reason !== undefined && action === 'affected' ? { name: a.name, action, reason: a.reason } : { name: a.name, action };
  });
  return previewRouting({ before, after, profiles, geo, ...options });
}

/** One row of the routing map: what one client class gets, with the share of its clients. */
export interface RoutingMapRow {
  client: string;
  label: string;
  group: string;
  /** Leaf endpoint path, or `''` for no answer. */
  endpoint: string;
  probability: number;
  /** Measured Performance profiles: what ranked the class's answer (the top profile's `performance-source` step). */
  performanceSource?: 'measured' | 'distance model';
}

/**
 * The routing map of one profile (the dashboard's, `POST /v1/preview`): for every client class the preview
 * models (countries and subdivisions at their representative points, subnet ranges, unknown locations), the
 * leaf endpoints it gets now and with what share, with `health` as given (e.g. the live verdicts with a
 * failure scenario's endpoints Degraded). Same engine as DNS: `resolve()` on a snapshot of the profile tree.
 */
export function routingMap(input: {
  name: string;
  profiles: ReadonlyMap<string, Profile>;
  geo: GeoLookup;
  health: HealthView;
  resources?: ResourceCatalog;
  /** What the probing locations measured (the served snapshot's), for Measured Performance profiles. */
  latency?: LatencyView;
}): RoutingMapRow[] {
  const p = input.profiles.get(input.name);
  if (!p) return [];
  const pg = new PreviewGeo(input.geo);
  const t = tree(p.name, input.profiles, pg.lowerOf(input.profiles));
  const snap = buildSnapshot({
    zone: ZONE,
    profiles: t,
    geo: pg,
    health: input.health,
    ...(input.resources ? { resources: input.resources } : {}),
    ...(input.latency ? { latency: input.latency } : {}),
  });
  const qname = profileFqdn(p.dnsConfig.relativeName, ZONE);
  const rows: RoutingMapRow[] = [];
  for (const c of clientClasses(t, pg, [])) {
    const r = resolve(snap, { name: qname, type: 'ANY', clientAddress: c.address, population: true });
    const shares = new Map<string, number>();
    for (const o of r.outcomes) {
      const leaves = o.records.length === 0 ? [''] : o.endpoints;
      for (const leaf of leaves) shares.set(leaf, (shares.get(leaf) ?? 0) + o.probability);
    }
    const source = r.explanation.find((s) => s.kind === 'performance-source' && s.profile === p.name)?.detail;
    const performanceSource = source === undefined ? undefined : source.startsWith('measured') ? 'measured' : 'distance model';
    for (const [endpoint, probability] of shares)
      rows.push({
        client: c.client,
        label: c.name,
        group: c.group,
        endpoint,
        probability,
        ...(performanceSource !== undefined ? { performanceSource } : {}),
      });
  }
  return rows;
}
