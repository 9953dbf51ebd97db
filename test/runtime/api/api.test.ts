import { MemoryStore } from '../../../src/testing/memory-store';
import type { StoredProfile } from '../../../src/runtime/store';
import { call, startApi, TOKEN, type Harness } from './harness';
import { waitFor } from '../../support/wait';

/** Reads resolve a macrotask later, so two requests' read-modify-write cycles really interleave. */
class SlowReadStore extends MemoryStore {
  override async getProfile(name: string): Promise<StoredProfile | undefined> {
    const p = await super.getProfile(name);
    await new Promise((r) => setTimeout(r, 5));
    return p;
  }
}
import { parentInput, profileInput } from './fixtures';

let h: Harness;
beforeEach(async () => {
  h = await startApi();
});
afterEach(async () => {
  await h.close();
});

const put = (name: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
  call(h.base, 'PUT', `/v1/profiles/${name}${query}`, { body, headers });

describe('authentication', () => {
  const routes: Array<[string, string, unknown]> = [
    ['GET', '/metrics', undefined],
    ['GET', '/v1/profiles', undefined],
    ['GET', '/v1/profiles/web', undefined],
    ['PUT', '/v1/profiles/web', profileInput('web')],
    ['DELETE', '/v1/profiles/web', undefined],
    ['PATCH', '/v1/profiles/web/endpoints/primary', { endpointStatus: 'Disabled' }],
    ['GET', '/v1/profiles/web/status', undefined],
    ['POST', '/v1/resolve', { name: 'web.tm.internal' }],
    ['GET', '/v1/resources', undefined],
    ['PUT', '/v1/resources', {}],
    ['GET', '/v1/nope', undefined],
    ['POST', '/v1/profiles', undefined],
  ];
  const bad: Array<[string, string | null]> = [
    ['no header', null],
    ['wrong token', 'Bearer wrong'],
    ['token prefix', `Bearer ${TOKEN.slice(0, -1)}`],
    ['basic scheme', `Basic ${TOKEN}`],
    ['token without scheme', TOKEN],
  ];

  test.each(routes)('%s %s needs the token: 401 with WWW-Authenticate, nothing changes', async (method, path, body) => {
    await put('web', profileInput('web'));
    const before = await h.store.revision();
    for (const [, auth] of bad) {
      const r = await call(h.base, method, path, body === undefined ? { auth } : { auth, body });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="tmkit"');
      expect(r.body.errors[0].code).toBe('UNAUTHORIZED');
    }
    expect(await h.store.revision()).toBe(before);
    expect((await h.store.getProfile('web'))!.profile.endpoints[0]!.endpointStatus).toBe('Enabled');
  });

  test('/healthz answers without a token, only ok or not; with the token, the whole body', async () => {
    const r = await call(h.base, 'GET', '/healthz', { auth: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect((await call(h.base, 'GET', '/healthz', { auth: 'Bearer wrong' })).body).toEqual({ status: 'ok' });
    const full = await call(h.base, 'GET', '/healthz');
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ status: 'ok', revision: 0 });
  });

  test('the token and the Authorization header never reach the log', async () => {
    await call(h.base, 'GET', '/v1/profiles');
    await put('web', profileInput('web'));
    await call(h.base, 'GET', '/v1/profiles', { auth: 'Bearer some-other-secret' });
    const all = h.logs.join('');
    expect(h.logs.length).toBeGreaterThanOrEqual(3);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('some-other-secret');
    expect(all.toLowerCase()).not.toContain('authorization');
  });
});

describe('profiles CRUD with ETags', () => {
  test('PUT creates (201) with an ETag; GET returns the normalized profile, the same ETag and the stack', async () => {
    const r = await put('web', profileInput('web'), {}, '?stack=prod');
    expect(r.status).toBe(201);
    expect(r.headers.etag).toBe(r.body.etag);
    expect(r.body).toMatchObject({ name: 'web', stack: 'prod', created: true, changed: true, warnings: [] });
    const g = await call(h.base, 'GET', '/v1/profiles/web');
    expect(g.status).toBe(200);
    expect(g.headers.etag).toBe(r.body.etag);
    expect(g.headers['tmkit-stack']).toBe('prod');
    expect(g.body).toEqual(r.body.profile);
    expect(g.body.monitorConfig.intervalInSeconds).toBe(30);
    const list = await call(h.base, 'GET', '/v1/profiles');
    expect(list.body.profiles).toEqual([{ name: 'web', stack: 'prod', etag: r.body.etag, profile: g.body }]);
    expect((await call(h.base, 'GET', '/v1/profiles?stack=other')).body.profiles).toEqual([]);
  });

  test('PUT of the same content again is 200, unchanged, same ETag', async () => {
    const a = await put('web', profileInput('web'));
    const b = await put('web', profileInput('web'));
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ created: false, changed: false, etag: a.body.etag });
  });

  test('name in the body must match the URL', async () => {
    const r = await put('web', profileInput('other'));
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatchObject({ code: 'NAME_MISMATCH', path: 'profiles[web].name' });
  });

  test('If-Match with a stale ETag → 412; with the current one → 200; If-None-Match: * on an existing profile → 412', async () => {
    const a = await put('web', profileInput('web'));
    const b = await put('web', profileInput('web', { dnsConfig: { relativeName: 'web', ttl: 60 } }), { 'if-match': a.body.etag });
    expect(b.status).toBe(200);
    const stale = await put('web', profileInput('web', { dnsConfig: { relativeName: 'web', ttl: 90 } }), { 'if-match': a.body.etag });
    expect(stale.status).toBe(412);
    expect(stale.body.errors[0].code).toBe('PRECONDITION_FAILED');
    expect((await put('web', profileInput('web'), { 'if-none-match': '*' })).status).toBe(412);
    expect((await call(h.base, 'GET', '/v1/profiles/web')).body.dnsConfig.ttl).toBe(60);
  });

  test('two concurrent writers with the same If-Match: exactly one wins, the other gets 412, no update is lost', async () => {
    for (let round = 0; round < 20; round++) {
      const cur = await call(h.base, 'GET', '/v1/profiles/web');
      const etag = cur.status === 200 ? (cur.headers.etag as string) : undefined;
      if (!etag) {
        await put('web', profileInput('web'));
        continue;
      }
      const [x, y] = await Promise.all([
        put('web', profileInput('web', { dnsConfig: { relativeName: 'web', ttl: 1000 + round } }), { 'if-match': etag }),
        put('web', profileInput('web', { dnsConfig: { relativeName: 'web', ttl: 2000 + round } }), { 'if-match': etag }),
      ]);
      const statuses = [x.status, y.status].sort();
      expect(statuses).toEqual([200, 412]);
      const winner = x.status === 200 ? x : y;
      const now = await call(h.base, 'GET', '/v1/profiles/web');
      expect(now.headers.etag).toBe(winner.body.etag);
      expect(now.body.dnsConfig.ttl).toBe(winner.body.profile.dnsConfig.ttl);
    }
  });

  test('ten concurrent create-only writers: exactly one 201, nine 412', async () => {
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        put('once', profileInput('once', { dnsConfig: { relativeName: 'once', ttl: 10 + i } }), { 'if-none-match': '*' }),
      ),
    );
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 412)).toHaveLength(9);
  });

  test('DELETE honours If-Match, then the profile is gone (404)', async () => {
    const a = await put('web', profileInput('web'));
    expect((await call(h.base, 'DELETE', '/v1/profiles/web', { headers: { 'if-match': '"1-0000000000000000"' } })).status).toBe(412);
    const d = await call(h.base, 'DELETE', '/v1/profiles/web', { headers: { 'if-match': a.body.etag } });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ name: 'web', deleted: true });
    expect((await call(h.base, 'GET', '/v1/profiles/web')).status).toBe(404);
    expect((await call(h.base, 'DELETE', '/v1/profiles/web')).status).toBe(404);
  });
});

describe('conflicts', () => {
  test('deleting a child still referenced by a nested endpoint → 409 naming the referrer', async () => {
    expect((await put('child', profileInput('child'))).status).toBe(201);
    expect((await put('parent', parentInput('parent', 'child'))).status).toBe(201);
    const r = await call(h.base, 'DELETE', '/v1/profiles/child');
    expect(r.status).toBe(409);
    expect(r.body.errors[0].code).toBe('PROFILE_REFERENCED');
    expect(r.body.errors[0].message).toContain("'parent/nested'");
    expect((await call(h.base, 'GET', '/v1/profiles/child')).status).toBe(200);
    expect((await call(h.base, 'DELETE', '/v1/profiles/parent')).status).toBe(200);
    expect((await call(h.base, 'DELETE', '/v1/profiles/child')).status).toBe(200);
  });

  test('writing or deleting a profile owned by another stack → 409 naming the owner', async () => {
    await put('web', profileInput('web'), {}, '?stack=team-a');
    const r = await put('web', profileInput('web', { dnsConfig: { relativeName: 'web', ttl: 5 } }), {}, '?stack=team-b');
    expect(r.status).toBe(409);
    expect(r.body.errors[0]).toMatchObject({ code: 'STACK_CONFLICT' });
    expect(r.body.errors[0].message).toContain("'team-a'");
    expect((await call(h.base, 'DELETE', '/v1/profiles/web?stack=team-b')).status).toBe(409);
    expect((await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/primary?stack=team-b', { body: { weight: 3 } })).status).toBe(409);
    expect((await call(h.base, 'GET', '/v1/profiles/web')).body.dnsConfig.ttl).toBe(30);
  });

  test('profile names are case-insensitive: a second profile differing only in case → 409', async () => {
    await put('web', profileInput('web'));
    const r = await put('Web', profileInput('Web', { dnsConfig: { relativeName: 'other', ttl: 30 } }));
    expect(r.status).toBe(409);
    expect(r.body.errors[0]).toMatchObject({ code: 'PROFILE_NAME_CONFLICT', path: 'profiles[Web].name' });
    expect(r.body.errors[0].message).toContain("'web'");
  });

  test('a nested reference in another case still blocks deleting the child', async () => {
    await put('child', profileInput('child'));
    expect((await put('parent', parentInput('parent', 'CHILD'))).status).toBe(201);
    const r = await call(h.base, 'DELETE', '/v1/profiles/child');
    expect(r.status).toBe(409);
    expect(r.body.errors[0].code).toBe('PROFILE_REFERENCED');
  });

  test('the same relativeName in two profiles is refused', async () => {
    await put('a', profileInput('a', { dnsConfig: { relativeName: 'shared', ttl: 30 } }));
    const r = await put('b', profileInput('b', { dnsConfig: { relativeName: 'Shared', ttl: 30 } }));
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { code: string }) => e.code)).toContain('RELATIVE_NAME_DUPLICATE');
  });
});

describe('request hygiene', () => {
  test.each([
    ['not JSON', '{"name": '],
    ['empty body', ''],
  ])('malformed JSON (%s) → 400 MALFORMED_JSON, nothing stored', async (_n, raw) => {
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].code).toBe('MALFORMED_JSON');
    expect(await h.store.revision()).toBe(0);
  });

  test.each([
    ['an array', []],
    ['a string', 'web'],
    ['null', null],
  ])('a body that is %s → 400', async (_n, body) => {
    const r = await call(h.base, 'PUT', '/v1/profiles/web', { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
  });

  test('a body over 1 MiB → 413, and the server keeps serving', async () => {
    const big = { ...profileInput('web'), tags: { pad: 'x'.repeat(1024 * 1024 + 10) } };
    const r = await put('web', big);
    expect(r.status).toBe(413);
    expect(r.body.errors[0].code).toBe('PAYLOAD_TOO_LARGE');
    expect((await put('web', profileInput('web'))).status).toBe(201);
  });

  test('unknown route → 404, wrong method → 405 with Allow, unknown profile → 404', async () => {
    const a = await call(h.base, 'GET', '/v2/things');
    expect(a.status).toBe(404);
    expect(a.body.errors[0].code).toBe('ROUTE_NOT_FOUND');
    const b = await call(h.base, 'POST', '/v1/profiles/web');
    expect(b.status).toBe(405);
    expect(b.headers.allow).toBe('GET, PUT, PATCH, DELETE'); // PATCH: settings merge patch (docs/ARCHITECTURE.md, "Providers")
    expect((await call(h.base, 'DELETE', '/healthz', { auth: null })).status).toBe(405);
    const c = await call(h.base, 'GET', '/v1/profiles/missing');
    expect(c.status).toBe(404);
    expect(c.body.errors[0]).toMatchObject({ code: 'NOT_FOUND', path: 'profiles[missing]' });
  });

  test('an invalid stack name → 400', async () => {
    const r = await put('web', profileInput('web'), {}, '?stack=bad%20stack');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].path).toBe('stack');
  });

  test('status and resolve without an engine attached → 503 NOT_AVAILABLE', async () => {
    await put('web', profileInput('web'));
    expect((await call(h.base, 'GET', '/v1/profiles/web/status')).status).toBe(503);
    expect((await call(h.base, 'POST', '/v1/resolve', { body: { name: 'web.tm.internal' } })).status).toBe(503);
    const bad = await call(h.base, 'POST', '/v1/resolve', { body: { type: 7 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['name', 'type']);
  });
});

describe('PATCH an endpoint', () => {
  test('merges, validates the whole profile, stores it with a new ETag', async () => {
    const a = await put('web', profileInput('web'));
    const r = await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/secondary', { body: { endpointStatus: 'Disabled', weight: 7 } });
    expect(r.status).toBe(200);
    expect(r.body.etag).not.toBe(a.body.etag);
    const g = await call(h.base, 'GET', '/v1/profiles/web');
    expect(
      g.body.endpoints.map((e: { name: string; endpointStatus: string; weight: number }) => [e.name, e.endpointStatus, e.weight]),
    ).toEqual([
      ['primary', 'Enabled', 1],
      ['secondary', 'Disabled', 7],
    ]);
  });

  test.each([
    ['the SQLite store', false],
    ['a store with network-like read latency (reads interleave, as with etcd)', true],
  ])('concurrent PATCHes of different endpoints without If-Match: both land, no update is lost (%s)', async (_n, slow) => {
    if (slow) {
      await h.close();
      h = await startApi({ store: new SlowReadStore() });
    }
    await put('web', profileInput('web'));
    for (let round = 2; round < 12; round++) {
      const [a, b] = await Promise.all([
        call(h.base, 'PATCH', '/v1/profiles/web/endpoints/primary', { body: { weight: round } }),
        call(h.base, 'PATCH', '/v1/profiles/web/endpoints/secondary', { body: { weight: round + 100 } }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const g = await call(h.base, 'GET', '/v1/profiles/web');
      expect(g.body.endpoints.map((e: { weight: number }) => e.weight)).toEqual([round, round + 100]);
    }
  });

  test('If-Match is honoured; an unknown endpoint → 404; renaming → 400', async () => {
    await put('web', profileInput('web'));
    expect(
      (await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/primary', { body: { weight: 2 }, headers: { 'if-match': '"9-0"' } })).status,
    ).toBe(412);
    const nf = await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/nope', { body: { weight: 2 } });
    expect(nf.status).toBe(404);
    expect(nf.body.errors[0].message).toContain("'primary', 'secondary'");
    expect((await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/primary', { body: { name: 'other' } })).status).toBe(400);
    expect((await call(h.base, 'PATCH', '/v1/profiles/missing/endpoints/primary', { body: { weight: 2 } })).status).toBe(404);
  });
});

describe('resources and metrics', () => {
  test('PUT /v1/resources replaces the catalog; GET returns it; invalid entries → 400 with every problem', async () => {
    const catalog = {
      '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app': {
        target: 'app.example.net',
        location: 'westeurope',
        state: 'running',
      },
    };
    const p = await call(h.base, 'PUT', '/v1/resources', { body: catalog });
    expect(p.status).toBe(200);
    expect(p.body.count).toBe(1);
    const g = await call(h.base, 'GET', '/v1/resources');
    expect(g.body.resources).toEqual(catalog);
    expect((await call(h.base, 'PUT', '/v1/resources', { body: g.body })).status).toBe(200);
    const bad = await call(h.base, 'PUT', '/v1/resources', {
      body: { '/a': { state: 'paused' }, '/b': { target: 'b.example', state: 'paused' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { code: string }) => e.code)).toEqual(['CATALOG_TARGET', 'CATALOG_STATE']);
  });

  test('GET /metrics is Prometheus text and counts API requests by route and code', async () => {
    await put('web', profileInput('web'));
    await call(h.base, 'GET', '/v1/profiles/nope');
    const m = await call(h.base, 'GET', '/metrics');
    expect(m.status).toBe(200);
    expect(String(m.headers['content-type'])).toContain('text/plain');
    expect(m.text).toContain('tmkit_api_requests_total{route="/v1/profiles/{name}",method="PUT",code="201"} 1');
    expect(m.text).toContain('tmkit_api_requests_total{route="/v1/profiles/{name}",method="GET",code="404"} 1');
  });
});

describe('validation of every write', () => {
  test('400 lists every diagnostic with path, code and message; nothing is stored', async () => {
    const body = profileInput('web', {
      dnsConfig: { relativeName: 'web', ttl: -1 },
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: '192.0.2.1', priority: 1, weight: 5000 },
        { name: 'b', type: 'externalEndpoints', target: '192.0.2.2', priority: 1 },
      ],
    });
    const r = await put('web', body);
    expect(r.status).toBe(400);
    const codes = r.body.errors.map((e: { code: string }) => e.code);
    expect(codes).toEqual(expect.arrayContaining(['TTL_RANGE', 'WEIGHT_RANGE', 'PRIORITY_DUPLICATE']));
    for (const e of r.body.errors) {
      expect(e).toEqual(
        expect.objectContaining({ code: expect.any(String), message: expect.any(String), path: expect.stringMatching(/^profiles\[web\]/) }),
      );
    }
    expect(r.body.errors.find((e: { code: string }) => e.code === 'WEIGHT_RANGE').path).toBe('profiles[web].endpoints[a].weight');
    expect(await h.store.revision()).toBe(0);
  });

  test('a nested endpoint must name a stored profile; a cycle through stored profiles is refused', async () => {
    const missing = await put('parent', parentInput('parent', 'child'));
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({
      code: 'NESTED_TARGET_NOT_FOUND',
      path: 'profiles[parent].endpoints[nested].targetResourceId',
    });
    expect((await put('child', profileInput('child'))).status).toBe(201);
    expect((await put('parent', parentInput('parent', 'child'))).status).toBe(201);
    // child → parent would close the loop parent → child → parent.
    const cycle = await put('child', parentInput('child', 'parent'));
    expect(cycle.status).toBe(400);
    expect(cycle.body.errors.map((e: { code: string }) => e.code)).toContain('NESTING_CYCLE');
  });

  test('PATCH is validated as a whole profile: an out-of-range weight → 400, profile unchanged', async () => {
    const a = await put('web', profileInput('web'));
    const r = await call(h.base, 'PATCH', '/v1/profiles/web/endpoints/primary', { body: { weight: 0 } });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toMatchObject({ code: 'WEIGHT_RANGE', path: 'profiles[web].endpoints[primary].weight' });
    expect((await call(h.base, 'GET', '/v1/profiles/web')).headers.etag).toBe(a.body.etag);
  });
});

describe('shutdown', () => {
  test('close() drains: a request in flight completes (and is stored), new connections are refused', async () => {
    const net = await import('node:net');
    const port = Number(new URL(h.base).port);
    const body = JSON.stringify(profileInput('drain'));
    const sock = net.connect(port, '127.0.0.1');
    let response = '';
    sock.setEncoding('utf8').on('data', (d: string) => {
      response += d;
    });
    const closed = new Promise<void>((r) => sock.on('close', () => r()));
    const started = new Promise<void>((r) => h.api.server.once('request', () => r()));
    sock.write(
      `PUT /v1/profiles/drain HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`,
    );
    await started;
    const closing = h.api.close(30_000);
    // The listener is gone at once...
    await expect(call(h.base, 'GET', '/healthz', { auth: null })).rejects.toThrow();
    // ...but the request in flight finishes.
    sock.end(body.slice(20));
    await closing;
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    expect((await h.store.getProfile('drain'))?.profile.name).toBe('drain');
  });
});

test('a body far over the limit is cut off without the server buffering it; the server keeps serving', async () => {
  const net = await import('node:net');
  const port = Number(new URL(h.base).port);
  const sock = net.connect(port, '127.0.0.1');
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  sock.on('error', () => undefined);
  let reply = '';
  sock.on('data', (d: Buffer) => {
    reply += d.toString('latin1');
  });
  sock.write(
    `PUT /v1/profiles/huge HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`,
  );
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  // Keep sending until the server hangs up: it answers 413 at once, sends its FIN (lingering close: it drains
  // what is still coming rather than reset the connection under the reply), and the client closes on the FIN.
  let sent = 0;
  for (; sent < 64 * 1024 * 1024 && !sock.destroyed; sent += chunk.length) {
    if (!sock.write(chunk)) {
      await new Promise<void>((r) => {
        const done = (): void => {
          sock.off('drain', done);
          sock.off('close', done);
          r();
        };
        sock.once('drain', done);
        sock.once('close', done);
      });
    }
  }
  await closed;
  expect(reply).toMatch(/^HTTP\/1\.1 413 /);
  expect(reply).toContain('PAYLOAD_TOO_LARGE');
  await waitFor(async () => (await call(h.base, 'GET', '/metrics')).text.includes('code="413"'), {
    what: 'the 413 counted in /metrics',
    timeoutMs: 5_000,
  });
  expect((await put('web', profileInput('web'))).status).toBe(201);
});
