import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitApiError, TmkitClient, TmkitConnectionError } from '../../src/client';
import { ApiServer } from '../../src/runtime/api';
import { profileInput, parentInput } from '../runtime/api/fixtures';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';
import { freePort } from '../support/ports';

let h: Harness;
let client: TmkitClient;
beforeEach(async () => {
  h = await startApi();
  client = new TmkitClient({ server: h.base, token: TOKEN, env: {} });
});
afterEach(async () => {
  await client.close();
  await h.close();
});

describe('every route', () => {
  test('put, get, find, list, patch, delete', async () => {
    const w = await client.putProfile(profileInput('web'), { stack: 'prod', ifNoneMatch: '*' });
    expect(w).toMatchObject({ name: 'web', stack: 'prod', created: true, changed: true });
    expect(await client.getProfile('web')).toEqual({ name: 'web', stack: 'prod', etag: w.etag, profile: w.profile });
    expect(await client.findProfile('missing')).toBeUndefined();
    expect((await client.listProfiles({ stack: 'prod' })).profiles.map((p) => p.name)).toEqual(['web']);
    const p = await client.patchEndpoint('web', 'primary', { endpointStatus: 'Disabled' }, { ifMatch: w.etag });
    expect(p.profile.endpoints[0]!.endpointStatus).toBe('Disabled');
    await expect(client.putProfile(profileInput('web'), { stack: 'prod', ifMatch: w.etag })).rejects.toMatchObject({
      status: 412,
      code: 'PRECONDITION_FAILED',
    });
    expect(await client.deleteProfile('web', { stack: 'prod', ifMatch: p.etag })).toMatchObject({ name: 'web', deleted: true });
    await expect(client.getProfile('web')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  test('resources, healthz, metrics', async () => {
    const id = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/a';
    expect(await client.putResources({ [id]: { target: 'a.example.net', state: 'running' } })).toMatchObject({ count: 1 });
    expect((await client.getResources()).resources).toEqual({ [id]: { target: 'a.example.net', state: 'running' } });
    expect((await client.healthz()).status).toBe('ok');
    expect(await client.metrics()).toContain('tmkit_api_requests_total');
  });
});

describe('errors carry the server diagnostics', () => {
  test('400: every diagnostic, a stable code, a message naming paths', async () => {
    const err = await client
      .putProfile(
        profileInput('web', {
          dnsConfig: { relativeName: 'web', ttl: -5 },
          endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', weight: 0 }],
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmkitApiError);
    const e = err as TmkitApiError;
    expect(e.status).toBe(400);
    expect(e.errors.map((x) => x.code)).toEqual(expect.arrayContaining(['TTL_RANGE', 'WEIGHT_RANGE']));
    expect(e.code).toBe(e.errors[0]!.code);
    expect(e.message).toContain('profiles[web].endpoints[a].weight');
  });

  test('409 naming the referrer', async () => {
    await client.putProfile(profileInput('child'));
    await client.putProfile(parentInput('parent', 'child'));
    await expect(client.deleteProfile('child')).rejects.toMatchObject({
      status: 409,
      code: 'PROFILE_REFERENCED',
      message: expect.stringContaining("'parent/nested'"),
    });
  });
});

describe('token discovery', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-client-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.each([
    ['the option', { token: TOKEN, env: { TMKIT_TOKEN: 'other' } }],
    ['TMKIT_TOKEN', { env: { TMKIT_TOKEN: TOKEN } }],
  ])('from %s', async (_n, opts) => {
    const c = new TmkitClient({ server: h.base, ...opts });
    expect((await c.listProfiles()).profiles).toEqual([]);
    await c.close();
  });

  test('from <state-dir>/token for a loopback server (TMKIT_STATE_DIR or stateDir)', async () => {
    const a = new TmkitClient({ server: h.base, env: { TMKIT_STATE_DIR: dir } });
    expect(a.hasToken).toBe(true);
    expect((await a.listProfiles()).profiles).toEqual([]);
    await a.close();
  });

  test('never from the local token file for a remote server', async () => {
    const c = new TmkitClient({ server: 'http://192.0.2.1:5380', stateDir: dir, env: {} });
    expect(c.hasToken).toBe(false);
    await c.close();
  });

  test('no token at all: the server says 401 UNAUTHORIZED', async () => {
    const c = new TmkitClient({ server: h.base, stateDir: join(dir, 'none'), env: {}, retries: 0 });
    await expect(c.listProfiles()).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await c.close();
  });
});

describe('retries: on connection errors only', () => {
  test('a server that starts late is reached after connection-refused retries', async () => {
    const port = await freePort();
    const c = new TmkitClient({ server: `http://127.0.0.1:${port}`, token: TOKEN, retries: 8, retryDelayMs: 50, env: {} });
    const late = new ApiServer(h.options);
    const pending = c.putProfile(profileInput('late'));
    await new Promise((r) => setTimeout(r, 150));
    await late.listen('127.0.0.1', port);
    try {
      expect(await pending).toMatchObject({ created: true });
    } finally {
      await c.close();
      await late.close();
    }
  });

  test('gives up with TmkitConnectionError (UNREACHABLE) after the retries', async () => {
    const port = await freePort();
    const c = new TmkitClient({ server: `http://127.0.0.1:${port}`, token: TOKEN, retries: 2, retryDelayMs: 10, env: {} });
    const err = await c.listProfiles().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmkitConnectionError);
    expect(err).toMatchObject({ code: 'UNREACHABLE', attempts: 3 });
    await c.close();
  });

  test.each([[503], [500], [429], [404]])('HTTP %i is not retried: exactly one request', async (status) => {
    let requests = 0;
    const s: Server = createServer((_req, res) => {
      requests++;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'X', message: 'no' }] }));
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const c = new TmkitClient({
      server: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
      token: TOKEN,
      retries: 5,
      retryDelayMs: 1,
      env: {},
    });
    await expect(c.putProfile(profileInput('x'))).rejects.toMatchObject({ status, code: 'X' });
    expect(requests).toBe(1);
    await c.close();
    await new Promise<void>((r) => s.close(() => r()));
  });
});
