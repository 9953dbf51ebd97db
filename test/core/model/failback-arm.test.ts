/** The failback property and ARM (docs/document.md): export omits it and shows AwaitingFailback as Degraded; import ignores it. */
import { exportArmProfile } from '../../../src/core/model/arm-export';
import { importArm } from '../../../src/core/model/arm-import';
import { normalizeProfile } from '../../../src/core/model/normalize';

const web = normalizeProfile({
  name: 'web',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'web' },
  failback: { mode: 'Manual', successesToRecover: 3 },
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
});

test("ARM export omits failback and shows AwaitingFailback as Degraded (Azure's enum)", () => {
  const arm = exportArmProfile(web, {
    zone: 'tm.internal',
    profileMonitorStatus: 'Degraded',
    endpointMonitorStatus: () => 'AwaitingFailback',
  });
  expect(JSON.stringify(arm)).not.toContain('failback');
  expect(
    (arm.properties as { endpoints: Array<{ properties: { endpointMonitorStatus: string } }> }).endpoints[0]!.properties
      .endpointMonitorStatus,
  ).toBe('Degraded');
});

test('ARM import ignores a failback property (without a warning) and reads the rest', () => {
  const arm = exportArmProfile(web, { zone: 'tm.internal' }) as { properties: Record<string, unknown> };
  arm.properties.failback = { mode: 'Manual' };
  const r = importArm(arm);
  expect(r.document?.profiles[0]).toMatchObject({ name: 'web', trafficRoutingMethod: 'Priority' });
  expect(r.document?.profiles[0]).not.toHaveProperty('failback');
  expect(r.issues.filter((i) => i.path.includes('failback'))).toEqual([]);
});
