/** Composite checks in plans: attribute diffs by check name, the worst-case failover and the one-line summary. */
import { describeChecks } from '../../../src/core/health/checks';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { MonitorConfigInput, Profile } from '../../../src/core/model/types';
import { applyAttributeChanges, diffAttributes } from '../../../src/core/plan/attributes';
import { failoverTimes } from '../../../src/core/plan/failover';

const prof = (monitorConfig: MonitorConfigInput): Profile =>
  normalizeProfile({
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 30 },
    monitorConfig: { intervalInSeconds: 10, timeoutInSeconds: 5, toleratedNumberOfFailures: 2, ...monitorConfig },
    endpoints: [
      { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
      { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
    ],
  });

const before = prof({
  checks: [
    { name: 'api', path: '/api' },
    { name: 'login', path: '/login' },
  ],
});
const after = prof({
  checks: [
    { name: 'api', path: '/api/v2' },
    { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
  ],
  quorum: 1,
});

test('a change of checks is shown per check, by name, and applying it gives the new profile', () => {
  const changes = diffAttributes(before, after);
  expect(changes.map((c) => [c.kind, c.path])).toEqual([
    ['remove', 'monitorConfig.checks[login]'],
    ['change', 'monitorConfig.checks[api].path'],
    ['add', 'monitorConfig.checks[db]'],
    ['add', 'monitorConfig.quorum'],
  ]);
  expect(applyAttributeChanges(before, changes)).toEqual(after);
});

test("the worst-case failover is the single probe's formula, with a note naming the checks", () => {
  const f = failoverTimes(new Map([['web', after]])).get('web')!;
  expect(f.seconds).toBe(10 * (2 + 1) + 5 + 30);
  expect(f.formula).toBe('10 × (2 + 1) + 5 + TTL 30 = 65 s');
  expect(f.notes).toContain(
    'web probes 2 composite checks per endpoint, all in every round: the bound holds for the check whose failures decide',
  );
  expect(failoverTimes(new Map([['web', prof({})]])).get('web')!.notes).toEqual([]);
});

test('describeChecks: one line for plans', () => {
  expect(describeChecks(after.monitorConfig)).toBe('checks api HTTP:80/api/v2, db TCP:5432 (must be healthy); quorum 1 of 1');
  expect(describeChecks(prof({}).monitorConfig)).toBeUndefined();
  expect(
    describeChecks(
      prof({
        checks: [
          { name: 'db', mustBeHealthy: true },
          { name: 'm', monitoringOnly: true },
        ],
      }).monitorConfig,
    ),
  ).toBe('checks db HTTP:80/ (must be healthy), m HTTP:80/ (monitoring only)');
});
