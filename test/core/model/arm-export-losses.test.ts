/** What ARM export cannot hold: tmkit's extensions, composite checks first (one monitor per profile in Azure). */
import { armExportLosses, exportArmProfile } from '../../../src/core/model/arm-export';
import { normalizeProfile } from '../../../src/core/model/normalize';

const base = {
  name: 'web',
  trafficRoutingMethod: 'Priority' as const,
  dnsConfig: { relativeName: 'web' },
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
};

test('composite checks and quorum are named, with the single monitor Azure would probe instead', () => {
  const p = normalizeProfile({
    ...base,
    monitorConfig: { port: 8080, path: '/healthz', checks: [{ name: 'api', path: '/api' }, { name: 'login' }], quorum: 1 },
  });
  expect(armExportLosses(p)).toEqual([
    "monitorConfig.checks (api, login) and quorum 1: Azure has one monitor per profile; the export keeps monitorConfig's own HTTP:8080/healthz, which Azure would probe instead",
  ]);
  const arm = exportArmProfile(p, { zone: 'tm.internal' }) as { properties: { monitorConfig: Record<string, unknown> } };
  expect(Object.keys(arm.properties.monitorConfig)).not.toContain('checks');
  expect(Object.keys(arm.properties.monitorConfig)).not.toContain('quorum');
});

test('the other extensions are named; a plain profile loses nothing', () => {
  const p = normalizeProfile({ ...base, monitorConfig: { degradedLatencyMs: 500 }, failback: { mode: 'Manual' } });
  expect(armExportLosses(p)).toEqual([
    'monitorConfig.degradedLatencyMs: a tmkit extension Azure has no property for',
    'failback: a tmkit extension Azure has no property for (Azure fails back after one good probe)',
  ]);
  expect(armExportLosses(normalizeProfile(base))).toEqual([]);
});
