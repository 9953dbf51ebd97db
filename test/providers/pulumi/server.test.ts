/**
 * The gRPC layer (providers/pulumi/src/server.ts) over a recording ProviderImpl, served on a loopback port
 * and called through the real generated client: what the layer guarantees whatever the implementation does.
 */
import * as grpc from '@grpc/grpc-js';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { connect, failure, struct } from './client';
import { ResourceProviderService } from '@pulumi/pulumi/proto/provider_grpc_pb';
import { providerService, ResourceProviderServer, serve, type RunningServer } from '../../../providers/pulumi/src/server';
import { parsePluginArgs } from '../../../providers/pulumi/src/engine';
import { parseUrn } from '../../../providers/pulumi/src/messages';
import { ProviderError, type ProviderImpl, type ResourceImpl } from '../../../providers/pulumi/src/provider';
import { SECRET_SIG, SIG_KEY, UNKNOWN_STRING } from '../../../providers/pulumi/src/wire';
import { reveal, type PropertyMap } from '../../../providers/pulumi/src/values';

const TYPE = 'test:index:Widget';
const URN = `urn:pulumi:dev::proj::${TYPE}::w1`;
const secretWire = (value: unknown): Record<string, unknown> => ({ [SIG_KEY]: SECRET_SIG, value });

interface Recorder {
  calls: string[];
  configured: PropertyMap[];
  behaviour: Partial<Record<'create' | 'read' | 'update' | 'check', (req: never) => unknown>>;
}

function widget(rec: Recorder): ResourceImpl {
  return {
    computed: ['serial'],
    secretOutputs: ['password'],
    replaceOnChanges: ['region'],
    check: (req) => {
      rec.calls.push('check');
      // Returns everything revealed: the layer must put the secrets back.
      return (
        (rec.behaviour.check as ((r: typeof req) => never) | undefined)?.(req) ?? { inputs: reveal(req.news) as PropertyMap, failures: [] }
      );
    },
    create: (req) => {
      rec.calls.push('create');
      return (
        (rec.behaviour.create as ((r: typeof req) => never) | undefined)?.(req) ?? {
          id: 'w-1',
          outputs: { ...(reveal(req.inputs) as PropertyMap), serial: 7 },
        }
      );
    },
    read: (req) => {
      rec.calls.push('read');
      return (rec.behaviour.read as ((r: typeof req) => never) | undefined)?.(req) ?? undefined;
    },
    update: (req) => {
      rec.calls.push('update');
      return (
        (rec.behaviour.update as ((r: typeof req) => never) | undefined)?.(req) ?? {
          outputs: { ...(reveal(req.news) as PropertyMap), serial: 8 },
        }
      );
    },
    delete: () => {
      rec.calls.push('delete');
    },
  };
}

let rec: Recorder;
let running: RunningServer;
let rpc: ReturnType<typeof connect>;
let portLine = '';
const logged: string[] = [];

beforeAll(async () => {
  rec = { calls: [], configured: [], behaviour: {} };
  const impl: ProviderImpl = {
    name: 'test',
    version: '1.2.3',
    schema: () => '{"name":"test"}',
    configure: (c) => {
      rec.configured.push(c);
    },
    resources: { [TYPE]: widget(rec) },
  };
  running = await serve(impl, {
    writePort: (l) => {
      portLine += l;
    },
    log: (l) => {
      logged.push(l);
    },
  });
  rpc = connect(running.port);
});

afterAll(async () => {
  rpc.close();
  await running.stop();
});

beforeEach(() => {
  rec.calls.length = 0;
  rec.behaviour = {};
  logged.length = 0;
});

test('the port line is the port, newline-terminated', () => {
  expect(portLine).toBe(`${running.port}\n`);
});

test('Configure hands the config to the implementation, secrets still wrapped (the stock SDK server drops it)', async () => {
  await rpc.call('configure', new provproto.ConfigureRequest().setArgs(struct({ endpoint: 'http://x', key: secretWire('k3y'), n: 3 })));
  const got = rec.configured.pop()!;
  expect(got.endpoint).toBe('http://x');
  expect(got.n).toBe(3);
  expect(reveal(got.key!)).toBe('k3y');
  expect(got.key!.constructor.name).toBe('Secret');
});

test('Configure from an engine that sends only `variables` (<pkg>:config:<key>)', async () => {
  const req = new provproto.ConfigureRequest();
  req.getVariablesMap().set('test:config:endpoint', 'http://y').set('other:config:x', 'ignored');
  await rpc.call('configure', req);
  expect(rec.configured.pop()).toEqual({ endpoint: 'http://y' });
});

test('Check: secrets come back wrapped even when the implementation revealed them (declared and carried from inputs)', async () => {
  const news = struct({ password: 'p', nested: { apiKey: secretWire('a'), plain: 1 }, region: 'eu' });
  const resp = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest().setUrn(URN).setNews(news).setOlds(struct({})),
  );
  expect(resp.getInputs()!.toJavaScript()).toEqual({
    password: secretWire('p'), // secretOutputs
    nested: { apiKey: secretWire('a'), plain: 1 }, // carried by key, recursing into the object
    region: 'eu',
  });
});

test('Check failures are returned as data with their property paths', async () => {
  rec.behaviour.check = (() => ({
    inputs: {},
    failures: [
      { property: 'nested.port', reason: 'must be a port' },
      { property: '', reason: 'whole object' },
    ],
  })) as never;
  const resp = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>(
    'check',
    new provproto.CheckRequest().setUrn(URN).setNews(struct({})),
  );
  expect(resp.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
    ['nested.port', 'must be a port'],
    ['', 'whole object'],
  ]);
});

test('Diff returns a detailed diff with nested paths and replaces (the stock SDK server drops detailedDiff)', async () => {
  const req = new provproto.DiffRequest()
    .setUrn(URN)
    .setId('w-1')
    .setOldInputs(struct({ region: 'eu', nested: { port: 1, host: 'h' }, password: secretWire('p') }))
    .setOlds(struct({ region: 'eu', serial: 7 }))
    .setNews(struct({ region: 'us', nested: { port: 2, host: 'h' }, password: secretWire('p') }));
  const resp = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>('diff', req);
  expect(resp.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_SOME);
  expect(resp.getHasdetaileddiff()).toBe(true);
  const detailed = Object.fromEntries(
    resp
      .getDetaileddiffMap()
      .getEntryList()
      .map(([k, v]) => [k, (v as unknown as [number, boolean])[0]]),
  );
  expect(detailed).toEqual({ region: provproto.PropertyDiff.Kind.UPDATE_REPLACE, 'nested.port': provproto.PropertyDiff.Kind.UPDATE });
  expect(resp.getReplacesList()).toEqual(['region']);
  expect(resp.getDiffsList()).toEqual(['nested', 'region']);
  expect(resp.getStablesList()).toEqual(['password']);
});

test('Diff with nothing changed but secretness says no changes', async () => {
  const req = new provproto.DiffRequest()
    .setUrn(URN)
    .setId('w-1')
    .setOldInputs(struct({ password: 'p' }))
    .setOlds(struct({}))
    .setNews(struct({ password: secretWire('p') }));
  const resp = await rpc.call<provproto.DiffRequest, provproto.DiffResponse>('diff', req);
  expect(resp.getChanges()).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
  expect(resp.getDetaileddiffMap().getLength()).toBe(0);
});

test('Create in preview never calls create: inputs with the computed outputs unknown', async () => {
  const req = new provproto.CreateRequest()
    .setUrn(URN)
    .setPreview(true)
    .setProperties(struct({ region: UNKNOWN_STRING, password: secretWire('p') }));
  const resp = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>('create', req);
  expect(rec.calls).toEqual([]);
  expect(resp.getId()).toBe('');
  expect(resp.getProperties()!.toJavaScript()).toEqual({ region: UNKNOWN_STRING, password: secretWire('p'), serial: UNKNOWN_STRING });
});

test('Create returns the id and outputs, secrets wrapped', async () => {
  const req = new provproto.CreateRequest().setUrn(URN).setProperties(struct({ region: 'eu', password: secretWire('p') }));
  const resp = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>('create', req);
  expect(rec.calls).toEqual(['create']);
  expect(resp.getId()).toBe('w-1');
  expect(resp.getProperties()!.toJavaScript()).toEqual({ region: 'eu', password: secretWire('p'), serial: 7 });
});

test('Update in preview never calls update; a real update returns outputs with secrets wrapped', async () => {
  const mk = (preview: boolean) =>
    new provproto.UpdateRequest()
      .setUrn(URN)
      .setId('w-1')
      .setPreview(preview)
      .setOlds(struct({ region: 'eu', serial: 7, password: secretWire('p') }))
      .setOldInputs(struct({ region: 'eu', password: secretWire('p') }))
      .setNews(struct({ region: 'eu', password: secretWire('q') }));
  const pv = await rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>('update', mk(true));
  expect(rec.calls).toEqual([]);
  expect(pv.getProperties()!.toJavaScript()).toEqual({ region: 'eu', password: secretWire('q'), serial: UNKNOWN_STRING });
  const up = await rpc.call<provproto.UpdateRequest, provproto.UpdateResponse>('update', mk(false));
  expect(rec.calls).toEqual(['update']);
  expect(up.getProperties()!.toJavaScript()).toEqual({ region: 'eu', password: secretWire('q'), serial: 8 });
});

test('Read of an object that is gone answers id "" (refresh drops it)', async () => {
  const resp = await rpc.call<provproto.ReadRequest, provproto.ReadResponse>(
    'read',
    new provproto.ReadRequest()
      .setUrn(URN)
      .setId('w-1')
      .setProperties(struct({ region: 'eu' })),
  );
  expect(rec.calls).toEqual(['read']);
  expect(resp.getId()).toBe('');
  expect(resp.getProperties()!.toJavaScript()).toEqual({});
});

test('Read for an import (no inputs, empty state) returns outputs and inputs, secrets wrapped', async () => {
  rec.behaviour.read = ((req: { id: string; inputs: unknown; state: PropertyMap }) => {
    expect(req.inputs).toBeUndefined();
    expect(req.state).toEqual({});
    return { outputs: { region: 'eu', password: 'p', serial: 3 }, inputs: { region: 'eu', password: 'p' } };
  }) as never;
  const resp = await rpc.call<provproto.ReadRequest, provproto.ReadResponse>('read', new provproto.ReadRequest().setUrn(URN).setId('w-9'));
  expect(resp.getId()).toBe('w-9');
  expect(resp.getProperties()!.toJavaScript()).toEqual({ region: 'eu', password: secretWire('p'), serial: 3 });
  expect(resp.getInputs()!.toJavaScript()).toEqual({ region: 'eu', password: secretWire('p') });
});

test('a thrown error becomes a gRPC error naming the operation, type and resource; the stack goes to the log only', async () => {
  rec.behaviour.create = (() => {
    throw new Error('disk full');
  }) as never;
  const f = await failure(rpc.call('create', new provproto.CreateRequest().setUrn(URN).setProperties(struct({}))));
  expect(f.code).toBe(grpc.status.UNKNOWN);
  expect(f.details).toBe(`create ${TYPE} "w1" failed: disk full`);
  expect(logged.join('\n')).toMatch(/create test:index:Widget "w1" failed: Error: disk full\n\s+at /);
});

test('a ProviderError keeps its message as is and chooses the status code', async () => {
  rec.behaviour.update = (() => {
    throw new ProviderError('the object changed since it was read: refresh, then retry', 'FAILED_PRECONDITION');
  }) as never;
  const f = await failure(rpc.call('update', new provproto.UpdateRequest().setUrn(URN).setId('w-1').setNews(struct({}))));
  expect(f).toEqual({ code: grpc.status.FAILED_PRECONDITION, details: 'the object changed since it was read: refresh, then retry' });
  expect(logged).toEqual([]);
});

test('create without an id is an error (the engine would reject it later, less clearly)', async () => {
  rec.behaviour.create = (() => ({ id: '', outputs: {} })) as never;
  const f = await failure(rpc.call('create', new provproto.CreateRequest().setUrn(URN).setProperties(struct({}))));
  expect(f.details).toMatch(/returned no id from create/);
});

test('undefined in returned outputs is dropped; a value that cannot go on the wire fails naming its path', async () => {
  rec.behaviour.create = (() => ({ id: 'w-2', outputs: { a: undefined, b: [1, undefined], c: { d: undefined, e: 'x' } } })) as never;
  const ok = await rpc.call<provproto.CreateRequest, provproto.CreateResponse>(
    'create',
    new provproto.CreateRequest().setUrn(URN).setProperties(struct({})),
  );
  expect(ok.getProperties()!.toJavaScript()).toEqual({ b: [1, null], c: { e: 'x' } });

  rec.behaviour.create = (() => ({ id: 'w-3', outputs: { c: { when: new Date(0) }, n: NaN } })) as never;
  const f = await failure(rpc.call('create', new provproto.CreateRequest().setUrn(URN).setProperties(struct({}))));
  expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
  expect(f.details).toMatch(/^test:index:Widget "w1": property c\.when: a Date is not a property value/);
});

test('an asset in the inputs is rejected with its path', async () => {
  const f = await failure(
    rpc.call(
      'check',
      new provproto.CheckRequest().setUrn(URN).setNews(struct({ files: [{ [SIG_KEY]: 'c44067f5952c0a294b673a41bacd8c17', text: 'x' }] })),
    ),
  );
  expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
  expect(f.details).toMatch(/property files\[0\]: assets and archives are not supported/);
});

test('unknown type, Invoke and Construct fail with messages that say what exists', async () => {
  const t = await failure(
    rpc.call('create', new provproto.CreateRequest().setUrn('urn:pulumi:dev::proj::test:index:Gadget::g').setProperties(struct({}))),
  );
  expect(t.details).toMatch(/has no resource type "test:index:Gadget"; it has: test:index:Widget/);
  const c = await failure(rpc.call('construct', new provproto.ConstructRequest().setType('test:index:Comp')));
  expect(c.code).toBe(grpc.status.UNIMPLEMENTED);
  expect(c.details).toMatch(/no component resources/);
});

test('plugin arguments: flags the engine passes are skipped; the engine address is the last positional', () => {
  expect(parsePluginArgs(['--logtostderr', '-v=9', '--tracing', 'http://t', '127.0.0.1:4567'])).toEqual({
    engineAddress: '127.0.0.1:4567',
    verbose: 9,
  });
  expect(parsePluginArgs([])).toEqual({ engineAddress: undefined, verbose: 0 });
});

test('URNs: type (without parent types) and name (which may contain ::)', () => {
  expect(parseUrn('urn:pulumi:dev::proj::my:mod:Parent$test:index:Widget::a::b')).toEqual({ type: 'test:index:Widget', name: 'a::b' });
  expect(parseUrn('garbage')).toEqual({ type: '', name: '' });
});

test("the gRPC table is ResourceProviderServer's methods, one per RPC: every ResourceProvider RPC but List (unimplemented)", () => {
  const impl: ProviderImpl = { name: 'test', version: '0', schema: () => '{}', configure: () => undefined, resources: {} };
  const table = Object.keys(providerService(impl, { log: () => undefined })).sort();
  expect(table).toEqual(
    Object.getOwnPropertyNames(ResourceProviderServer.prototype)
      .filter((m) => m !== 'constructor')
      .sort(),
  );
  expect(table).toEqual(
    Object.keys(ResourceProviderService)
      .filter((m) => m !== 'list')
      .sort(),
  );
});
