/**
 * `GET /v1/dnssec` and `POST /v1/dnssec/rollover` on a real API server: 404 naming the flag without DNSSEC,
 * the keys and DS without any private key, rollovers refused (409) when a step cannot be taken now, and
 * bad bodies refused (400) naming the field.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { connectDnssec, DnssecService, MemoryKeyStore } from '../../../src/runtime/dns';
import { call, startApi, type Harness } from '../api/harness';

let off: Harness;
let on: Harness;
let service: DnssecService;
beforeAll(async () => {
  off = await startApi();
  service = await DnssecService.open({
    zone: 'tm.internal',
    policy: { algorithm: 13, split: false },
    store: new MemoryKeyStore(),
    logger: pino({ level: 'silent' }),
  });
  on = await startApi({ dnssec: connectDnssec(service, undefined, new Registry(), { maxTtl: () => 60 }) });
});
afterAll(async () => {
  await off.close();
  await on.close();
  service.close();
});

test('without serve --dnssec both routes answer 404 DNSSEC_OFF, naming the flag; without the token 401', async () => {
  for (const [method, path] of [
    ['GET', '/v1/dnssec'],
    ['POST', '/v1/dnssec/rollover'],
  ] as const) {
    const r = await call(off.base, method, path, method === 'POST' ? { body: {} } : {});
    expect(r.status).toBe(404);
    expect(r.body.errors[0]).toMatchObject({ code: 'DNSSEC_OFF', message: expect.stringMatching(/tmkit serve --dnssec/) });
  }
  expect((await call(on.base, 'GET', '/v1/dnssec', { auth: null })).status).toBe(401);
});

test('GET /v1/dnssec: the keys, their DNSKEY and DS, the denial method; never a private key', async () => {
  const r = await call(on.base, 'GET', '/v1/dnssec');
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    zone: 'tm.internal',
    enabled: true,
    algorithm: 13,
    keyMode: 'csk',
    denial: 'compact (RFC 9824)',
    validitySeconds: 604800,
    refreshSeconds: 86400,
    backdateSeconds: 3600,
  });
  expect(r.body.keys).toHaveLength(1);
  expect(r.body.keys[0].dnskey).toMatch(/^tm\.internal\. 300 IN DNSKEY 257 3 13 \S+$/);
  expect(r.body.ds).toEqual([r.body.keys[0].ds]);
  expect(r.text).not.toMatch(/privateKey|PRIVATE/i);
  expect(r.text).not.toContain(service.doc.keys[0]!.privateKey);
});

test('POST /v1/dnssec/rollover: bad bodies 400; a KSK rollover on a CSK zone, a second rollover and an early finish 409', async () => {
  expect((await call(on.base, 'POST', '/v1/dnssec/rollover', { body: { kind: 'csk' } })).body.errors[0]).toMatchObject({
    code: 'BAD_REQUEST',
    path: 'kind',
  });
  expect((await call(on.base, 'POST', '/v1/dnssec/rollover', { body: { finish: 'yes' } })).body.errors[0]).toMatchObject({
    code: 'BAD_REQUEST',
    path: 'finish',
  });
  expect((await call(on.base, 'POST', '/v1/dnssec/rollover', { body: [] })).status).toBe(400);
  const ksk = await call(on.base, 'POST', '/v1/dnssec/rollover', { body: { kind: 'ksk' } });
  expect([ksk.status, ksk.body.errors[0].code]).toEqual([409, 'DNSSEC_ROLLOVER']);
  expect(ksk.body.errors[0].message).toMatch(/one combined key \(CSK\)/);
  const early = await call(on.base, 'POST', '/v1/dnssec/rollover', { body: { finish: true } });
  expect(early.body.errors[0].message).toMatch(/no CSK or KSK waits for --finish/);

  const r = await call(on.base, 'POST', '/v1/dnssec/rollover', { body: {} });
  expect(r.status).toBe(200);
  expect(r.body.steps[0]).toMatch(/^now: CSK \d+ is published in the DNSKEY RRset and signs it next to the current CSK$/);
  expect(r.body.steps[1]).toMatch(/signs the zone \(DNSKEY TTL 300 s \+ 120 s\)/);
  expect(r.body.report.keys.map((k: { state: string }) => k.state)).toEqual(['active', 'published']);
  const again = await call(on.base, 'POST', '/v1/dnssec/rollover', { body: {} });
  expect([again.status, again.body.errors[0].message]).toEqual([
    409,
    expect.stringMatching(/a CSK rollover is under way: key \d+ signs from /),
  ]);
  const finish = await call(on.base, 'POST', '/v1/dnssec/rollover', { body: { finish: true } });
  expect([finish.status, finish.body.errors[0].message]).toEqual([409, expect.stringMatching(/only signs from .* finish after that/)]);
});
