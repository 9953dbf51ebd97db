import { executePlan, planDocument, readDeployed, readDeployedFor, TmkitClient } from '../../src/client';
import { call, startApi, TOKEN, type Harness } from '../runtime/api/harness';
import { parentInput, profileInput } from '../runtime/api/fixtures';

/**
 * `GET /v1/profiles?view=summary` and the plan's scoped read over a real API and SQLite store: the summary
 * follows every write (kept by the store's change events, re-reading only the rows written), and a plan of
 * one profile reads its scope, not the other profiles (rows counted by the store).
 */
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

const put = (name: string, body: unknown, stack = 'big') => call(h.base, 'PUT', `/v1/profiles/${name}?stack=${stack}`, { body });
const rows = (): number => h.store.stats().rowsRead;

test('the summary view lists name, stack, ETag, relativeName and children, and follows every write', async () => {
  await put('child', profileInput('child'));
  await put('parent', parentInput('parent', 'child'), 'front');
  let r = await call(h.base, 'GET', '/v1/profiles?view=summary');
  expect(r.status).toBe(200);
  const etag = (n: string) => r.body.profiles.find((p: { name: string }) => p.name === n).etag;
  expect(r.body).toEqual({
    revision: 2,
    profiles: [
      { name: 'child', stack: 'big', etag: etag('child'), relativeName: 'child', nested: [] },
      { name: 'parent', stack: 'front', etag: etag('parent'), relativeName: 'parent', nested: ['child'] },
    ],
  });
  // A change of FQDN, a new profile, a delete: each shows at once.
  const changed = await put('child', profileInput('child', { dnsConfig: { relativeName: 'kid', ttl: 30 } }));
  await put('Another', profileInput('Another'));
  await call(h.base, 'DELETE', '/v1/profiles/parent?stack=front');
  r = await call(h.base, 'GET', '/v1/profiles?view=summary&stack=big');
  expect(r.body.profiles.map((p: { name: string; relativeName: string; etag: string }) => [p.name, p.relativeName, p.etag])).toEqual([
    ['Another', 'Another', expect.any(String)],
    ['child', 'kid', changed.body.etag],
  ]);
  expect(r.body.revision).toBe(5);
  // The case-insensitive lookup and a stack's listing come from the index.
  expect((await call(h.base, 'GET', '/v1/profiles/ANOTHER')).headers.etag).toBeDefined();
  expect((await call(h.base, 'GET', '/v1/profiles?stack=big')).body.profiles.map((p: { name: string }) => p.name)).toEqual([
    'Another',
    'child',
  ]);
  expect((await call(h.base, 'GET', '/v1/profiles?view=tiny')).status).toBe(400);
});

test('a plan of one profile reads its scope: the summary and a few rows, not every profile', async () => {
  for (let i = 0; i < 60; i++) await put(`p${i}`, profileInput(`p${i}`));
  await put('solo', profileInput('solo'), 'solo');
  const doc = { apiVersion: 'tmkit/v1', stack: 'solo', profiles: [parentInput('solo', 'p7')] };

  const first = await readDeployedFor(client, doc); // builds the summary index (one full read)
  expect(first.deployed.map((d) => d.profile.name).sort()).toEqual(['p7', 'solo']);
  const before = rows();
  const state = await readDeployedFor(client, doc);
  expect(rows() - before).toBeLessThanOrEqual(3); // solo (its stack's listing) and p7
  expect(state.deployed.map((d) => `${d.stack}/${d.profile.name}`).sort()).toEqual(['big/p7', 'solo/solo']);

  // The plan is the one made against everything, and applies (the stale check reads summaries).
  const scoped = await planDocument(client, doc);
  const full = await planDocument(client, doc, { state: await readDeployed(client) });
  if (!scoped.ok || !full.ok) throw new Error('expected valid plans');
  expect(scoped.report).toEqual(full.report);
  expect(scoped.report.plan.summary.change).toBe(1);
  const applied = await executePlan(client, scoped.report.plan);
  expect(applied.failed).toBeUndefined();
  expect((await client.getProfile('solo')).profile.endpoints[0]!.targetResourceId).toBe('p7');
});

test('a write between the summary and the reads is seen: the read starts again', async () => {
  for (let i = 0; i < 5; i++) await put(`p${i}`, profileInput(`p${i}`));
  const doc = { apiVersion: 'tmkit/v1', stack: 'solo', profiles: [parentInput('solo', 'p1')] };
  // Change p1 after the first summary is listed: the ETag read with p1 no longer matches it.
  const original = client.listProfileSummaries.bind(client);
  let calls = 0;
  client.listProfileSummaries = async (o) => {
    const s = await original(o);
    if (calls++ === 0) await put('p1', profileInput('p1', { dnsConfig: { relativeName: 'p1', ttl: 60 } }));
    return s;
  };
  const state = await readDeployedFor(client, doc);
  expect(calls).toBe(2);
  expect(state.deployed.find((d) => d.profile.name === 'p1')!.profile.dnsConfig.ttl).toBe(60);
});
