/**
 * The shipped plugin `providers/pulumi/bin/pulumi-resource-tmkit` as the engine runs it: a process that prints
 * its port as the only stdout line and then answers pulumirpc.ResourceProvider on loopback. Needs the build
 * (`npm test` runs it first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import * as plugproto from '@pulumi/pulumi/proto/plugin_pb';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { connect, failure, struct } from './client';
import { spawnToPort } from './spawn';
import { SECRET_SIG, SIG_KEY } from '../../../providers/pulumi/src/wire';

const REPO = join(__dirname, '../../..');
const LAUNCHER = join(REPO, 'providers/pulumi/bin/pulumi-resource-tmkit');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const URN = 'urn:pulumi:dev::proj::pulumi:providers:tmkit::default';

test('start-up: the plugin loads only the gRPC layer, never the SDK runtime (what made the stock path slow)', async () => {
  // Timings live in bench/ (npm run bench:pulumi-startup); this pins down why the plugin starts fast.
  const probe = `require(${JSON.stringify(join(REPO, 'dist/providers/pulumi/src/main.js'))});
    setTimeout(() => { console.error(JSON.stringify(Object.keys(require.cache))); process.exit(0); }, 300);`;
  const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', probe, '127.0.0.1:1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    c.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    c.on('error', reject);
    c.on('close', () => resolve({ stdout, stderr }));
  });
  expect(r.stdout).toMatch(/^\d+\n$/);
  const loaded = JSON.parse(r.stderr) as string[];
  const sdk = loaded.filter((f) => f.includes('/node_modules/@pulumi/pulumi/')).map((f) => f.slice(f.indexOf('@pulumi/pulumi/')));
  expect(sdk.length).toBeGreaterThan(0);
  expect(sdk.filter((f) => !f.startsWith('@pulumi/pulumi/proto/'))).toEqual([]);
  expect(loaded.some((f) => f.includes('/node_modules/@opentelemetry/'))).toBe(false);
  expect(loaded.some((f) => f.includes('/node_modules/undici/'))).toBe(false);
});

test('the launcher prints its port as the first and only stdout line, repeatably', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await spawnToPort(LAUNCHER, ['127.0.0.1:1']);
    expect(r.port).toBeGreaterThan(0);
    expect(r.stdout).toBe(`${r.port}\n`);
    expect(r.stderr).toBe('');
  }
});

describe('the running plugin', () => {
  let child: ChildProcess;
  let stdout = '';
  let stderr = '';
  let rpc: ReturnType<typeof connect>;

  beforeAll(async () => {
    child = spawn(LAUNCHER, ['--logtostderr', '-v=3', '127.0.0.1:1'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, TMKIT_SERVER: 'http://127.0.0.1:1', TMKIT_TOKEN: 'from-env' },
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('\n')) resolve(Number(stdout.split('\n')[0]));
      });
      child.on('exit', (code) => reject(new Error(`plugin exited (${code}): ${stderr}`)));
    });
    rpc = connect(port);
  });

  afterAll(() => {
    rpc?.close();
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  });

  test('GetPluginInfo answers the package version', async () => {
    const info = await rpc.call<Empty, plugproto.PluginInfo>('getPluginInfo', new Empty());
    expect(info.getVersion()).toBe(VERSION);
  });

  test('GetSchema answers a tmkit package schema with the secret token config', async () => {
    const resp = await rpc.call<provproto.GetSchemaRequest, provproto.GetSchemaResponse>('getSchema', new provproto.GetSchemaRequest());
    const schema = JSON.parse(resp.getSchema()) as {
      name: string;
      version: string;
      config: { variables: Record<string, { secret?: boolean; default?: string }> };
    };
    expect(schema.name).toBe('tmkit');
    expect(schema.version).toBe(VERSION);
    expect(Object.keys(schema.config.variables).sort()).toEqual(['server', 'stack', 'token']);
    expect(schema.config.variables.token!.secret).toBe(true);
    expect(schema.config.variables.stack!.default).toBe('pulumi');
    const bad = await failure(rpc.call('getSchema', new provproto.GetSchemaRequest().setVersion(1)));
    expect(bad.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.details).toMatch(/schema version 1 is not supported/);
  });

  test('Handshake: secrets accepted; resource references and output values not', async () => {
    const resp = await rpc.call<provproto.ProviderHandshakeRequest, provproto.ProviderHandshakeResponse>(
      'handshake',
      new provproto.ProviderHandshakeRequest().setEngineAddress('127.0.0.1:1'),
    );
    expect([resp.getAcceptSecrets(), resp.getAcceptResources(), resp.getAcceptOutputs()]).toEqual([true, false, false]);
  });

  test('CheckConfig reports every problem by key and returns the token as a secret', async () => {
    const req = new provproto.CheckRequest()
      .setUrn(URN)
      .setNews(struct({ server: 'ftp://x', token: 'plain-token', stack: 'bad_stack!', sever: 'typo' }))
      .setOlds(struct({}));
    const resp = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>('checkConfig', req);
    const failures = resp.getFailuresList().map((f) => [f.getProperty(), f.getReason()]);
    expect(failures.map((f) => f[0]).sort()).toEqual(['server', 'sever', 'stack']);
    expect(failures.find((f) => f[0] === 'sever')![1]).toMatch(
      /unknown configuration key "tmkit:sever".*tmkit:server, tmkit:token, tmkit:stack/,
    );
    expect(failures.find((f) => f[0] === 'server')![1]).toMatch(/http:\/\/ or https:\/\//);
    expect(failures.find((f) => f[0] === 'stack')![1]).toMatch(/DNS label/);
    expect(resp.getInputs()!.toJavaScript().token).toEqual({ [SIG_KEY]: SECRET_SIG, value: 'plain-token' });
  });

  test('Configure takes the config (secret token wrapped) and answers the protocol flags', async () => {
    const req = new provproto.ConfigureRequest()
      .setArgs(struct({ server: 'http://127.0.0.1:5380', token: { [SIG_KEY]: SECRET_SIG, value: 't' }, stack: 'team-a' }))
      .setAcceptsecrets(true)
      .setAcceptresources(true);
    const resp = await rpc.call<provproto.ConfigureRequest, provproto.ConfigureResponse>('configure', req);
    expect([resp.getAcceptsecrets(), resp.getSupportspreview(), resp.getAcceptresources(), resp.getAcceptoutputs()]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  test('resource calls for a type the provider does not have fail with a clear message naming the ones it has', async () => {
    const req = new provproto.CheckRequest()
      .setUrn('urn:pulumi:dev::proj::tmkit:index:Widget::web')
      .setType('tmkit:index:Widget')
      .setName('web')
      .setNews(struct({}))
      .setOlds(struct({}));
    const f = await failure(rpc.call('check', req));
    expect(f.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(f.details).toMatch(
      /the tmkit provider \(version .*\) has no resource type "tmkit:index:Widget"; it has: tmkit:index:Profile, tmkit:index:Endpoint/,
    );
  });

  test('Check of a tmkit:index:Profile runs the validator in the plugin process (loaded on first use)', async () => {
    const req = new provproto.CheckRequest()
      .setUrn('urn:pulumi:dev::proj::tmkit:index:Profile::web')
      .setType('tmkit:index:Profile')
      .setName('web')
      .setNews(struct({ trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'web', ttl: -5 } }))
      .setOlds(struct({}));
    const resp = await rpc.call<provproto.CheckRequest, provproto.CheckResponse>('check', req);
    expect(resp.getFailuresList().map((x) => x.getProperty())).toEqual(['dnsConfig.ttl']);
    expect(resp.getInputs()!.toJavaScript()).toMatchObject({ profileName: 'web' });
  });

  test('Invoke and Call are unsupported, with a message naming the token', async () => {
    const inv = await failure(rpc.call('invoke', new provproto.InvokeRequest().setTok('tmkit:index:getProfile')));
    expect(inv.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(inv.details).toMatch(/has no function "tmkit:index:getProfile"/);
    const call = await failure(rpc.call('call', new provproto.CallRequest().setTok('tmkit:index:Profile/refresh')));
    expect(call.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(call.details).toMatch(/has no method "tmkit:index:Profile\/refresh"/);
  });

  test('GetMapping(s) answer empty; Cancel and Attach succeed', async () => {
    const m = await rpc.call<provproto.GetMappingRequest, provproto.GetMappingResponse>(
      'getMapping',
      new provproto.GetMappingRequest().setKey('terraform'),
    );
    expect(m.getProvider()).toBe('');
    expect(m.getData_asU8().length).toBe(0);
    const ms = await rpc.call<provproto.GetMappingsRequest, provproto.GetMappingsResponse>(
      'getMappings',
      new provproto.GetMappingsRequest().setKey('terraform'),
    );
    expect(ms.getProvidersList()).toEqual([]);
    await rpc.call('cancel', new Empty());
    await rpc.call('attach', new plugproto.PluginAttach().setAddress('127.0.0.1:1'));
  });

  test('stdout holds only the port line; nothing was logged on stderr', () => {
    expect(stdout).toMatch(/^\d+\n$/);
    expect(stderr).toBe('');
  });
});
