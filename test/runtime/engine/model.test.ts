/**
 * Model-based test of the runtime's central promise (issue 11): **DNS follows every acknowledged write,
 * every health transition, and every override change and expiry** (docs/operations.md).
 *
 * fast-check generates sequences of management-API writes (create, update, monitor-settings edits, endpoint
 * PATCHes, deletes, nested parents, composite checks) interleaved with health changes (of a whole target, or of
 * one composite check on it), probe rounds and overrides (down and weight, forced or judged by the safety rule,
 * cleared, or expiring during a probe round's 61 s). They run against a real engine (SQLite store in a temp dir, real API over HTTP, real DNS over UDP) whose prober is
 * injected (each target is up or down as the test says) and whose clock is fake (probes happen and overrides
 * expire only in a probe round). After every step, within a bound:
 *   1. `/healthz` reports the served snapshot at the store's revision (no lag);
 *   2. for every name, what DNS answers is one of the outcomes the pure core resolves from the store's
 *      current content, the verdicts of a reference model of the prober (tolerated failures 0: a new,
 *      re-enabled or re-configured endpoint is probed at once, then in every probe round; its verdict is
 *      Online or Degraded by its last probe) and the overrides the API acknowledged that have not expired;
 *   3. the store holds exactly the acknowledged writes (a reference model of the profiles).
 * On failure fast-check prints the seed and the shrunk sequence; rerun with `TMKIT_MODEL_SEED=<seed>`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { request } from 'undici';
import { TmkitApiError, TmkitClient } from '../../../src/client';
import { probeTargets, type ProbeCheck, type ProbeTarget } from '../../../src/core/health/targets';
import type { ProbeVerdict } from '../../../src/core/health/types';
import type { OverrideRecord } from '../../../src/core/api';
import { endpointOverrides } from '../../../src/core/operations/overrides';
import type { EndpointInput, Profile, ProfileInput } from '../../../src/core/model/types';
import { buildSnapshot, resolve } from '../../../src/core/routing';
import type { GeoLookup } from '../../../src/core/ports';
import { MmdbGeoLookup } from '../../../src/geo';
import { Engine } from '../../../src/runtime/engine';
import { toResourceCatalog } from '../../../src/runtime/store';
import { FakeTimers } from '../monitor/fake-timers';
import { queryUdp, type DnsReply } from '../../support/loopback';

const ZONE = 'tm.internal';
const LEAVES = ['a', 'b', 'c'] as const;
const PARENT = 'n';
const NAMES = [...LEAVES, PARENT, 'absent'];
const TARGETS = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5', '192.0.2.6'];
const BOUND_MS = 3_000;
const RUNS = Number(process.env.TMKIT_MODEL_RUNS ?? 200);

type Method = 'Priority' | 'Weighted' | 'MultiValue' | 'Performance';
type Step =
  | {
      op: 'put';
      name: (typeof LEAVES)[number];
      method: Method;
      disabled: boolean;
      ttl: number;
      monitor: MonitorChoice;
      endpoints: EndpointChoice[];
    }
  | { op: 'parent'; method: 'Priority' | 'Weighted'; children: string[]; monitor: MonitorChoice }
  | { op: 'monitor'; name: string; path: string; tcp: boolean }
  | {
      op: 'patch';
      name: string;
      index: number;
      patch: { endpointStatus: 'Enabled' | 'Disabled' } | { weight: number } | { alwaysServe: 'Enabled' | 'Disabled' };
    }
  | { op: 'delete'; name: string }
  | { op: 'health'; target: string; up: boolean }
  | { op: 'check'; target: string; check: number; up: boolean }
  | { op: 'probe' }
  | { op: 'override'; name: string; index: number; kind: 'down' | 'weight'; weight: number; seconds: 5 | 30 | 120; force: boolean }
  | { op: 'clear'; pick: number };
interface MonitorChoice {
  path: string;
  interval: 10 | 30;
  tcp: boolean;
  /** Composite checks (docs/health.md "Composite checks"): check i probes path `/c<i>` with this role. */
  checks?: { roles: CheckRole[]; quorum?: number };
}
type CheckRole = 'must' | 'monitor' | 'count';
const CHECKS = 3;
interface EndpointChoice {
  target: string;
  weight: number;
  disabled: boolean;
  alwaysServe: boolean;
}

const checksArb: fc.Arbitrary<NonNullable<MonitorChoice['checks']>> = fc
  .array(fc.constantFrom<CheckRole>('must', 'monitor', 'count'), { minLength: 1, maxLength: CHECKS })
  .filter((roles) => roles.some((r) => r !== 'monitor'))
  .chain((roles) => {
    const counting = roles.filter((r) => r === 'count').length;
    // quorum: omitted (all counting checks) or 1..counting; never written when nothing counts.
    return counting === 0
      ? fc.constant({ roles })
      : fc
          .option(fc.integer({ min: 1, max: counting }), { nil: undefined })
          .map((quorum) => (quorum === undefined ? { roles } : { roles, quorum }));
  });
const monitorArb: fc.Arbitrary<MonitorChoice> = fc
  .record({
    path: fc.constantFrom('/x', '/y', '/z'),
    interval: fc.constantFrom(10 as const, 30 as const),
    tcp: fc.boolean(),
    checks: fc.option(checksArb, { freq: 2 }),
  })
  .map(({ checks, ...m }) => (checks === null ? m : { ...m, checks }));
const endpointsArb = fc.uniqueArray(
  fc.record({
    target: fc.constantFrom(...TARGETS),
    weight: fc.integer({ min: 1, max: 3 }),
    disabled: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    alwaysServe: fc.boolean(),
  }),
  { minLength: 1, maxLength: 3, selector: (e) => e.target },
);
const nameArb = fc.constantFrom(...LEAVES, PARENT);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      name: fc.constantFrom(...LEAVES),
      method: fc.constantFrom<Method>('Priority', 'Weighted', 'MultiValue', 'Performance'),
      disabled: fc.constant(false),
      ttl: fc.constantFrom(0, 30),
      monitor: monitorArb,
      endpoints: endpointsArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('put' as const),
      name: fc.constantFrom(...LEAVES),
      method: fc.constant<Method>('Priority'),
      disabled: fc.constant(true),
      ttl: fc.constant(30),
      monitor: monitorArb,
      endpoints: endpointsArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('parent' as const),
      method: fc.constantFrom('Priority' as const, 'Weighted' as const),
      children: fc.uniqueArray(fc.constantFrom(...LEAVES), { minLength: 1, maxLength: 2 }),
      monitor: monitorArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('monitor' as const),
      name: nameArb,
      path: fc.constantFrom('/x', '/y', '/z'),
      tcp: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('patch' as const),
      name: nameArb,
      index: fc.nat(2),
      patch: fc.oneof(
        fc.record({ endpointStatus: fc.constantFrom('Enabled' as const, 'Disabled' as const) }),
        fc.record({ weight: fc.integer({ min: 1, max: 5 }) }),
        fc.record({ alwaysServe: fc.constantFrom('Enabled' as const, 'Disabled' as const) }),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), name: nameArb }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('health' as const), target: fc.constantFrom(...TARGETS), up: fc.boolean() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('check' as const),
      target: fc.constantFrom(...TARGETS),
      check: fc.nat(CHECKS - 1),
      up: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.constant({ op: 'probe' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('override' as const),
      name: nameArb,
      index: fc.nat(2),
      kind: fc.constantFrom('down' as const, 'weight' as const),
      weight: fc.integer({ min: 1, max: 9 }),
      seconds: fc.constantFrom(5 as const, 30 as const, 120 as const),
      force: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), pick: fc.nat(5) }) },
);

function monitorConfig(m: MonitorChoice): ProfileInput['monitorConfig'] {
  const base: NonNullable<ProfileInput['monitorConfig']> = m.tcp
    ? { protocol: 'TCP', port: 443, intervalInSeconds: m.interval, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 }
    : { protocol: 'HTTP', port: 80, path: m.path, intervalInSeconds: m.interval, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 };
  if (m.checks === undefined) return base;
  return {
    ...base,
    checks: m.checks.roles.map((role, i) => ({
      name: `c${i}`,
      protocol: 'HTTP' as const,
      port: 80,
      path: `/c${i}`,
      ...(role === 'must' ? { mustBeHealthy: true } : role === 'monitor' ? { monitoringOnly: true } : {}),
    })),
    ...(m.checks.quorum !== undefined ? { quorum: m.checks.quorum } : {}),
  };
}

function leafInput(s: Extract<Step, { op: 'put' }>): ProfileInput {
  const endpoints: EndpointInput[] = s.endpoints.map((e, i) => ({
    name: `e${i}`,
    type: 'externalEndpoints',
    target: e.target,
    ...(s.method === 'Weighted' ? { weight: e.weight } : {}),
    ...(s.method === 'Performance' ? { endpointLocation: i % 2 === 0 ? 'westeurope' : 'eastus' } : {}),
    ...(e.disabled ? { endpointStatus: 'Disabled' } : {}),
    ...(e.alwaysServe ? { alwaysServe: 'Enabled' } : {}),
  }));
  return {
    name: s.name,
    trafficRoutingMethod: s.method,
    ...(s.disabled ? { profileStatus: 'Disabled' } : {}),
    dnsConfig: { relativeName: s.name, ttl: s.ttl },
    monitorConfig: monitorConfig(s.monitor),
    ...(s.method === 'MultiValue' ? { maxReturn: 2 } : {}),
    endpoints,
  };
}

function parentInput(s: Extract<Step, { op: 'parent' }>): ProfileInput {
  return {
    name: PARENT,
    trafficRoutingMethod: s.method,
    dnsConfig: { relativeName: PARENT, ttl: 30 },
    monitorConfig: monitorConfig(s.monitor),
    endpoints: s.children.map((c, i) => ({
      name: `to-${c}`,
      type: 'nestedEndpoints',
      targetResourceId: c,
      minChildEndpoints: 1,
      ...(s.method === 'Weighted' ? { weight: i + 1 } : {}),
    })),
  };
}

/**
 * The reference prober: with tolerated failures 0 the verdict is the last probe with the current settings. A
 * target is up or down as a whole (`up`); each composite check's path on it may be down too (`checkUp`), and
 * then the round is what docs/health.md "Composite checks" says: every mustBeHealthy check passes and at least
 * quorum (default: all) of the counting ones; monitoringOnly checks never count.
 */
class ProberModel {
  readonly up = new Map<string, boolean>(TARGETS.map((t) => [t, true]));
  /** `<target> <path>` of a check that fails on that target. */
  readonly checkDown = new Set<string>();

  /** What the injected probe answers for one probe (a check's or the single one). */
  probe(target: string, path: string | undefined): boolean {
    return (this.up.get(target) ?? true) && !this.checkDown.has(`${target} ${path}`);
  }

  private ok(t: ProbeTarget): boolean {
    if (t.checks === undefined) return this.up.get(t.target) ?? true;
    const passes = (c: ProbeCheck): boolean => this.probe(t.target, c.path);
    const counting = t.checks.filter((c) => !c.mustBeHealthy && !c.monitoringOnly);
    const quorum = t.quorum ?? counting.length;
    return t.checks.filter((c) => c.mustBeHealthy).every(passes) && counting.filter(passes).length >= quorum;
  }
  private readonly probed = new Map<string, { fingerprint: string; ok: boolean }>();

  /**
   * After an acknowledged write: endpoints that are new, re-enabled or whose probe settings changed start
   * over and are probed at once (docs/health.md "Schedule"), with the targets' current health; removed ones are
   * forgotten.
   */
  retarget(before: Profile[], after: Profile[]): void {
    const was = new Map(probeTargets(before, new Map()).map((t) => [t.key, t.fingerprint]));
    const now = probeTargets(after, new Map());
    for (const t of now) if (was.get(t.key) !== t.fingerprint) this.probed.set(t.key, { fingerprint: t.fingerprint, ok: this.ok(t) });
    const keys = new Set(now.map((t) => t.key));
    for (const k of [...this.probed.keys()]) if (!keys.has(k)) this.probed.delete(k);
  }

  /** A probe round (61 s of fake time: the first periodic probe comes under two intervals after the immediate one): every probed endpoint probed at least once with the targets' current health. */
  round(profiles: Profile[]): void {
    for (const t of probeTargets(profiles, new Map())) this.probed.set(t.key, { fingerprint: t.fingerprint, ok: this.ok(t) });
  }

  verdicts(profiles: Profile[]): Map<string, ProbeVerdict> {
    const out = new Map<string, ProbeVerdict>();
    for (const t of probeTargets(profiles, new Map())) {
      const p = this.probed.get(t.key);
      out.set(t.key, p && p.fingerprint === t.fingerprint ? (p.ok ? 'Online' : 'Degraded') : 'CheckingEndpoint');
    }
    return out;
  }
}

const recordsOf = (r: DnsReply): string =>
  JSON.stringify(
    r.answers
      .filter((a) => a.type === 'A' || a.type === 'CNAME')
      .map((a) => `${a.type} ${String(a.data)} ${a.ttl}`)
      .sort(),
  );

let geo: GeoLookup;
beforeAll(async () => {
  geo = await MmdbGeoLookup.open();
});

test(
  `model: DNS follows every acknowledged write, health transition and override change or expiry (${RUNS} random sequences)`,
  async () => {
    let sequences = 0;
    let steps = 0;
    let writes = 0;
    let rejected = 0;
    const ops = { overrides: 0, expired: 0, checked: 0, checkDegraded: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40, size: 'medium' }), async (plan) => {
        sequences++;
        const dir = mkdtempSync(join(tmpdir(), 'tmkit-model-'));
        const timers = new FakeTimers();
        const prober = new ProberModel();
        const overrides = new Map<string, OverrideRecord>(); // id -> override the API acknowledged
        const engine = await Engine.start({
          stateDir: dir,
          zone: ZONE,
          dns: [{ address: '127.0.0.1', port: 0 }],
          api: { host: '127.0.0.1', port: 0 },
          logger: pino({ level: 'silent' }),
          env: {},
          geo,
          clock: timers,
          monitor: {
            timers,
            probe: async (t) => {
              const ok = prober.probe(t.target, t.path);
              return { ok, reason: ok ? 'status 200' : 'connection refused', latencyMs: 1 };
            },
          },
        });
        const api = `http://127.0.0.1:${engine.apiAddress().port}`;
        const client = new TmkitClient({ server: api, token: engine.token.token, env: {} });
        const dns = engine.dnsAddresses()[0]!;
        const acknowledged = new Map<string, string>(); // name -> ETag of the last acknowledged write
        try {
          for (const step of plan) {
            steps++;
            const before = (await engine.store.getProfiles()).map((p) => p.profile);
            let revision: number | undefined;
            try {
              const had = overrides.size;
              revision = await runStep(step, client, prober, timers, acknowledged, before, overrides);
              if (step.op === 'override' && overrides.size >= had) ops.overrides++;
              if (revision !== undefined) writes++;
            } catch (err) {
              if (!(err instanceof TmkitApiError) || ![400, 404, 409].includes(err.status)) throw err;
              rejected++; // refused writes change nothing: the invariant below still has to hold
            }
            const stored = await engine.store.getProfiles();
            const profiles = stored.map((p) => p.profile);
            prober.retarget(before, profiles);
            if (step.op === 'probe') {
              prober.round(profiles);
              const t = timers.now();
              ops.expired += [...overrides.values()].filter(
                (o) => Date.parse(o.expiresAt) > t && Date.parse(o.expiresAt) <= t + 61_000,
              ).length;
              await timers.advance(61_000);
            }

            // 3. The store holds exactly what was acknowledged.
            expect(Object.fromEntries(stored.map((p) => [p.profile.name, p.etag]))).toEqual(Object.fromEntries(acknowledged));
            // 1 + 2, within the bound.
            const verdicts = prober.verdicts(profiles);
            const composite = probeTargets(profiles, new Map()).filter((t) => t.checks !== undefined);
            if (composite.length > 0) ops.checked++;
            if (composite.some((t) => verdicts.get(t.key) === 'Degraded')) ops.checkDegraded++;
            const overridden = endpointOverrides(overrides.values(), timers.now());
            const snap = buildSnapshot({
              zone: ZONE,
              profiles,
              geo,
              resources: toResourceCatalog(await engine.store.getResources()),
              health: { verdict: (p, e) => verdicts.get(`${p}/${e}`), override: (p, e) => overridden.get(`${p}/${e}`) },
            });
            const storeRevision = await engine.store.revision();
            const deadline = Date.now() + BOUND_MS;
            let mismatch = '';
            for (;;) {
              mismatch = '';
              const h = await request(`${api}/healthz`, { headers: { authorization: `Bearer ${engine.token.token}` } });
              const health = (await h.body.json()) as { servedRevision: number; lagRevisions: number };
              if (h.statusCode !== 200 || health.servedRevision < storeRevision)
                mismatch = `/healthz ${h.statusCode} ${JSON.stringify(health)} (store revision ${storeRevision})`;
              for (const name of NAMES) {
                if (mismatch) break;
                const fqdn = `${name}.${ZONE}`;
                const expected = resolve(snap, { name: fqdn, type: 'A', clientAddress: '127.0.0.1' });
                const got = await queryUdp(dns, fqdn);
                const allowed = expected.outcomes.map((o) => JSON.stringify(o.records.map((r) => `${r.type} ${r.data} ${r.ttl}`).sort()));
                if (got.rcode !== expected.rcode || !allowed.includes(recordsOf(got))) {
                  mismatch = `${fqdn}: DNS ${got.rcode} ${recordsOf(got)}; the core resolves ${expected.rcode} one of ${allowed.join(' | ')}`;
                }
              }
              if (!mismatch) break;
              if (Date.now() > deadline) break;
              await new Promise((r) => setTimeout(r, 20));
            }
            expect(`after ${JSON.stringify(step)}: ${mismatch || 'DNS agrees with the core'}`).toBe(
              `after ${JSON.stringify(step)}: DNS agrees with the core`,
            );
          }
        } finally {
          await engine.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: RUNS, ...(process.env.TMKIT_MODEL_SEED ? { seed: Number(process.env.TMKIT_MODEL_SEED) } : {}) },
    );
    // The closing note quotes these figures (run with --verbose to see them).
    console.log(
      `model: ${sequences} sequences, ${steps} steps, ${writes} acknowledged writes, ${rejected} refused, ${ops.overrides} overrides acknowledged, ${ops.expired} expired in a probe round, ${ops.checked} steps with composite checks (${ops.checkDegraded} with one Degraded)`,
    );
    expect(writes).toBeGreaterThan(RUNS);
    expect(ops.overrides).toBeGreaterThan(RUNS / 4);
    expect(ops.expired).toBeGreaterThan(0);
    expect(ops.checkDegraded).toBeGreaterThan(0);
  },
  15 * 60_000,
);

/** Runs one step through the API (or the prober model); returns the store revision of an acknowledged write. */
async function runStep(
  step: Step,
  client: TmkitClient,
  prober: ProberModel,
  _timers: FakeTimers,
  acknowledged: Map<string, string>,
  current: Profile[],
  overrides: Map<string, OverrideRecord>,
): Promise<number | undefined> {
  const find = (name: string) => current.find((p) => p.name === name);
  switch (step.op) {
    case 'put': {
      const r = await client.putProfile(leafInput(step));
      acknowledged.set(step.name, r.etag);
      return r.revision;
    }
    case 'parent': {
      const r = await client.putProfile(parentInput(step));
      acknowledged.set(PARENT, r.etag);
      return r.revision;
    }
    case 'monitor': {
      // The issue 11 edit: the same profile again with only the probe settings changed.
      const p = find(step.name);
      if (!p) return undefined;
      const interval = p.monitorConfig.intervalInSeconds === 10 ? 10 : 30;
      const r = await client.putProfile({
        ...p,
        monitorConfig: monitorConfig({ path: step.path, interval, tcp: step.tcp }),
      } as ProfileInput);
      acknowledged.set(step.name, r.etag);
      return r.revision;
    }
    case 'patch': {
      const p = find(step.name);
      const e = p?.endpoints[step.index % Math.max(1, p.endpoints.length)];
      if (!p || !e) return undefined;
      if ('weight' in step.patch && p.trafficRoutingMethod !== 'Weighted') return undefined;
      const r = await client.patchEndpoint(step.name, e.name, step.patch);
      acknowledged.set(step.name, r.etag);
      return r.revision;
    }
    case 'delete': {
      if (!find(step.name)) return undefined;
      const r = await client.deleteProfile(step.name);
      acknowledged.delete(step.name);
      // Overrides go with their profile (issue 40): a new profile of the same name starts without them.
      for (const [id, o] of overrides) if (o.profile === step.name) overrides.delete(id);
      return r.revision;
    }
    case 'health':
      prober.up.set(step.target, step.up);
      return undefined;
    case 'check':
      if (step.up) prober.checkDown.delete(`${step.target} /c${step.check}`);
      else prober.checkDown.add(`${step.target} /c${step.check}`);
      return undefined;
    case 'probe':
      return undefined;
    case 'override': {
      // Refused ones (the safety rule's 409, a weight on another method's 400) change nothing.
      const p = find(step.name);
      const e = p?.endpoints[step.index % Math.max(1, p.endpoints.length)];
      if (!p || !e) return undefined;
      const r = await client.createOverride({
        kind: step.kind,
        profile: p.name,
        endpoint: e.name,
        for: step.seconds,
        force: step.force,
        ...(step.kind === 'weight' ? { weight: step.weight } : {}),
      });
      for (const id of r.replaced) overrides.delete(id);
      overrides.set(r.override.id, r.override);
      return undefined;
    }
    case 'clear': {
      const active = (await client.listOverrides()).overrides;
      const o = active[step.pick % Math.max(1, active.length)];
      if (!o) return undefined;
      await client.clearOverride(o.id);
      overrides.delete(o.id);
      return undefined;
    }
  }
}
