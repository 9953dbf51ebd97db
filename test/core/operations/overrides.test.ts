/**
 * Overrides in the pure core (docs/operations.md): the request's rules, durations, what routing reads from the
 * overrides in force, and what a `down` or `weight` override does to routing (status, Always Serve, the
 * all-degraded fallback, nesting, weights, explanations).
 */
import type { OverrideRecord } from '../../../src/core/api';
import { endpointMonitorStatus } from '../../../src/core/health/status';
import type { HealthView, ProbeVerdict } from '../../../src/core/health/types';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { EndpointInput, ProfileInput } from '../../../src/core/model/types';
import { checkOverrideRequest, endpointOverrides, formatDuration, nextExpiry, parseDuration } from '../../../src/core/operations';
import { buildSnapshot, resolve, updateSnapshot } from '../../../src/core/routing';
import { dist, geo } from '../routing/fixtures';

const T0 = Date.parse('2026-06-01T10:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const rec = (over: Partial<OverrideRecord> & Pick<OverrideRecord, 'id' | 'kind'>): OverrideRecord => ({
  profile: 'web',
  endpoint: 'a',
  reason: 'test',
  who: 'cli',
  createdAt: iso(T0),
  expiresAt: iso(T0 + 60_000),
  ...over,
});

describe('durations', () => {
  test.each<[string | number, number | undefined]>([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['7d', 604_800_000],
    ['250ms', 250],
    ['45', 45_000],
    [12, 12_000],
    ['1.5h', 5_400_000],
    ['', undefined],
    ['10x', undefined],
    ['m', undefined],
    ['-5s', undefined],
    ['1h 30m', undefined],
  ])('%p → %p ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  test.each<[number, string]>([
    [5_400_000, '1h30m'],
    [45_000, '45s'],
    [250, '250ms'],
    [90_061_000, '1d1h'],
  ])('%i ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('the request', () => {
  test('a valid down and a valid weight override', () => {
    expect(checkOverrideRequest({ kind: 'down', profile: 'web', endpoint: 'a', for: '30m', reason: 'game day', who: 'cli' })).toEqual({
      ok: true,
      value: { kind: 'down', profile: 'web', endpoint: 'a', durationMs: 1_800_000, reason: 'game day', who: 'cli', force: false },
    });
    expect(checkOverrideRequest({ kind: 'weight', profile: 'web', endpoint: 'a', weight: 25, for: 600 })).toMatchObject({
      ok: true,
      value: { weight: 25, durationMs: 600_000, who: 'api' },
    });
  });
  test.each<[string, unknown, string[]]>([
    ['no expiry', { kind: 'down', profile: 'w', endpoint: 'a' }, ['for']],
    ['more than 7 days', { kind: 'down', profile: 'w', endpoint: 'a', for: '8d' }, ['for']],
    ['not a duration', { kind: 'down', profile: 'w', endpoint: 'a', for: 'soon' }, ['for']],
    ['a weight out of range', { kind: 'weight', profile: 'w', endpoint: 'a', for: '1h', weight: 0 }, ['weight']],
    ['a weight on a down override', { kind: 'down', profile: 'w', endpoint: 'a', for: '1h', weight: 5 }, ['weight']],
    ['an unknown kind, no profile, no endpoint', { kind: 'drain', for: '1h' }, ['kind', 'profile', 'endpoint']],
    ['a who with a newline', { kind: 'down', profile: 'w', endpoint: 'a', for: '1h', who: 'a\nb' }, ['who']],
  ])('%s is refused, naming every field', (_n, body, paths) => {
    const r = checkOverrideRequest(body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toEqual(paths);
  });
});

describe('what routing reads', () => {
  test('down and weight of one endpoint combine; expired ones are gone; the newest of one kind wins', () => {
    const all = [
      rec({ id: '1', kind: 'down', reason: 'drill' }),
      rec({ id: '2', kind: 'weight', weight: 10, createdAt: iso(T0) }),
      rec({ id: '3', kind: 'weight', weight: 50, createdAt: iso(T0 + 1) }),
      rec({ id: '4', kind: 'down', endpoint: 'b', expiresAt: iso(T0 + 1000) }),
    ];
    const m = endpointOverrides(all, T0 + 5_000);
    expect([...m.keys()]).toEqual(['web/a']);
    expect(m.get('web/a')).toMatchObject({ down: true, weight: 50 });
    expect(m.get('web/a')!.reason).toContain('override down by cli until 2026-06-01T10:01:00.000Z (drill)');
    expect(nextExpiry(all, T0 + 5_000)).toBe(T0 + 60_000);
    expect(nextExpiry(all, T0 + 60_000)).toBeUndefined();
  });
});

const ep = (name: string, target: string, over: Partial<EndpointInput> = {}): EndpointInput => ({
  name,
  type: 'externalEndpoints',
  target,
  ...over,
});
const prof = (name: string, method: ProfileInput['trafficRoutingMethod'], endpoints: EndpointInput[]) =>
  normalizeProfile({
    name,
    trafficRoutingMethod: method,
    dnsConfig: { relativeName: name, ttl: 30 },
    endpoints,
    monitorConfig: { protocol: 'HTTP', port: 80, path: '/', intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 0 },
  });
const view = (verdicts: Record<string, ProbeVerdict>, overrides: OverrideRecord[] = []): HealthView => {
  const o = endpointOverrides(overrides, T0);
  return { verdict: (p, e) => verdicts[`${p}/${e}`], override: (p, e) => o.get(`${p}/${e}`) };
};
const g = geo();
const answer = (profiles: ReturnType<typeof prof>[], health: HealthView, name = 'web') =>
  resolve(buildSnapshot({ zone: 'tm.internal', profiles, geo: g, health }), {
    name: `${name}.tm.internal`,
    type: 'A',
    clientAddress: '198.51.100.10',
  });

describe('a down override in routing', () => {
  test('status table row: it beats Always Serve and nesting, but not Disabled or Stopped', () => {
    expect(
      endpointMonitorStatus({ profileStatus: 'Enabled', endpointStatus: 'Enabled', alwaysServe: 'Enabled', overriddenDown: true }),
    ).toBe('Degraded');
    expect(endpointMonitorStatus({ profileStatus: 'Enabled', endpointStatus: 'Enabled', nested: 'Online', overriddenDown: true })).toBe(
      'Degraded',
    );
    expect(endpointMonitorStatus({ profileStatus: 'Enabled', endpointStatus: 'Disabled', overriddenDown: true })).toBe('Disabled');
    expect(endpointMonitorStatus({ profileStatus: 'Enabled', endpointStatus: 'Enabled', resource: 'stopped', overriddenDown: true })).toBe(
      'Stopped',
    );
  });

  test('Priority fails over at once, and the explanation names the override', () => {
    const p = prof('web', 'Priority', [ep('a', '192.0.2.1'), ep('b', '192.0.2.2')]);
    const h = view({ 'web/a': 'Online', 'web/b': 'Online' }, [rec({ id: '1', kind: 'down', reason: 'game day' })]);
    const r = answer([p], h);
    expect(dist(r)).toEqual({ 'web/b': 1 });
    expect(r.explanation.find((s) => s.endpoint === 'a')!.detail).toMatch(
      /Degraded \(override down by cli until .*\(game day\): taken out of DNS\): not available/,
    );
  });

  test('Always Serve does not bypass it', () => {
    const p = prof('web', 'Priority', [ep('a', '192.0.2.1', { alwaysServe: 'Enabled' }), ep('b', '192.0.2.2')]);
    expect(dist(answer([p], view({ 'web/b': 'Online' }, [rec({ id: '1', kind: 'down' })])))).toEqual({ 'web/b': 1 });
  });

  test('the all-degraded fallback never brings an overridden endpoint back (forced): the others are answered as if Online', () => {
    const p = prof('web', 'Priority', [ep('a', '192.0.2.1'), ep('b', '192.0.2.2')]);
    expect(dist(answer([p], view({ 'web/a': 'Online', 'web/b': 'Degraded' }, [rec({ id: '1', kind: 'down' })])))).toEqual({ 'web/b': 1 });
    // Every endpoint taken down: the name exists, nothing is answered (NODATA).
    const both = answer([p], view({}, [rec({ id: '1', kind: 'down' }), rec({ id: '2', kind: 'down', endpoint: 'b' })]));
    expect(both.rcode).toBe('NOERROR');
    expect(dist(both)).toEqual({ '(nodata)': 1 });
  });

  test('a down override of a nested endpoint takes the whole child out of the parent', () => {
    const child = prof('eu', 'Priority', [ep('x', '192.0.2.7')]);
    const parent = normalizeProfile({
      ...prof('web', 'Priority', []),
      endpoints: [{ name: 'to-eu', type: 'nestedEndpoints', targetResourceId: 'eu' }, ep('b', '192.0.2.2')],
    });
    expect(
      dist(answer([child, parent], view({ 'eu/x': 'Online', 'web/b': 'Online' }, [rec({ id: '1', kind: 'down', endpoint: 'to-eu' })]))),
    ).toEqual({ 'web/b': 1 });
  });
});

describe('a weight override in routing', () => {
  test("Weighted uses the override's weight, and says so", () => {
    const p = prof('web', 'Weighted', [ep('a', '192.0.2.1', { weight: 1 }), ep('b', '192.0.2.2', { weight: 1 })]);
    const r = answer([p], view({ 'web/a': 'Online', 'web/b': 'Online' }, [rec({ id: '1', kind: 'weight', weight: 3 })]));
    expect(dist(r)).toEqual({ 'web/a': 0.75, 'web/b': 0.25 });
    expect(r.outcomes[0]!.explanation!.map((s) => s.detail).join(' ')).toContain('weight 3 (override; configured 1) of 4');
  });

  test('the incremental update sees an override change like a verdict change', () => {
    const p = prof('web', 'Weighted', [ep('a', '192.0.2.1'), ep('b', '192.0.2.2')]);
    let overrides: OverrideRecord[] = [];
    const health: HealthView = { verdict: () => 'Online', override: (pn, e) => endpointOverrides(overrides, T0).get(`${pn}/${e}`) };
    const before = buildSnapshot({ zone: 'tm.internal', profiles: [p], geo: g, health });
    overrides = [rec({ id: '1', kind: 'down', endpoint: 'b' })];
    const after = updateSnapshot(before, { verdicts: ['web'], health });
    expect(dist(resolve(after, { name: 'web.tm.internal', type: 'A', clientAddress: '198.51.100.10' }))).toEqual({ 'web/a': 1 });
    const full = buildSnapshot({ zone: 'tm.internal', profiles: [p], geo: g, health });
    expect(dist(resolve(full, { name: 'web.tm.internal', type: 'A', clientAddress: '198.51.100.10' }))).toEqual({ 'web/a': 1 });
  });
});
