/**
 * Runs routing tests against a document (`tmkit test`, and `tmkit plan` when a tests file is beside the
 * document). Every answer comes from the routing engine's `resolve()` on a snapshot of the document with
 * every endpoint Online but the test's `down` ones (Degraded): what `tmkit resolve` / `POST /v1/resolve`
 * and DNS answer. Failover bounds come from the plan's estimate, single points of failure from the plan's
 * failure scenarios. Pure: the geo lookup is injected.
 */
import type { HealthView, ProbeVerdict } from '../health/types';
import { profileFqdn } from '../model/names';
import type { Profile } from '../model/types';
import { parsePrefix, formatIp } from '../net/ip';
import { failoverTimes } from '../plan/failover';
import { previewRouting } from '../plan/preview';
import type { GeoLookup, ResourceCatalog } from '../ports';
import { buildSnapshot, resolve, type CompiledSnapshot } from '../routing';
import type { ExplanationStep, RoutingResolution } from '../routing/types';
import {
  checkTestsAgainst,
  DEFAULT_TOLERANCE,
  downTargets,
  findProfile,
  nameMatches,
  parseRoutingTests,
  type RoutingTest,
  type TestFileProblem,
} from './schema';
import type { RoutingTestResult } from './types';

export type { RoutingTestResult };

export interface RunInput {
  profiles: readonly Profile[] | ReadonlyMap<string, Profile>;
  tests: readonly RoutingTest[];
  geo: GeoLookup;
  resources?: ResourceCatalog;
}

const ZONE = 'test.tmkit.invalid';
const DEFAULT_CLIENT = '127.0.0.1';

function healthWithDown(down: ReadonlySet<string>): HealthView {
  const lower = new Set([...down].map((d) => d.toLowerCase()));
  return { verdict: (p, e): ProbeVerdict => (lower.has(`${p}/${e}`.toLowerCase()) ? 'Degraded' : 'Online') };
}

function asMap(profiles: RunInput['profiles']): ReadonlyMap<string, Profile> {
  return profiles instanceof Map ? profiles : new Map((profiles as readonly Profile[]).map((p) => [p.name, p] as const));
}

/** An endpoint's location as routing sees it (endpointLocation, or the Azure resource's location). */
function locator(snapshot: CompiledSnapshot): (p: Profile, endpoint: string) => string | undefined {
  return (p, name) => {
    const ce = snapshot.compiled.get(p.name.toLowerCase())?.endpoints.find((e) => e.endpoint.name === name);
    return ce?.location ?? p.endpoints.find((e) => e.name === name)?.endpointLocation;
  };
}

/** The problems of `tests` against the document (unknown profiles, endpoints, down entries). */
export function checkRoutingTests(input: Omit<RunInput, 'geo'> & { geo?: GeoLookup }): TestFileProblem[] {
  const profiles = asMap(input.profiles);
  const snapshot = buildSnapshot({
    zone: ZONE,
    profiles: profiles.values(),
    geo: input.geo ?? { locate: () => undefined, latencyMs: () => undefined },
    ...(input.resources ? { resources: input.resources } : {}),
  });
  return checkTestsAgainst(input.tests, profiles, locator(snapshot));
}

const rel = (root: string, leaf: string): string => (leaf.startsWith(`${root}/`) ? leaf.slice(root.length + 1) : leaf);

function pct(p: number): string {
  const v = Math.round(p * 10000) / 100;
  return `${Number.isInteger(v) ? v : v.toFixed(2)}%`;
}

/** An outcome as the test names it: its leaves relative to the tested profile, or `no answer (NODATA)`. */
function answerText(root: string, r: RoutingResolution): string {
  const no = r.rcode === 'NOERROR' ? 'NODATA' : r.rcode;
  const one = (o: RoutingResolution['outcomes'][number]): string =>
    o.records.length === 0 ? `no answer (${no})` : o.endpoints.map((l) => rel(root, l)).join(', ');
  if (r.outcomes.length === 0) return `no answer (${no})`;
  if (r.outcomes.length === 1) return one(r.outcomes[0]!);
  return r.outcomes.map((o) => `${one(o)} ${pct(o.probability)}`).join(' · ');
}

export function traceLines(steps: readonly ExplanationStep[]): string[] {
  return steps.map((s) => `${s.profile ? `[${s.profile}] ` : ''}${s.kind}${s.endpoint ? ` ${s.endpoint}` : ''}: ${s.detail}`);
}

/** The query a test asks: its client (an ECS subnet's network address and length) and type. */
export function testQuery(t: RoutingTest, fqdn: string): { name: string; type: string; clientAddress: string; ecsSourcePrefix?: number } {
  const client = t.client ?? DEFAULT_CLIENT;
  const p = parsePrefix(client, { strict: false });
  const type = (t.type ?? 'ANY').toUpperCase();
  if ('error' in p) return { name: fqdn, type, clientAddress: client };
  return client.includes('/')
    ? { name: fqdn, type, clientAddress: formatIp(p), ecsSourcePrefix: p.length }
    : { name: fqdn, type, clientAddress: client };
}

/**
 * Runs the tests. A test naming what the document does not have (see checkRoutingTests) fails with that
 * message; the CLI reports those as a bad file before it runs anything.
 */
export function runRoutingTests(input: RunInput): RoutingTestResult[] {
  const profiles = asMap(input.profiles);
  const all = [...profiles.values()];
  const snap = (down: ReadonlySet<string>): CompiledSnapshot =>
    buildSnapshot({
      zone: ZONE,
      profiles: all,
      geo: input.geo,
      health: healthWithDown(down),
      ...(input.resources ? { resources: input.resources } : {}),
    });
  const base = snap(new Set());
  const locationOf = locator(base);
  const failover = failoverTimes(profiles);
  return input.tests.map((t): RoutingTestResult => {
    const root = findProfile(profiles, t.profile);
    const result = (passed: boolean, message: string, details: string[] = []): RoutingTestResult => ({
      name: t.name,
      profile: t.profile,
      passed,
      message,
      details,
    });
    if (!root) return result(false, `the document has no profile '${t.profile}'`);
    const down = new Set<string>();
    for (const d of t.down ?? []) {
      const r = downTargets(d, root, profiles, locationOf);
      if (typeof r === 'string') return result(false, r);
      for (const x of r) down.add(x);
    }
    const downText = t.down && t.down.length > 0 ? ` with ${t.down.join(', ')} down` : '';
    const checks: Array<{ ok: boolean; text: string; details: string[] }> = [];
    let resolution: RoutingResolution | undefined;
    const resolved = (): RoutingResolution => {
      resolution ??= resolve(down.size === 0 ? base : snap(down), testQuery(t, profileFqdn(root.dnsConfig.relativeName, ZONE)));
      return resolution;
    };
    const from = t.client !== undefined ? ` from ${t.client}` : '';
    if (t.expect !== undefined) {
      const r = resolved();
      const want = t.expect;
      const fits = (o: RoutingResolution['outcomes'][number]): boolean => {
        if (o.records.length === 0 || r.rcode !== 'NOERROR') return want.length === 0;
        if (want.length === 0) return false;
        return (
          o.endpoints.every((l) => want.some((n) => nameMatches(n, l, root, profiles))) &&
          want.every((n) => o.endpoints.some((l) => nameMatches(n, l, root, profiles)))
        );
      };
      const outcomes = r.outcomes.length === 0 ? [{ probability: 1, records: [], endpoints: [], explanation: r.explanation }] : r.outcomes;
      const wrong = outcomes.filter((o) => !fits(o));
      const wanted = want.length === 0 ? 'no answer' : want.join(', ');
      if (wrong.length === 0) checks.push({ ok: true, text: `answered ${wanted}${from}${downText}`, details: [] });
      else
        checks.push({
          ok: false,
          text: `expected ${wanted}${from}${downText}; answered ${answerText(root.name, r)}`,
          details: traceLines(wrong[0]!.explanation ?? r.explanation),
        });
    }
    if (t.shares !== undefined) {
      const r = resolved();
      const tol = t.tolerance ?? DEFAULT_TOLERANCE;
      const got = new Map<string, number>();
      let other = 0;
      const others = new Set<string>();
      for (const o of r.outcomes) {
        const leaves = o.records.length === 0 ? [] : o.endpoints;
        for (const n of Object.keys(t.shares))
          if (leaves.some((l) => nameMatches(n, l, root, profiles))) got.set(n, (got.get(n) ?? 0) + o.probability);
        const unlisted =
          o.records.length === 0
            ? ['no answer']
            : leaves.filter((l) => !Object.keys(t.shares!).some((n) => nameMatches(n, l, root, profiles)));
        if (unlisted.length > 0) {
          other += o.probability;
          for (const u of unlisted) others.add(rel(root.name, u));
        }
      }
      const off = Object.entries(t.shares).filter(([n, s]) => Math.abs((got.get(n) ?? 0) - s) > tol);
      const actual = `${Object.keys(t.shares)
        .map((n) => `${n} ${pct(got.get(n) ?? 0)}`)
        .join(', ')}${other > tol ? `, ${[...others].join(', ')} ${pct(other)}` : ''}`;
      const wanted = Object.entries(t.shares)
        .map(([n, s]) => `${n} ${pct(s)}`)
        .join(', ');
      const ok = off.length === 0 && other <= tol;
      checks.push({
        ok,
        text: ok ? `shares ${actual}${from}${downText}` : `expected shares ${wanted} (±${pct(tol)})${from}${downText}; answered ${actual}`,
        details: ok ? [] : traceLines(r.explanation),
      });
    }
    if (t.maxFailoverSeconds !== undefined) {
      const f = failover.get(root.name);
      const max = t.maxFailoverSeconds;
      if (!f || f.seconds === null)
        checks.push({
          ok: false,
          text: `expected worst-case failover ≤ ${max} s; traffic never fails over`,
          details: f?.notes ?? [],
        });
      else
        checks.push({
          ok: f.seconds <= max,
          text:
            f.seconds <= max
              ? `worst-case failover ${f.seconds} s ≤ ${max} s`
              : `expected worst-case failover ≤ ${max} s; it is ${f.seconds} s (${f.seconds - max} s over)`,
          details: f.seconds <= max ? [] : [`probe interval × (tolerated failures + 1) + timeout + TTL = ${f.formula}`, ...f.notes],
        });
    }
    if (t.noSinglePointOfFailure === true) {
      const pv = previewRouting({
        before: new Map(),
        after: profiles,
        profiles: [{ name: root.name, action: 'preview' }],
        geo: input.geo,
        ...(input.resources ? { resources: input.resources } : {}),
      }).profiles[0]!;
      const spof = pv.scenarios.filter((s) => s.flags.includes('single-point-of-failure') || s.flags.includes('no-answer'));
      checks.push({
        ok: spof.length === 0,
        text:
          spof.length === 0
            ? 'no single point of failure'
            : `expected no single point of failure; ${spof.map((s) => s.down).join(', ')} ${spof.length === 1 ? 'is one' : 'are'}`,
        details: spof.map(
          (s) =>
            `${s.down} down: ${s.stillDown !== null ? `still answered for ${s.stillDown}` : ''}${s.stillDown !== null && s.noAnswer.length > 0 ? '; ' : ''}${
              s.noAnswer.length > 0
                ? `no answer for ${s.noAnswer.slice(0, 5).join(', ')}${s.noAnswer.length > 5 ? ` and ${s.noAnswer.length - 5} more` : ''}`
                : ''
            }`,
        ),
      });
    }
    const failed = checks.filter((c) => !c.ok);
    return failed.length === 0
      ? result(true, checks.map((c) => c.text).join('; '))
      : result(
          false,
          failed.map((c) => c.text).join('; '),
          failed.flatMap((c) => c.details),
        );
  });
}

/**
 * A tests file's JSON read and checked against the document: the tests that can run, or every problem
 * (shape and names) with its path in the file. Runs nothing.
 */
export function readRoutingTests(
  raw: unknown,
  input: Omit<RunInput, 'geo' | 'tests'> & { geo?: GeoLookup },
): { tests: RoutingTest[]; problems: TestFileProblem[] } {
  const parsed = parseRoutingTests(raw);
  const all = (raw as { tests?: unknown[] } | null)?.tests;
  const inFile = (i: string): number => (Array.isArray(all) ? all.indexOf(parsed.tests[Number(i)]) : Number(i));
  const against = checkRoutingTests({ ...input, tests: parsed.tests }).map((p) => ({
    ...p,
    path: p.path.replace(/^tests\[(\d+)\]/, (_, i: string) => `tests[${inFile(i)}]`),
  }));
  const problems = [...parsed.problems, ...against];
  return { tests: problems.length > 0 ? [] : parsed.tests, problems };
}
