/**
 * The Pulumi provider's `failback` input of tmkit:index:Profile (the gRPC layer on loopback against a real API
 * over SQLite): check judges it, create stores it normalized, diff sees a change of it, read returns it, and
 * an update without it removes it.
 */
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { struct } from './client';
import { providerOnApi } from './provider-on-api';

const PROFILE = 'tmkit:index:Profile';
const urn = (name: string): string => `urn:pulumi:dev::proj::${PROFILE}::${name}`;
type Js = Record<string, unknown>;

const api = providerOnApi();

const inputs = (failback?: Js): Js => ({
  profileName: 'fb',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'fb', ttl: 30 },
  ...(failback ? { failback } : {}),
  endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1' }],
});

test('failback: checked, created, diffed, read and removed', async () => {
  const bad = await api.rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest()
      .setUrn(urn('fb'))
      .setNews(struct(inputs({ mode: 'manual', successesToRecover: 11 })))
      .setOlds(struct({})),
  );
  expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(['failback.mode', 'failback.successesToRecover']);

  const created = await api.rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(urn('fb')).setProperties(struct(inputs({ mode: 'Manual' }))),
  );
  const outputs = created.getProperties()!.toJavaScript() as Js;
  expect(outputs.failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });
  expect((await api.direct.getProfile('fb')).profile.failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });

  const d = await api.rpc.call<provproto.DiffRequest, provproto.DiffResponse>(
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

  const read = await api.rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(urn('fb'))
      .setId(created.getId())
      .setProperties(struct(outputs))
      .setInputs(struct(inputs({ mode: 'Manual' }))),
  );
  expect((read.getProperties()!.toJavaScript() as Js).failback).toEqual({ mode: 'Manual', successesToRecover: 1, holdDownSeconds: 0 });

  const updated = await api.rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>(
    'update',
    new provproto.UpdateRequest()
      .setUrn(urn('fb'))
      .setId(created.getId())
      .setOlds(struct(outputs))
      .setOldInputs(struct(inputs({ mode: 'Manual' })))
      .setNews(struct(inputs())),
  );
  expect((updated.getProperties()!.toJavaScript() as Js).failback).toBeUndefined();
  expect((await api.direct.getProfile('fb')).profile.failback).toBeUndefined();
});
