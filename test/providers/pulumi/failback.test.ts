/**
 * The Pulumi provider's `failback` input of tmkit:index:Profile (the gRPC layer on loopback against a real API
 * over SQLite): check judges it, create stores it normalized, diff sees a change of it, read returns it, and
 * an update without it removes it.
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

const inputs = (failback?: Js): Js => ({
  profileName: 'fb',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'fb', ttl: 30 },
  ...(failback ? { failback } : {}),
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
});

test('failback: checked, created, diffed, read and removed', async () => {
  const bad = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest()
      .setUrn(urn('fb'))
      .setNews(struct(inputs({ mode: 'manual', successesToRecover: 11 })))
      .setOlds(struct({})),
  );
  expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(['failback.mode', 'failback.successesToRecover']);

  const created = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn('fb')).setProperties(struct(inputs({ mode: 'Manual' }))),
  );
  const outputs = created.getProperties()!.toJavaScript() as Js;
  expect(outputs.failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });
  expect((await direct.getProfile('fb')).profile.failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });

  const d = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
    'diff',
    new provproto.DiffRequest()
      .setUrn(urn('fb'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ mode: 'Manual' })))
      .setNews(struct(inputs({ mode: 'Manual', holdDownSeconds: 60 }))),
  );
  expect(d.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(
    d
      .getDetaileddiffMap()
      .getEntryList()
      .map(([k]) => k),
  ).toContain('failback.holdDownSeconds');

  const read = await rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('fb'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs({ mode: 'Manual' }))),
  );
  expect((read.getProperties()!.toJavaScript() as Js).failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });

  const updated = await rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('fb'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ mode: 'Manual' })))
      .setNews(struct(inputs())),
  );
  expect((updated.getProperties()!.toJavaScript() as Js).failback).toBeUndefined();
  expect((await direct.getProfile('fb')).profile.failback).toBeUndefined();
});
