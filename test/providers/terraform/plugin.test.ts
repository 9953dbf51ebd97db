/**
 * The plugin process as Terraform sees it, checked with a gRPC client of our own: handshake line,
 * cookie and protocol negotiation, port range, AutoMTLS (the right client certificate works, another or
 * none is refused), go-plugin's side services, and tfplugin6 RPCs whose failures come back as diagnostics.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { encode } from '@msgpack/msgpack';
import { decodeMsgpack, encodeMsgpack } from '../../../providers/terraform/src/codec';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../../providers/terraform/src/plugin';
import { shapeOfBlock } from '../../../providers/terraform/src/schema';
import { externalEndpointSchema, profileSchema } from '../../../providers/terraform/src/tmkit/schemas';
import { thingSchema } from '../../../providers/terraform/src/testing/tmkittest';
import { UNKNOWN } from '../../../providers/terraform/src/cty';
import { generateCert, mtls, PluginClient, runPluginToExit, startPlugin, type PluginProcess } from './helpers';
import { freePort } from '../../support/ports';

const COOKIE = { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE };
const thingShape = shapeOfBlock(thingSchema.block);

describe('start-up checks (before any handshake)', () => {
  test('without the magic cookie: a human message on stderr, exit 1, nothing on stdout', async () => {
    const r = await runPluginToExit({});
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/is a Terraform provider plugin: Terraform starts it, it is not meant to be run by hand/);
  });

  test('a wrong cookie is refused the same way', async () => {
    const r = await runPluginToExit({ [MAGIC_COOKIE_KEY]: 'nope' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Terraform provider plugin/);
  });

  test('no protocol overlap: a clear error naming what was offered', async () => {
    const r = await runPluginToExit({ ...COOKIE, PLUGIN_PROTOCOL_VERSIONS: '4,5' });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/speaks Terraform plugin protocol 6 only, and this Terraform offers 4,5/);
  });

  test('PLUGIN_MIN_PORT > PLUGIN_MAX_PORT is an error that says what to set', async () => {
    const r = await runPluginToExit({ ...COOKIE, PLUGIN_MIN_PORT: '20000', PLUGIN_MAX_PORT: '10000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PLUGIN_MIN_PORT \(20000\) is greater than PLUGIN_MAX_PORT \(10000\)/);
  });
});

describe('handshake', () => {
  const started: PluginProcess[] = [];
  afterEach(() => {
    for (const p of started.splice(0)) p.kill();
  });

  test('AutoMTLS: the first stdout bytes are 1|6|tcp|127.0.0.1:PORT|grpc|<base64 DER, no padding>, nothing after', async () => {
    const client = generateCert();
    const p = await startPlugin({ clientCert: client });
    started.push(p);
    expect(p.stdout().startsWith(p.handshake)).toBe(true);
    expect(p.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+$/);
    const b64 = p.fields[5]!;
    expect(Buffer.from(b64, 'base64').toString('base64').replace(/=+$/, '')).toBe(b64); // standard alphabet, unpadded
    const cert = new X509Certificate(Buffer.from(p.fields[5]!, 'base64'));
    expect(cert.subjectAltName).toBe('DNS:localhost');
    expect(cert.ca).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    // a call, then still only the handshake on stdout
    const c = new PluginClient('grpc.health.v1.Health', p.port, mtls(p.serverCertPem, client));
    expect(await c.call('Check', { service: 'plugin' })).toEqual({ status: 'SERVING' });
    c.close();
    expect(p.stdout()).toBe(`${p.handshake}\n`);
  });

  test('without PLUGIN_CLIENT_CERT: plaintext gRPC and an empty certificate field', async () => {
    const p = await startPlugin({ clientCert: null });
    started.push(p);
    expect(p.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|$/);
    const c = new PluginClient('grpc.health.v1.Health', p.port, credentials.createInsecure());
    expect(await c.call('Check', { service: 'plugin' })).toEqual({ status: 'SERVING' });
    await expect(c.call('Check', { service: 'other' })).rejects.toMatchObject({ code: 5 });
    c.close();
  });

  test('binds inside PLUGIN_MIN_PORT..PLUGIN_MAX_PORT', async () => {
    const port = await freePort();
    const p = await startPlugin({ clientCert: null, env: { PLUGIN_MIN_PORT: String(port), PLUGIN_MAX_PORT: String(port) } });
    started.push(p);
    expect(p.port).toBe(port);
  });

  test('tries the next port of the range when one is taken', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)));
    try {
      const p = await startPlugin({ clientCert: null, env: { PLUGIN_MIN_PORT: String(port), PLUGIN_MAX_PORT: String(port + 20) } });
      started.push(p);
      expect(p.port).toBeGreaterThan(port);
      expect(p.port).toBeLessThanOrEqual(port + 20);
    } finally {
      blocker.close();
    }
  });
});

describe('shutdown while a call is in flight', () => {
  test('GRPCController/Shutdown ends the process within seconds even though an apply is still running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmkit-tfproto-'));
    const client = generateCert();
    const p = await startPlugin({
      clientCert: client,
      env: { TMKITTEST_STATE_FILE: join(dir, 'things.json'), TMKITTEST_CREATE_DELAY_MS: '30000' },
    });
    const provider = new PluginClient('tfplugin6.Provider', p.port, mtls(p.serverCertPem, client));
    try {
      await provider.call('ConfigureProvider', { config: { msgpack: Buffer.from(encode({ state_file: null })) } });
      const planned = { name: 'slow', id: 'x', revision: 1 };
      const apply = provider
        .call(
          'ApplyResourceChange',
          {
            type_name: 'tmkittest_thing',
            prior_state: { msgpack: Buffer.from([0xc0]) },
            planned_state: { msgpack: Buffer.from(encodeMsgpack(planned, thingShape)) },
            config: { msgpack: Buffer.from(encodeMsgpack(planned, thingShape)) },
          },
          60_000,
        )
        .catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 300)); // the apply is now waiting inside the handler
      const ctl = new PluginClient('plugin.GRPCController', p.port, mtls(p.serverCertPem, client));
      const t0 = Date.now();
      expect(await ctl.call('Shutdown')).toEqual({});
      const exit = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('still running after 10 s'), 10_000))]);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await apply).toBeInstanceOf(Error); // the in-flight call was cut, not answered
      ctl.close();
    } finally {
      provider.close();
      p.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('AutoMTLS and the services', () => {
  let p: PluginProcess;
  let client: ReturnType<typeof generateCert>;
  let dir: string;
  let provider: PluginClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-tfproto-'));
    client = generateCert();
    p = await startPlugin({ clientCert: client, env: { TMKITTEST_STATE_FILE: join(dir, 'things.json') } });
    provider = new PluginClient('tfplugin6.Provider', p.port, mtls(p.serverCertPem, client));
  });
  afterAll(() => {
    provider?.close();
    p?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a client certificate other than PLUGIN_CLIENT_CERT is refused', async () => {
    const c = new PluginClient('grpc.health.v1.Health', p.port, mtls(p.serverCertPem, generateCert()));
    await expect(c.call('Check', { service: 'plugin' }, 5000)).rejects.toMatchObject({ code: 14 }); // UNAVAILABLE: handshake failed
    c.close();
  });

  test('a client without a certificate is refused', async () => {
    const c = new PluginClient('grpc.health.v1.Health', p.port, mtls(p.serverCertPem, null));
    await expect(c.call('Check', { service: 'plugin' }, 5000)).rejects.toMatchObject({ code: 14 });
    c.close();
  });

  test('a plaintext client is refused', async () => {
    const c = new PluginClient('grpc.health.v1.Health', p.port, credentials.createInsecure());
    await expect(c.call('Check', { service: 'plugin' }, 5000)).rejects.toMatchObject({ code: 14 });
    c.close();
  });

  test('GetMetadata and GetProviderSchema: types, capabilities and the schema on the wire', async () => {
    const md = await provider.call('GetMetadata');
    expect(md.resources).toEqual([
      { type_name: 'tmkittest_external_endpoint_shape' },
      { type_name: 'tmkittest_profile_shape' },
      { type_name: 'tmkittest_thing' },
    ]);
    expect(md.data_sources).toEqual([{ type_name: 'tmkittest_lookup' }]);
    expect(md.server_capabilities).toEqual({ plan_destroy: true, get_provider_schema_optional: true, move_resource_state: false });
    const s = await provider.call('GetProviderSchema');
    const thing = s.resource_schemas.tmkittest_thing;
    expect(thing.version).toBe(1);
    const attrs = Object.fromEntries(thing.block.attributes.map((a: { name: string }) => [a.name, a]));
    expect(JSON.parse(attrs.tags.type.toString())).toEqual(['map', 'string']);
    expect(attrs.name).toMatchObject({ required: true, optional: false, computed: false });
    expect(attrs.id).toMatchObject({ computed: true });
    const blocks = Object.fromEntries(thing.block.block_types.map((b: { type_name: string }) => [b.type_name, b]));
    expect(blocks.settings.nesting).toBe('SINGLE');
    expect(blocks.member.nesting).toBe('SET');
    expect(blocks.settings.block.block_types[0]).toMatchObject({ type_name: 'rule', nesting: 'LIST' });
    expect(s.provider.block.attributes.map((a: { name: string }) => a.name)).toEqual(['state_file', 'stateless']);
    // The benchmark's same-schema floor carries tmkit's schemas exactly (bench/terraform.ts).
    for (const [type, schema] of [
      ['tmkittest_external_endpoint_shape', externalEndpointSchema],
      ['tmkittest_profile_shape', profileSchema],
    ] as const) {
      const wire = s.resource_schemas[type].block;
      expect(wire.attributes.map((a: { name: string }) => a.name).sort()).toEqual(Object.keys(schema.block.attributes ?? {}).sort());
      expect(wire.block_types.map((b: { type_name: string }) => b.type_name).sort()).toEqual(Object.keys(schema.block.blocks ?? {}).sort());
    }
  });

  test('ValidateResourceConfig: an error on a nested attribute carries its attribute path', async () => {
    const config = {
      name: 'n',
      size: 1,
      settings: {
        port: 1,
        labels: null,
        rule: [
          { name: 'a', weight: 1 },
          { name: 'b', weight: -4 },
        ],
      },
      member: [],
    };
    const r = await provider.call('ValidateResourceConfig', {
      type_name: 'tmkittest_thing',
      config: { msgpack: Buffer.from(encodeMsgpack(config, thingShape)) },
    });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'ERROR',
      summary: 'weight must be between 0 and 1000',
      detail: 'Rule 1 has weight -4.',
    });
    expect(r.diagnostics[0].attribute.steps).toEqual([
      { attribute_name: 'settings', selector: 'attribute_name' },
      { attribute_name: 'rule', selector: 'attribute_name' },
      { element_key_int: 1, selector: 'element_key_int' },
      { attribute_name: 'weight', selector: 'attribute_name' },
    ]);
  });

  test('unknown values in config are accepted by validation (values from other resources)', async () => {
    const config = { name: UNKNOWN, size: UNKNOWN, settings: UNKNOWN };
    const r = await provider.call('ValidateResourceConfig', {
      type_name: 'tmkittest_thing',
      config: { msgpack: Buffer.from(encodeMsgpack(config, thingShape)) },
    });
    expect(r.diagnostics).toEqual([]);
  });

  test('an unknown type name, or bytes that are not the schema, come back as diagnostics (not gRPC errors)', async () => {
    const r = await provider.call('ValidateResourceConfig', { type_name: 'tmkittest_nope', config: { msgpack: Buffer.from([0x80]) } });
    expect(r.diagnostics[0]).toMatchObject({ severity: 'ERROR', summary: 'Unknown resource type "tmkittest_nope"' });
    expect(r.diagnostics[0].detail).toMatch(
      /This provider has "tmkittest_external_endpoint_shape", "tmkittest_profile_shape", "tmkittest_thing"\./,
    );
    const bad = await provider.call('ValidateResourceConfig', {
      type_name: 'tmkittest_thing',
      config: { msgpack: Buffer.from(encode({ name: 5 })) },
    });
    expect(bad.diagnostics[0].summary).toMatch(/does not match its schema/);
    expect(bad.diagnostics[0].detail).toMatch(/^name: a string is required, got number 5/);
  });

  test('ConfigureProvider: console.log in a handler goes to stderr, stdout keeps only the handshake', async () => {
    const r = await provider.call('ConfigureProvider', {
      terraform_version: '1.11.4',
      config: { msgpack: Buffer.from(encode({ state_file: null })) },
    });
    expect(r.diagnostics).toEqual([]);
    // stderr is its own pipe: the line may arrive a moment after the RPC's reply (seen under load).
    const line = `tmkittest: configured with ${join(dir, 'things.json')}`;
    for (let i = 0; i < 100 && !p.stderr().includes(line); i++) await new Promise((r) => setTimeout(r, 20));
    expect(p.stderr()).toContain(line);
    expect(p.stdout()).toBe(`${p.handshake}\n`);
  });

  test('PlanResourceChange on create: computed attributes planned unknown (msgpack ext 0 on the wire)', async () => {
    const proposed = { name: 'n', size: 2, id: null, revision: null, settings: null, member: [], tags: null, aliases: null };
    const r = await provider.call('PlanResourceChange', {
      type_name: 'tmkittest_thing',
      prior_state: { msgpack: Buffer.from([0xc0]) },
      proposed_new_state: { msgpack: Buffer.from(encodeMsgpack(proposed, thingShape)) },
      config: { msgpack: Buffer.from(encodeMsgpack({ ...proposed }, thingShape)) },
    });
    expect(r.diagnostics).toEqual([]);
    const planned = decodeMsgpack(r.planned_state.msgpack, thingShape) as Record<string, unknown>;
    expect(planned.id).toBe(UNKNOWN);
    expect(planned.revision).toBe(UNKNOWN);
    expect(planned.name).toBe('n');
    expect(Buffer.from(r.planned_state.msgpack).includes(Buffer.from([0xd4, 0x00, 0x00]))).toBe(true);
  });

  test('UpgradeResourceState: current version re-encoded, older version upgraded by the handler, newer refused', async () => {
    const json = (o: unknown) => ({ json: Buffer.from(JSON.stringify(o)) });
    const cur = await provider.call('UpgradeResourceState', {
      type_name: 'tmkittest_thing',
      version: 1,
      raw_state: json({ id: 'thing-a', name: 'a', size: 3, revision: 1 }),
    });
    expect(cur.diagnostics).toEqual([]);
    expect(decodeMsgpack(cur.upgraded_state.msgpack, thingShape)).toMatchObject({
      id: 'thing-a',
      size: 3,
      member: [],
      settings: null,
      tags: null,
    });
    const old = await provider.call('UpgradeResourceState', {
      type_name: 'tmkittest_thing',
      version: 0,
      raw_state: json({ id: 'thing-a', name: 'a', size: '7', revision: 1 }),
    });
    expect(old.diagnostics).toEqual([]);
    expect(decodeMsgpack(old.upgraded_state.msgpack, thingShape)).toMatchObject({ size: 7 });
    const newer = await provider.call('UpgradeResourceState', {
      type_name: 'tmkittest_thing',
      version: 2,
      raw_state: json({ id: 'thing-a' }),
    });
    expect(newer.diagnostics[0].summary).toMatch(/written by a newer provider \(schema version 2; this provider has 1\)/);
    expect(newer.diagnostics[0].detail).toMatch(/Upgrade the provider/);
  });

  test('a handler that throws: ReadResource returns an error diagnostic with the message', async () => {
    writeFileSync(join(dir, 'things.json'), '{ broken');
    const r = await provider.call('ReadResource', {
      type_name: 'tmkittest_thing',
      current_state: { msgpack: Buffer.from(encodeMsgpack({ id: 'thing-a', name: 'a' }, thingShape)) },
    });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0].severity).toBe('ERROR');
    expect(r.diagnostics[0].summary).toMatch(/^tmkittest_thing: .*JSON/);
    rmSync(join(dir, 'things.json'));
  });

  test('functions and ephemeral resources: empty, and calls answered with clear errors', async () => {
    expect(await provider.call('GetFunctions')).toEqual({ functions: {}, diagnostics: [] });
    const call = await provider.call('CallFunction', { name: 'f' });
    expect(call.error.text).toMatch(/no functions/);
    const eph = await provider.call('OpenEphemeralResource', { type_name: 'x' });
    expect(eph.diagnostics[0].summary).toBe('Unknown ephemeral resource type "x"');
    expect(await provider.call('StopProvider')).toEqual({ Error: '' });
  });

  test('StreamStdio stays open; GRPCController/Shutdown stops serving and the process exits 0', async () => {
    const stdio = new PluginClient('plugin.GRPCStdio', p.port, mtls(p.serverCertPem, client));
    const stream = (stdio.raw as unknown as { StreamStdio(req: object): NodeJS.ReadableStream }).StreamStdio({});
    const data: unknown[] = [];
    stream.on('data', (d: unknown) => data.push(d)); // flowing, so 'end' can arrive
    const ended = new Promise<string>((r) => {
      stream.on('end', () => r('end'));
      stream.on('error', (e: Error) => r(`error ${e.message}`));
    });
    const early = await Promise.race([ended, new Promise((r) => setTimeout(() => r('open'), 300))]);
    expect(early).toBe('open');
    const ctl = new PluginClient('plugin.GRPCController', p.port, mtls(p.serverCertPem, client));
    expect(await ctl.call('Shutdown')).toEqual({});
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(await ended).toBe('end');
    expect(data).toEqual([]); // the stdio stream carries nothing: provider output goes to stderr
    ctl.close();
    stdio.close();
  });
});
