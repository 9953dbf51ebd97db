/**
 * Composite checks (`monitorConfig.checks`, `quorum`) in the Pulumi provider's tmkit:index:Profile (the gRPC
 * layer on loopback against a real API over SQLite): check judges them, create stores them normalized, diff
 * sees a change of one check, read returns them, and an update without them goes back to the single probe.
 */
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { struct } from './client';
import { providerOnApi } from './provider-on-api';

const PROFILE = 'tmkit:index:Profile';
const urn = (name: string): string => `urn:pulumi:dev::proj::${PROFILE}::${name}`;
type Js = Record<string, unknown>;

const api = providerOnApi();

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
  const bad = await api.rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
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

  const created = await api.rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
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
  expect((await api.direct.getProfile('ck')).profile.monitorConfig.checks).toEqual(m.checks);

  const same = await api.rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs(CHECKS('/login'))))
      .setNews(struct(inputs(CHECKS('/login')))),
  );
  expect(same.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
  const d = await api.rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
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

  const read = await api.rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs(CHECKS('/login')))),
  );
  expect(((read.getProperties()!.toJavaScript() as Js).monitorConfig as Js).checks).toEqual(m.checks);

  const updated = await api.rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('ck'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs(CHECKS('/login'))))
      .setNews(struct(inputs({}))),
  );
  expect(((updated.getProperties()!.toJavaScript() as Js).monitorConfig as Js).checks).toBeUndefined();
  expect((await api.direct.getProfile('ck')).profile.monitorConfig.checks).toBeUndefined();
});
