/** Composite checks in the model: what normalize() fills in and what validation says (docs/health.md "Composite checks"). */
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { ProfileInput } from '../../../src/core/model/types';
import { validate } from '../../../src/core/validate';

const prof = (monitorConfig: Record<string, unknown>): ProfileInput =>
  ({
    name: 'p',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'p' },
    monitorConfig,
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: 'a.example.com' }],
  }) as ProfileInput;
const diags = (m: Record<string, unknown>) =>
  validate({ apiVersion: 'tmkit/v1', profiles: [prof(m)] }).map((d) => [d.code, d.path, d.message, d.hint]);

describe('normalize', () => {
  test('omitted check values come from the profile; quorum stays absent; no checks stays absent', () => {
    const m = normalizeProfile(
      prof({
        protocol: 'HTTPS',
        port: 8443,
        path: '/health',
        expectedStatusCodeRanges: [{ min: 200, max: 299 }],
        checks: [{ name: 'api' }, { name: 'plain', protocol: 'HTTP' }, { name: 'port', protocol: 'TCP', port: 5432, mustBeHealthy: true }],
      }),
    ).monitorConfig;
    expect(m.checks).toEqual([
      {
        name: 'api',
        protocol: 'HTTPS',
        port: 8443,
        path: '/health',
        expectedStatusCodeRanges: [{ min: 200, max: 299 }],
        mustBeHealthy: false,
        monitoringOnly: false,
      },
      {
        name: 'plain',
        protocol: 'HTTP',
        port: 80,
        path: '/health',
        expectedStatusCodeRanges: [{ min: 200, max: 299 }],
        mustBeHealthy: false,
        monitoringOnly: false,
      },
      {
        name: 'port',
        protocol: 'TCP',
        port: 5432,
        expectedStatusCodeRanges: [{ min: 200, max: 299 }],
        mustBeHealthy: true,
        monitoringOnly: false,
      },
    ]);
    expect('quorum' in m).toBe(false);
    expect('checks' in normalizeProfile(prof({})).monitorConfig).toBe(false);
  });

  test('normalizing a normalized profile changes nothing', () => {
    const once = normalizeProfile(
      prof({
        checks: [
          { name: 'a', path: '/a' },
          { name: 'b', monitoringOnly: true },
        ],
        quorum: 1,
      }),
    );
    expect(normalizeProfile(once as unknown as ProfileInput)).toEqual(once);
  });
});

describe('validate', () => {
  test('quorum without checks, and no checks at all', () => {
    expect(diags({ quorum: 1 })).toEqual([
      [
        'MONITOR_QUORUM_RANGE',
        'profiles[p].monitorConfig.quorum',
        'quorum has no effect without monitorConfig.checks (the single probe decides alone)',
        'add checks, or remove quorum',
      ],
    ]);
    expect(diags({ checks: [] }).map((d) => d[0])).toEqual(['MONITOR_CHECKS_COUNT']);
  });

  test("a check's port, path and ranges are judged at the check's path", () => {
    expect(
      diags({
        checks: [
          { name: 'api', port: 70000, path: 'health', expectedStatusCodeRanges: [{ min: 300, max: 200 }] },
          { name: 'tcp', protocol: 'TCP', path: '/x' },
        ],
      }).map((d) => [d[0], d[1]]),
    ).toEqual([
      ['MONITOR_PORT_RANGE', 'profiles[p].monitorConfig.checks[api].port'],
      ['MONITOR_PATH_INVALID', 'profiles[p].monitorConfig.checks[api].path'],
      ['STATUS_CODE_RANGE', 'profiles[p].monitorConfig.checks[api].expectedStatusCodeRanges[0]'],
      ['MONITOR_PATH_TCP', 'profiles[p].monitorConfig.checks[tcp].path'],
    ]);
  });

  test('types: a boolean role written as a string, an unknown property, a missing name', () => {
    expect(diags({ checks: [{ name: 'api', mustBeHealthy: 'true', timeout: 3 }, { path: '/x' }] }).map((d) => [d[0], d[1], d[3]])).toEqual([
      ['INVALID_TYPE', 'profiles[p].monitorConfig.checks[api].mustBeHealthy', 'write a boolean: true or false, no quotes'],
      ['UNKNOWN_PROPERTY', 'profiles[p].monitorConfig.checks[api].timeout', 'remove it'],
      ['REQUIRED_PROPERTY', 'profiles[p].monitorConfig.checks[1].name', 'add name (a string)'],
    ]);
  });

  test('quorum when only mustBeHealthy and monitoringOnly checks exist', () => {
    expect(
      diags({
        checks: [
          { name: 'db', mustBeHealthy: true },
          { name: 'm', monitoringOnly: true },
        ],
        quorum: 1,
      }).map((d) => [d[0], d[2], d[3]]),
    ).toEqual([['MONITOR_QUORUM_RANGE', 'quorum 1 has nothing to count: every check is mustBeHealthy or monitoringOnly', 'remove quorum']]);
  });
});
