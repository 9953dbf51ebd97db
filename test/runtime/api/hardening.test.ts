/**
 * The management API under hostile or unlucky input (issue 11 §2.5–§2.7, §2.9): deep JSON, bodies that are
 * not UTF-8, names in another case, huge bodies, and a store that cannot be written.
 */
import { openDb } from '../../support/sqlite';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import { request } from 'undici';
import { TmkitClient, type ProfileStatusReport, type ResolveResult } from '../../../src/client';
import { MAX_JSON_DEPTH, jsonDeeperThan } from '../../../src/runtime/api/server';
import { Engine } from '../../../src/runtime/engine';
import { SqliteStore } from '../../../src/runtime/store';
import { aRecords, queryUdp } from '../../support/loopback';
import { profileInput } from './fixtures';
import { call, startApi, TOKEN, type Harness } from './harness';
import { tempDirs } from '../../support/tmp';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const unprobed = { endpoints: [{ name: 'a', type: 'externalEndpoints' as const, target: '192.0.2.10', alwaysServe: 'Enabled' as const }] };

/** `{"x":{"x":…1…}}` nested `depth` levels deep, as raw JSON text. */
const nested = (depth: number): string => `${'{"x":'.repeat(depth - 1)}{"x":1}${'}'.repeat(depth - 1)}`;

describe('JSON nesting depth is bounded at parse (§2.5)', () => {
  /** Every route that reads a JSON body, with a body that carries `deep` somewhere inside. */
  const routes: Array<[string, string, (deep: string) => string]> = [
    ['PUT', '/v1/profiles/web', (deep) => JSON.stringify(profileInput('web', unprobed)).replace(/}$/, `,"tags":${deep}}`)],
    ['PATCH', '/v1/profiles/web/endpoints/a', (deep) => `{"endpointStatus":"Disabled","x":${deep}}`],
    ['POST', '/v1/resolve', (deep) => `{"name":"web.tm.internal","x":${deep}}`],
    ['PUT', '/v1/resources', (deep) => `{"/r/1":${deep}}`],
  ];

  test.each(routes)('%s %s: tags nested 5,000 levels → 400 JSON_TOO_DEEP naming the limit, nothing stored', async (method, path, body) => {
    h = await startApi({ reports: { resolve: () => ({ ok: true }) as unknown as ResolveResult } });
    await call(h.base, 'PUT', '/v1/profiles/web', { body: profileInput('web', unprobed) });
    const before = await h.store.revision();
    const r = await call(h.base, method, path, { raw: body(nested(5000)), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { severity: 'error', code: 'JSON_TOO_DEEP', message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) },
    ]);
    expect(await h.store.revision()).toBe(before);
    expect(h.logs.join('')).not.toContain('RangeError');
  });

  test('the limit is the depth of the whole body: 64 levels parse, 65 do not', async () => {
    h = await startApi({ reports: { resolve: () => ({ ok: true }) as unknown as ResolveResult } });
    // {"name":…, "x": <62 levels>} is 63 deep; the outer object makes 64.
    const at = await call(h.base, 'POST', '/v1/resolve', { raw: `{"name":"web.tm.internal","x":${nested(MAX_JSON_DEPTH - 1)}}` });
    expect(at.status).toBe(200);
    const over = await call(h.base, 'POST', '/v1/resolve', { raw: `{"name":"web.tm.internal","x":${nested(MAX_JSON_DEPTH)}}` });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].code).toBe('JSON_TOO_DEEP');
  });

  test('property: jsonDeeperThan(JSON.stringify(v), d) is exactly "v nests deeper than d" (brackets in strings do not count)', () => {
    const depth = (v: unknown): number =>
      typeof v === 'object' && v !== null ? 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depth)) : 0;
    const withBrackets = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ' ') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'large', withCrossShrink: true },
        fc.oneof(withBrackets, fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(withBrackets, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 12 }), (v, d) => jsonDeeperThan(JSON.stringify(v), d) === depth(v) > d),
      { numRuns: 2000 },
    );
  });
});

describe('bodies must be valid UTF-8 (§2.7)', () => {
  const withRawTag = (bytes: Buffer): Buffer => {
    const [head, tail] = JSON.stringify(profileInput('web', { ...unprobed, tags: { env: 'MARK' } })).split('MARK') as [string, string];
    return Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail)]);
  };

  test.each([
    ['a lone continuation byte', Buffer.from([0x80])],
    ['a truncated 2-byte sequence', Buffer.from([0xc3])],
    ['an overlong encoding of "/"', Buffer.from([0xc0, 0xaf])],
    ['a UTF-16 surrogate encoded in UTF-8', Buffer.from([0xed, 0xa0, 0x80])],
    ['Latin-1 "é"', Buffer.from([0xe9])],
  ])('%s in a tag → 400 MALFORMED_JSON "not valid UTF-8", nothing stored (never U+FFFD)', async (_what, bytes) => {
    h = await startApi();
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw: withRawTag(bytes), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ severity: 'error', code: 'MALFORMED_JSON', message: expect.stringContaining('not valid UTF-8') }]);
    expect(await h.store.getProfile('web')).toBeUndefined();
  });

  test('invalid UTF-8 in the profile name is refused the same way', async () => {
    h = await startApi();
    const body = Buffer.concat([Buffer.from('{"name":"w'), Buffer.from([0xff]), Buffer.from('b","trafficRoutingMethod":"Priority"}')]);
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw: body });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].message).toContain('not valid UTF-8');
  });

  test('valid multi-byte UTF-8 is stored exactly', async () => {
    h = await startApi();
    const value = 'Zürich – 東京 – 🚀';
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw: withRawTag(Buffer.from(value, 'utf8')) });
    expect(r.status).toBe(201);
    expect((await h.store.getProfile('web'))!.profile.tags).toEqual({ env: value });
  });
});

describe('profile routes are case-insensitive on the name (§2.9)', () => {
  beforeEach(async () => {
    h = await startApi({ reports: { status: (p) => ({ name: p.profile.name, stack: p.stack }) as unknown as ProfileStatusReport } });
    expect((await call(h.base, 'PUT', '/v1/profiles/web', { body: profileInput('web', unprobed) })).status).toBe(201);
  });

  test('GET /v1/profiles/WEB returns web, with its stored name and ETag', async () => {
    const exact = await call(h.base, 'GET', '/v1/profiles/web');
    const r = await call(h.base, 'GET', '/v1/profiles/WEB');
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('web');
    expect(r.headers.etag).toBe(exact.headers.etag);
  });

  test('GET /v1/profiles/Web/status reports web', async () => {
    const r = await call(h.base, 'GET', '/v1/profiles/Web/status');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'web', stack: 'default' });
  });

  test('PATCH /v1/profiles/WEB/endpoints/a changes web', async () => {
    const r = await call(h.base, 'PATCH', '/v1/profiles/WEB/endpoints/a', { body: { endpointStatus: 'Disabled' } });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('web');
    expect((await h.store.getProfile('web'))!.profile.endpoints[0]!.endpointStatus).toBe('Disabled');
    expect(await h.store.getProfile('WEB')).toBeUndefined();
  });

  test('PUT /v1/profiles/WEB with the body naming web updates web; naming WEB is still a 409 conflict', async () => {
    const r = await call(h.base, 'PUT', '/v1/profiles/WEB', {
      body: profileInput('web', { ...unprobed, dnsConfig: { relativeName: 'web', ttl: 60 } }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'web', created: false, changed: true });
    expect((await h.store.getProfile('web'))!.profile.dnsConfig.ttl).toBe(60);
    const clash = await call(h.base, 'PUT', '/v1/profiles/WEB', { body: profileInput('WEB', unprobed) });
    expect(clash.status).toBe(409);
    expect(clash.body.errors[0].code).toBe('PROFILE_NAME_CONFLICT');
    expect((await h.store.getProfiles()).map((p) => p.profile.name)).toEqual(['web']);
  });

  test('DELETE /v1/profiles/WEB deletes web', async () => {
    const r = await call(h.base, 'DELETE', '/v1/profiles/WEB');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'web', deleted: true });
    expect(await h.store.getProfiles()).toEqual([]);
  });

  test('a name that matches nothing is still 404, named as asked', async () => {
    const r = await call(h.base, 'GET', '/v1/profiles/webx');
    expect(r.status).toBe(404);
    expect(r.body.errors[0].message).toBe("profile 'webx' does not exist");
    expect((await call(h.base, 'DELETE', '/v1/profiles/WEBX')).status).toBe(404);
  });
});

describe('a 100 MB body gets a readable 413, not a connection reset (§2.9)', () => {
  const MB100 = 100 * 1024 * 1024;
  let bigFile: string;
  let bigDir: string;
  beforeAll(() => {
    bigDir = mkdtempSync(join(tmpdir(), 'tmkit-413-'));
    bigFile = join(bigDir, 'big.json');
    writeFileSync(bigFile, Buffer.alloc(MB100, 0x20));
  });
  afterAll(() => rmSync(bigDir, { recursive: true, force: true }));

  const expect413 = (status: number, text: string): void => {
    expect(status).toBe(413);
    expect(JSON.parse(text).errors[0]).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1048576-byte limit') });
  };

  /** Runs curl; resolves with its exit code, the response body and the status it saw. */
  function curl(args: string[], stdin?: Buffer): Promise<{ code: number | null; body: string; status: number }> {
    return new Promise((resolve, reject) => {
      const c = spawn('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args], { stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      c.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      c.stderr!.setEncoding('utf8').on('data', (d: string) => {
        err += d;
      });
      if (stdin) {
        c.stdin!.on('error', () => undefined);
        c.stdin!.end(stdin);
      }
      c.on('error', reject);
      c.on('close', (code) => {
        const i = out.lastIndexOf('\n');
        resolve({ code, body: out.slice(0, i) + (err ? `\n[curl stderr] ${err}` : ''), status: Number(out.slice(i + 1)) });
      });
    });
  }

  beforeEach(async () => {
    h = await startApi();
  });

  test('undici with Content-Length: 413 JSON with Connection: close', async () => {
    const res = await request(`${h.base}/v1/profiles/web`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: Buffer.alloc(MB100, 0x20),
    });
    expect413(res.statusCode, await res.body.text());
    expect(res.headers.connection).toBe('close');
  });

  test('undici streaming a chunked body (no Content-Length): 413 as soon as the limit is passed', async () => {
    let sent = 0;
    const body = Readable.from(
      (function* gen() {
        while (sent < MB100) {
          sent += 65536;
          yield Buffer.alloc(65536, 0x20);
        }
      })(),
    );
    const res = await request(`${h.base}/v1/profiles/web`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}` }, body });
    expect413(res.statusCode, await res.body.text());
  });

  test('curl --data-binary @file (Expect: 100-continue) and curl -T - (chunked): both print the 413', async () => {
    const a = await curl([
      '-X',
      'PUT',
      '-H',
      `authorization: Bearer ${TOKEN}`,
      '--data-binary',
      `@${bigFile}`,
      `${h.base}/v1/profiles/web`,
    ]);
    expect413(a.status, a.body);
    expect(a.code).toBe(0);
    const b = await curl(
      ['-X', 'PUT', '-H', `authorization: Bearer ${TOKEN}`, '-T', '-', `${h.base}/v1/profiles/web`],
      Buffer.alloc(MB100, 0x20),
    );
    expect413(b.status, b.body);
  });

  test('Expect: 100-continue with a body under the limit gets its 100 when the body is read, then 201', async () => {
    const small = join(bigDir, 'small.json');
    writeFileSync(small, JSON.stringify(profileInput('web', unprobed)));
    const r = await curl([
      '-X',
      'PUT',
      '-H',
      `authorization: Bearer ${TOKEN}`,
      '-H',
      'content-type: application/json',
      '-H',
      'Expect: 100-continue',
      '--expect100-timeout',
      '20',
      '--data-binary',
      `@${small}`,
      `${h.base}/v1/profiles/web`,
    ]);
    expect(r.status).toBe(201);
    expect(JSON.parse(r.body).created).toBe(true);
  });

  test('the server is fine afterwards, and a body just under the limit is still read', async () => {
    await request(`${h.base}/v1/profiles/web`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: Buffer.alloc(MB100, 0x20),
    }).then((r) => r.body.text());
    const padded = JSON.stringify(profileInput('web', unprobed)).replace(/}$/, `${' '.repeat(1024 * 1024 - 2000)}}`);
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw: padded });
    expect(r.status).toBe(201);
  });
});

describe('a store that cannot be written answers 507/503, and DNS keeps answering (§2.6)', () => {
  const tempDir = tempDirs('tmkit-full-');

  /** A profile too big to fit in the pages left (200 endpoints, about 30 KB). */
  const big = (name: string) =>
    profileInput(name, {
      trafficRoutingMethod: 'Weighted',
      endpoints: Array.from({ length: 200 }, (_, i) => ({
        name: `ep-${i}`,
        type: 'externalEndpoints' as const,
        target: `10.0.${i}.1`,
        alwaysServe: 'Enabled' as const,
      })),
    });

  test('disk full (SQLITE_FULL via max_page_count): 507 "disk full at <state dir>"; reads and DNS go on', async () => {
    const dir = tempDir();
    const seed = SqliteStore.open({ stateDir: dir });
    await seed.close();
    const probe = openDb(join(dir, 'tmkit.db'));
    const pages = Number(probe.pragmaValue('page_count'));
    probe.close();
    const engine = await Engine.start({
      stateDir: dir,
      store: SqliteStore.open({ stateDir: dir, maxPageCount: pages + 3 }),
      env: {},
      zone: 'tm.internal',
      dns: [{ address: '127.0.0.1', port: 0 }],
      api: { host: '127.0.0.1', port: 0 },
      logger: pino({ level: 'silent' }),
    });
    try {
      const client = new TmkitClient({ server: `http://127.0.0.1:${engine.apiAddress().port}`, token: engine.token.token, env: {} });
      await client.putProfile(profileInput('web', unprobed)); // fits in the pages left
      await engine.settle();
      const dns = engine.dnsAddresses()[0]!;
      expect(aRecords(await queryUdp(dns, 'web.tm.internal'))).toEqual(['192.0.2.10']);

      const r = await call(`http://127.0.0.1:${engine.apiAddress().port}`, 'PUT', '/v1/profiles/big', {
        body: big('big'),
        auth: `Bearer ${engine.token.token}`,
      });
      expect(r.status).toBe(507);
      expect(r.body.errors).toEqual([
        {
          severity: 'error',
          code: 'STORAGE_FULL',
          message: expect.stringContaining(`disk full at ${dir}: free space and retry (SQLITE_FULL`),
        },
      ]);
      expect(r.body.errors[0].message).toContain('DNS keeps answering');

      // Nothing half-written, reads work, DNS answers from memory as before.
      expect((await client.listProfiles()).profiles.map((p) => p.name)).toEqual(['web']);
      expect(aRecords(await queryUdp(dns, 'web.tm.internal'))).toEqual(['192.0.2.10']);
      expect((await queryUdp(dns, 'big.tm.internal')).rcode).toBe('NXDOMAIN');
    } finally {
      await engine.stop();
    }
  });

  test('read-only store (SQLITE_READONLY): 503 STORAGE_READ_ONLY saying so; reads still work', async () => {
    const dir = tempDir();
    const rw = SqliteStore.open({ stateDir: dir });
    await rw.putProfile((await import('./fixtures')).profile('web', unprobed), { stack: 'default' });
    await rw.close();
    const ro = SqliteStore.open({ stateDir: dir, readonly: true });
    h = await startApi({ store: ro, stateDir: dir });
    const r = await call(h.base, 'PUT', '/v1/profiles/other', {
      body: profileInput('other', { ...unprobed, dnsConfig: { relativeName: 'other', ttl: 30 } }),
    });
    expect(r.status).toBe(503);
    expect(r.body.errors).toEqual([
      {
        severity: 'error',
        code: 'STORAGE_READ_ONLY',
        message: expect.stringContaining(`the store at ${dir} is read-only (SQLITE_READONLY`),
      },
    ]);
    expect((await call(h.base, 'DELETE', '/v1/profiles/web')).status).toBe(503);
    const get = await call(h.base, 'GET', '/v1/profiles/web');
    expect(get.status).toBe(200);
    await ro.close();
  });
});
