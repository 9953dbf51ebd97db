/**
 * resolve(): every answer the engine could give to a query now, with exact probabilities through nesting;
 * answer(): one of them, sampled with an injected RNG.
 */
import { ClientContext, step, type Option, type QueryClass, type Selection } from './methods/common';
import { geographic } from './methods/geographic';
import { multiValue } from './methods/multivalue';
import { performance } from './methods/performance';
import { priority } from './methods/priority';
import { subnet } from './methods/subnet';
import { weighted } from './methods/weighted';
import { compiledSnapshot, type CompiledEndpoint, type CompiledProfile, type RecordKind } from './snapshot';
import type {
  AnswerRecord,
  ExplanationStep,
  RoutingAnswer,
  RoutingOutcome,
  RoutingQuery,
  RoutingResolution,
  RoutingSnapshot,
  Rng,
} from './types';

/** Azure allows nesting up to 10 levels; deeper chains (only possible in unvalidated input) answer NODATA. */
export const MAX_NESTING_DEPTH = 10;

interface Leaf {
  type: RecordKind;
  data: string;
}
interface InnerOutcome {
  probability: number;
  records: Leaf[];
  endpoints: string[];
  steps: ExplanationStep[];
}
interface Inner {
  kind: 'answer' | 'nodata' | 'nxdomain';
  outcomes: InnerOutcome[];
  /** The outcomes depend on the client address somewhere in the tree. */
  dependent: boolean;
}

const CLIENT_DEPENDENT = new Set(['Performance', 'Geographic', 'Subnet']);

export function queryClass(type: string): QueryClass {
  if (type === 'A' || type === 'AAAA' || type === 'CNAME' || type === 'ANY') return type;
  const t = String(type).toUpperCase();
  return t === 'A' || t === 'AAAA' || t === 'CNAME' || t === 'ANY' ? t : 'OTHER';
}

/*
 * Record type vs query type for non-MultiValue profiles (behaviors.md §2):
 *
 *   query | chosen endpoint      | answer
 *   ------+----------------------+----------------
 *   ANY   | A, AAAA or CNAME     | that endpoint
 *   A     | A or CNAME           | that endpoint
 *   A     | AAAA                 | NODATA
 *   AAAA  | AAAA or CNAME        | that endpoint
 *   AAAA  | A                    | NODATA
 *   CNAME | CNAME                | that endpoint
 *   CNAME | A or AAAA            | NODATA
 *   other | CNAME                | that endpoint (tmkit: a CNAME owner answers every type, RFC 1034 §3.6.2)
 *   other | A or AAAA            | NODATA
 */
export function recordFits(kind: RecordKind, q: QueryClass): boolean {
  switch (q) {
    case 'ANY':
      return true;
    case 'A':
      return kind === 'A' || kind === 'CNAME';
    case 'AAAA':
      return kind === 'AAAA' || kind === 'CNAME';
    case 'CNAME':
      return kind === 'CNAME';
    default:
      return kind === 'CNAME';
  }
}

function select(cp: CompiledProfile, q: QueryClass, client: ClientContext): Selection {
  switch (cp.profile.trafficRoutingMethod) {
    case 'Priority':
      return priority(cp);
    case 'Weighted':
      return weighted(cp);
    case 'Performance':
      return performance(cp, client);
    case 'Geographic':
      return geographic(cp, client);
    case 'MultiValue':
      return multiValue(cp, q);
    case 'Subnet':
      return subnet(cp, client);
    default: {
      const steps = [step(cp, 'nodata', `unknown trafficRoutingMethod '${String(cp.profile.trafficRoutingMethod)}': NODATA`)];
      return { kind: 'nodata', steps };
    }
  }
}

function negative(kind: 'nodata' | 'nxdomain', steps: ExplanationStep[], dependent: boolean): Inner {
  return { kind, outcomes: [{ probability: 1, records: [], endpoints: [], steps }], dependent };
}

function leafOutcomes(
  cp: CompiledProfile,
  o: Option,
  q: QueryClass,
  prefix: ExplanationStep[],
  depth: number,
  client: ClientContext,
  acc: InnerOutcome[],
): boolean {
  if (o.multi) {
    const records = o.endpoints.map((e) => ({ type: e.kind as RecordKind, data: e.data! }));
    acc.push({ probability: o.probability, records, endpoints: o.endpoints.map((e) => e.path), steps: [...prefix, o.step] });
    return false;
  }
  const e: CompiledEndpoint = o.endpoints[0]!;
  if (e.kind === 'nested') {
    if (!e.child || depth + 1 > MAX_NESTING_DEPTH) {
      const why = e.child ? `nesting deeper than ${MAX_NESTING_DEPTH} levels` : e.statusReason;
      acc.push({
        probability: o.probability,
        records: [],
        endpoints: [],
        steps: [...prefix, o.step, step(cp, 'nodata', `${why}: NODATA`, e)],
      });
      return false;
    }
    const nestedStep = step(
      cp,
      'nested',
      `nested endpoint (${e.statusReason}): the child profile '${e.child.profile.name}' answers with its own method`,
      e,
    );
    const inner = resolveProfile(e.child, q, client, depth + 1);
    for (const co of inner.outcomes) {
      const steps = [...prefix, o.step, nestedStep, ...co.steps];
      if (inner.kind === 'nxdomain')
        steps.push(step(cp, 'nodata', `child '${e.child.profile.name}' would answer NXDOMAIN; below a parent the name exists: NODATA`, e));
      acc.push({ probability: o.probability * co.probability, records: co.records, endpoints: co.endpoints, steps });
    }
    return inner.dependent;
  }
  if (e.kind === 'none' || e.data === undefined) {
    acc.push({
      probability: o.probability,
      records: [],
      endpoints: [],
      steps: [...prefix, o.step, step(cp, 'nodata', `${e.statusReason}: NODATA`, e)],
    });
    return false;
  }
  if (!recordFits(e.kind, q)) {
    acc.push({
      probability: o.probability,
      records: [],
      endpoints: [],
      steps: [
        ...prefix,
        o.step,
        step(
          cp,
          'nodata',
          `query type ${q === 'OTHER' ? 'other than A/AAAA/CNAME/ANY' : q} does not match the endpoint's ${e.kind} record: NODATA`,
          e,
        ),
      ],
    });
    return false;
  }
  acc.push({ probability: o.probability, records: [{ type: e.kind, data: e.data }], endpoints: [e.path], steps: [...prefix, o.step] });
  return false;
}

/** Merges outcomes with the same records and endpoints (e.g. several NODATA branches), summing probabilities. */
function merge(outcomes: InnerOutcome[]): InnerOutcome[] {
  if (outcomes.length < 2) return outcomes;
  const byKey = new Map<string, InnerOutcome>();
  for (const o of outcomes) {
    const key = `${o.endpoints.join('\n')}|${o.records.map((r) => `${r.type} ${r.data}`).join('\n')}`;
    const prev = byKey.get(key);
    if (prev) byKey.set(key, { ...prev, probability: prev.probability + o.probability });
    else byKey.set(key, o);
  }
  return [...byKey.values()];
}

function resolveProfile(cp: CompiledProfile, q: QueryClass, client: ClientContext, depth: number): Inner {
  const cached = cp.cache.get(q) as Inner | undefined;
  if (cached) return cached;
  const method = cp.profile.trafficRoutingMethod;
  let dependent = CLIENT_DEPENDENT.has(method);
  const head = step(
    cp,
    'method',
    `${method} routing; profile monitor status ` +
      `${cp.status}${cp.allDegraded ? '; every eligible endpoint is Degraded: answering as if all were Online (all-degraded fallback)' : ''}`,
  );
  let result: Inner;
  if (cp.profile.profileStatus === 'Disabled' || cp.allDisabled) {
    // Only reachable through nesting (such a child is Stopped) or from the top level, which answers NXDOMAIN.
    result = negative(
      'nxdomain',
      [
        head,
        step(
          cp,
          'nxdomain',
          cp.profile.profileStatus === 'Disabled' ? 'profile Disabled: NXDOMAIN' : 'every endpoint is Disabled: NXDOMAIN',
        ),
      ],
      false,
    );
  } else {
    const sel = select(cp, q, client);
    const prefix = [head, ...sel.steps];
    if (sel.kind !== 'pick') {
      result = negative(sel.kind, prefix, dependent);
    } else {
      const acc: InnerOutcome[] = [];
      for (const o of sel.options) if (leafOutcomes(cp, o, q, prefix, depth, client, acc)) dependent = true;
      const outcomes = merge(acc);
      result = { kind: outcomes.every((o) => o.records.length === 0) ? 'nodata' : 'answer', outcomes, dependent };
    }
  }
  if (!result.dependent) cp.cache.set(q, result);
  return result;
}

/** Steps of all outcomes in order, each shared step once. */
function mergedExplanation(outcomes: readonly { steps: ExplanationStep[] }[]): ExplanationStep[] {
  if (outcomes.length === 1) return outcomes[0]!.steps;
  const seen = new Set<ExplanationStep>();
  const out: ExplanationStep[] = [];
  for (const o of outcomes)
    for (const s of o.steps)
      if (!seen.has(s)) {
        seen.add(s);
        out.push(s);
      }
  return out;
}

/** How a query name relates to the zone and its profiles. */
export type NameMatch = 'profile' | 'apex' | 'empty-non-terminal' | 'no-profile' | 'outside-zone';

export interface TopResolution extends RoutingResolution {
  /** Why the rcode is what it is at the name level (apex: the zone lookup, core/zone, answers SOA/NS itself and never asks routing). */
  nameMatch: NameMatch;
}

interface TopCached {
  rcode: RoutingResolution['rcode'];
  outcomes: RoutingOutcome[];
  explanation: ExplanationStep[];
  profile: string;
}

function zoneStep(detail: string, kind = 'name'): ExplanationStep {
  return { profile: '', kind, detail };
}

/** The query name lower-cased without the trailing dot. */
export function canonicalName(name: string): string {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  return n.toLowerCase();
}

/**
 * Every answer the engine could give to `query` now, with exact probabilities (products through nesting).
 * Accepts a snapshot from buildSnapshot() or any RoutingSnapshot (compiled once and remembered). The
 * returned objects are shared with later calls (client-independent answers are cached per snapshot):
 * treat them as read-only.
 */
export function resolve(snapshot: RoutingSnapshot, query: RoutingQuery): TopResolution {
  const snap = compiledSnapshot(snapshot);
  const name = canonicalName(query.name);
  const zone = snap.zone;
  const ecs = query.ecsSourcePrefix;
  if (!(name === zone || zone === '' || name.endsWith(`.${zone}`))) {
    return {
      rcode: 'REFUSED',
      outcomes: [],
      clientDependent: false,
      nameMatch: 'outside-zone',
      ...(ecs !== undefined ? { ecsScopePrefix: 0 } : {}),
      explanation: [zoneStep(`${name} is outside the zone ${zone}: REFUSED`, 'refused')],
    };
  }
  const cp = snap.byFqdn.get(name);
  if (!cp) {
    const nameMatch: NameMatch = name === zone ? 'apex' : snap.emptyNonTerminals.has(name) ? 'empty-non-terminal' : 'no-profile';
    const detail =
      nameMatch === 'apex'
        ? `${name} is the zone apex, not a profile (the zone lookup answers SOA/NS there): NXDOMAIN for routing`
        : nameMatch === 'empty-non-terminal'
          ? `${name} is not a profile but profile names exist below it (empty non-terminal): NODATA`
          : `no profile answers at ${name}: NXDOMAIN`;
    return {
      rcode: nameMatch === 'empty-non-terminal' ? 'NOERROR' : 'NXDOMAIN',
      outcomes: [{ probability: 1, records: [], endpoints: [] }],
      clientDependent: false,
      nameMatch,
      ...(ecs !== undefined ? { ecsScopePrefix: 0 } : {}),
      explanation: [zoneStep(detail, nameMatch === 'empty-non-terminal' ? 'nodata' : 'nxdomain')],
    };
  }
  const q = queryClass(query.type);
  let top = cp.topCache.get(q) as TopCached | undefined;
  let dependent = false;
  if (!top) {
    const client = new ClientContext(query.clientAddress, snap.geo, query.ecsSourcePrefix, query.population === true, snap.latency);
    const inner = resolveProfile(cp, q, client, 0);
    dependent = inner.dependent;
    const ttl = cp.profile.dnsConfig.ttl;
    const outcomes: RoutingOutcome[] = inner.outcomes.map((o) => ({
      probability: o.probability,
      records: o.records.map((r): AnswerRecord => ({ type: r.type, name: cp.fqdn, ttl, data: r.data })),
      endpoints: o.endpoints,
      explanation: o.steps,
    }));
    top = {
      rcode: inner.kind === 'nxdomain' ? 'NXDOMAIN' : 'NOERROR',
      outcomes,
      explanation: mergedExplanation(inner.outcomes),
      profile: cp.profile.name,
    };
    if (!dependent) cp.topCache.set(q, top);
  }
  return {
    rcode: top.rcode,
    outcomes: top.outcomes,
    clientDependent: dependent,
    ...(ecs !== undefined ? { ecsScopePrefix: dependent ? ecs : 0 } : {}),
    profile: top.profile,
    nameMatch: 'profile',
    explanation: top.explanation,
  };
}

/** Picks one outcome: u in [0,1) against the cumulative probabilities. */
export function pickOutcome<T extends { probability: number }>(outcomes: readonly T[], u: number): T | undefined {
  if (outcomes.length <= 1) return outcomes[0];
  let acc = 0;
  for (const o of outcomes) {
    acc += o.probability;
    if (u < acc) return o;
  }
  return outcomes[outcomes.length - 1];
}

/** The answer to one query: resolve() sampled with `rng` (drawn only when there are several outcomes). */
export function answer(snapshot: RoutingSnapshot, query: RoutingQuery, rng: Rng): RoutingAnswer {
  const r = resolve(snapshot, query);
  const o = pickOutcome(r.outcomes, r.outcomes.length > 1 ? rng() : 0);
  return {
    rcode: r.rcode,
    records: o?.records ?? [],
    ...(r.ecsScopePrefix !== undefined ? { ecsScopePrefix: r.ecsScopePrefix } : {}),
    ...(r.profile !== undefined ? { profile: r.profile } : {}),
    endpoints: o?.endpoints ?? [],
    explanation: o?.explanation ?? r.explanation,
  };
}
