/** The performanceLatency property and ARM (docs/document.md): export omits it; import ignores it. */
import { exportArmProfile } from '../../../src/core/model/arm-export';
import { importArm } from '../../../src/core/model/arm-import';
import { azurermResources } from '../../../src/core/model/azurerm-plan';
import { normalizeProfile } from '../../../src/core/model/normalize';

const web = normalizeProfile({
  name: 'web',
  trafficRoutingMethod: 'Performance',
  dnsConfig: { relativeName: 'web' },
  performanceLatency: { source: 'Measured', toleranceMs: 30 },
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'westeurope' }],
});

test('ARM export and the azurerm resources omit performanceLatency (Azure has no such property)', () => {
  expect(JSON.stringify(exportArmProfile(web, { zone: 'tm.internal' }))).not.toMatch(/performanceLatency|toleranceMs|minSamples/);
  expect(JSON.stringify(azurermResources(web, '00000000-0000-0000-0000-000000000000', 'rg'))).not.toMatch(/latency|tolerance|samples/i);
});

test('ARM import ignores a performanceLatency property (without a warning) and reads the rest', () => {
  const arm = exportArmProfile(web, { zone: 'tm.internal' }) as { properties: Record<string, unknown> };
  arm.properties.performanceLatency = { source: 'Measured' };
  const r = importArm(arm);
  expect(r.document?.profiles[0]).toMatchObject({ name: 'web', trafficRoutingMethod: 'Performance' });
  expect(r.document?.profiles[0]).not.toHaveProperty('performanceLatency');
  expect(r.issues.filter((i) => i.path.includes('performanceLatency'))).toEqual([]);
});
