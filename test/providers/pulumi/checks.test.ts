/**
 * Composite checks (`monitorConfig.checks`, `quorum`) in the Pulumi provider's tmkit:index:Profile (the gRPC
 * layer on loopback against a real API over SQLite): check judges them, create stores them normalized, diff
 * sees a change of one check, read returns them, and an update without them goes back to the single probe.
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

const inputs = (monitor?: Js): Js => ({
  profileName: 'ck',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'ck', ttl: 30 },
  ...(monitor ? { monitorConfig: { port: 8080, ...monitor } } : {}),
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
});
const CHECKS = (loginPath: string): Js => ({
  checks: [
    { name: 'api', path: '/api' },
    { name: 'login', path: loginPath },
    { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
  ],
  quorum: 1,
});

test('composite checks: checked, created, diffed, read and removed', async () => {
  const bad = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest()
      .setUrn(urn('ck'))
      .setNews(struct(inputs({ checks: [{ name: 'api' }, { name: 'api' }], quorum: 3 })))
      .setOlds(struct({})),
  );
  expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
    ['monitorConfig.checks[1].name', expect.stringContaining('check name "api" is used twice')],
    ['monitorConfig.quorum', expect.stringContaining('quorum 3 is out of range: an integer 1–2')],
  ]);

  const created = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn('ck')).setProperties(struct(inputs(CHECKS('/login')))),
  );
  const outputs = created.getProperties()!.toJavaScript() as Js;
  const m = outputs.monitorConfig as Js;
  expect(m.quorum).toBe(1);
  expect(m.checks).toEqual([
    { name: 'api', protocol: 'HTTP', port: 8080, path: '/api', expectedStatusCodeRanges: [], mustBeHealthy: false, monitoringOnly: false },
    {
      name: 'login',
      protocol: 'HTTP',
      port: 8080,
      path: '/login',
      expectedStatusCodeRanges: [],
      mustBeHealthy: false,
      monitoringOnly: false,
    },
    { name: 'db', protocol: 'TCP', port: 5432, expectedStatusCodeRanges: [], mustBeHealthy: true, monitoringOnly: false },
  ]);
  expect((await direct.getProfile('ck')).profile.monitorConfig.checks).toEqual(m.checks);

  const same = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs(CHECKS('/login'))))
      .setNews(struct(inputs(CHECKS('/login')))),
  );
  expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
  const d = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs(CHECKS('/login'))))
      .setNews(struct(inputs(CHECKS('/signin')))),
  );
  expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(
    d
      .getDetaileddiffMap()
      .getEntryList()
      .map(([k]) => k),
  ).toEqual([expect.stringMatching(/^monitorConfig\.checks/)]);

  const read = await rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs(CHECKS('/login')))),
  );
  expect(((read.getProperties()!.toJavaScript() as Js).monitorConfig as Js).checks).toEqual(m.checks);

  const updated = await rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs(CHECKS('/login'))))
      .setNews(struct(inputs({}))),
  );
  expect(((updated.getProperties()!.toJavaScript() as Js).monitorConfig as Js).checks).toBeUndefined();
  expect((await direct.getProfile('ck')).profile.monitorConfig.checks).toBeUndefined();
});
