/**
 * The Pulumi provider's `performanceLatency` input of tmkit:index:Profile (the gRPC layer on loopback against a
 * real API over SQLite): check judges it, create stores it normalized, diff sees a change of it, read returns
 * it, and an update without it removes it.
 */
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { TmkitClient } from '../../../src/client';
import { serve, type RunningServer } from '../../../providers/pulumi/src/server';
import { tmkitProvider } from '../../../providers/pulumi/src/tmkit';
import { connect, struct } from './client';
import { startApi, TOKEN, type Harness } from '../../runtime/api/harness';

const PROFILE = 'tmkit:index:Profile';
const urn = (name: string): string => `urn:pulumi:dev::proj::${PROFILE}::${name}`;
type Js = Record<string, unknown>;

let h: Harness;
let running: RunningServer;
let rpc: ReturnType<typeof connect>;
let direct: TmkitClient;

beforeAll(async () => {
  h = await startApi({
    reports: {
      status: (p) => ({
        name: p.profile.name,
        stack: p.stack,
        etag: p.etag,
        revision: 0,
        fqdn: `${p.profile.dnsConfig.relativeName}.tm.test`,
        profileStatus: p.profile.profileStatus,
        profileMonitorStatus: 'Online',
        allDegradedFallback: false,
        endpoints: [],
        transitions: [],
      }),
    },
  });
  direct = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
  running = await serve(tmkitProvider({}), { writePort: () => undefined, log: () => undefined });
  rpc = connect(running.port);
  await rpc.call('configure', new provproto.ConfigureRequest().setArgs(struct({ server: h.base, token: TOKEN })));
});
afterAll(async () => {
  rpc.close();
  await running.stop();
  await direct.close();
  await h.close();
});

const inputs = (performanceLatency?: Js): Js => ({
  profileName: 'pl',
  trafficRoutingMethod: 'Performance',
  dnsConfig: { relativeName: 'pl', ttl: 30 },
  ...(performanceLatency ? { performanceLatency } : {}),
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'westeurope' }],
});

const NORMALIZED = { source: 'Measured', toleranceMs: 20, minSamples: 5 };

test('performanceLatency: checked, created, diffed, read and removed', async () => {
  const bad = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest()
      .setUrn(urn('pl'))
      .setNews(struct(inputs({ source: 'measured', minSamples: 0 })))
      .setOlds(struct({})),
  );
  expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(['performanceLatency.source', 'performanceLatency.minSamples']);

  const created = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn('pl')).setProperties(struct(inputs({ source: 'Measured' }))),
  );
  const outputs = created.getProperties()!.toJavaScript() as Js;
  expect(outputs.performanceLatency).toEqual(NORMALIZED);
  expect((await direct.getProfile('pl')).profile.performanceLatency).toEqual(NORMALIZED);

  const d = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
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

  const read = await rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('pl'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs({ source: 'Measured' }))),
  );
  expect((read.getProperties()!.toJavaScript() as Js).performanceLatency).toEqual(NORMALIZED);

  const updated = await rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('pl'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ source: 'Measured' })))
      .setNews(struct(inputs())),
  );
  expect((updated.getProperties()!.toJavaScript() as Js).performanceLatency).toBeUndefined();
  expect((await direct.getProfile('pl')).profile.performanceLatency).toBeUndefined();
});
