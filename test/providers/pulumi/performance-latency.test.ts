/**
 * The Pulumi provider's `performanceLatency` input of tmkit:index:Profile (the gRPC layer on loopback against a
 * real API over SQLite): check judges it, create stores it normalized, diff sees a change of it, read returns
 * it, and an update without it removes it.
 */
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { struct } from './client';
import { providerOnApi } from './provider-on-api';

const PROFILE = 'tmkit:index:Profile';
const urn = (name: string): string => `urn:pulumi:dev::proj::${PROFILE}::${name}`;
type Js = Record<string, unknown>;

const api = providerOnApi();

const inputs = (performanceLatency?: Js): Js => ({
  profileName: 'pl',
  trafficRoutingMethod: 'Performance',
  dnsConfig: { relativeName: 'pl', ttl: 30 },
  ...(performanceLatency ? { performanceLatency } : {}),
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'westeurope' }],
});

const NORMALIZED = { source: 'Measured', toleranceMs: 20, minSamples: 5 };

test('performanceLatency: checked, created, diffed, read and removed', async () => {
  const bad = await api.rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest()
      .setUrn(urn('pl'))
      .setNews(struct(inputs({ source: 'measured', minSamples: 0 })))
      .setOlds(struct({})),
  );
  expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(['performanceLatency.source', 'performanceLatency.minSamples']);

  const created = await api.rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn('pl')).setProperties(struct(inputs({ source: 'Measured' }))),
  );
  const outputs = created.getProperties()!.toJavaScript() as Js;
  expect(outputs.performanceLatency).toEqual(NORMALIZED);
  expect((await api.direct.getProfile('pl')).profile.performanceLatency).toEqual(NORMALIZED);

  const d = await api.rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn('pl'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ source: 'Measured' })))
      .setNews(struct(inputs({ source: 'Measured', toleranceMs: 40 }))),
  );
  expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(
    d
      .getDetaileddiffMap()
      .getEntryList()
      .map(([k]) => k),
  ).toContain('performanceLatency.toleranceMs');

  const read = await api.rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('pl'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs({ source: 'Measured' }))),
  );
  expect((read.getProperties()!.toJavaScript() as Js).performanceLatency).toEqual(NORMALIZED);

  const updated = await api.rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('pl'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ source: 'Measured' })))
      .setNews(struct(inputs())),
  );
  expect((updated.getProperties()!.toJavaScript() as Js).performanceLatency).toBeUndefined();
  expect((await api.direct.getProfile('pl')).profile.performanceLatency).toBeUndefined();
});
