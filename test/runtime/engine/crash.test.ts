import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withStateDirDb } from '../../support/sqlite';
import { Agent, request } from 'undici';
import { validateProfile } from '../../../src/core/validate';
import { profileInput } from '../api/fixtures';
import { spawnServe } from '../../support/process';

/**
 * Durability: 500 PUTs in flight, the server SIGKILLed part-way through. After a restart every write the
 * server acknowledged (2xx) is there with exactly the content sent, and every profile that is there is
 * whole (one of the documents sent, valid, integrity_check ok). Unacknowledged writes may or may not be.
 */
jest.setTimeout(120_000);

const N = 500;
const KILL_AFTER = 150;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nameOf = (i: number) => `p${i}`;
const bodyOf = (i: number) =>
  profileInput(nameOf(i), { dnsConfig: { relativeName: nameOf(i), ttl: 1000 + i }, tags: { seq: String(i), pad: 'x'.repeat(2000) } });

test('no acknowledged write is lost, nothing half-written survives a SIGKILL', async () => {
  const stateDir = join(dir, 'state');
  const first = await spawnServe(stateDir);
  const token = readFileSync(join(stateDir, 'token'), 'utf8').trim();
  const agent = new Agent({ connections: 64 });
  const acked = new Map<string, number>();
  let killedAt = -1;
  let failed = 0;

  await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      try {
        const res = await request(`${first.api}/v1/profiles/${nameOf(i)}`, {
          method: 'PUT',
          dispatcher: agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(bodyOf(i)),
        });
        const text = await res.body.text();
        if (res.statusCode >= 200 && res.statusCode < 300) {
          acked.set(nameOf(i), JSON.parse(text).profile.dnsConfig.ttl);
          if (acked.size === KILL_AFTER && killedAt < 0) {
            killedAt = acked.size;
            first.child.kill('SIGKILL');
          }
        } else {
          throw new Error(`unexpected HTTP ${res.statusCode}: ${text}`);
        }
      } catch (err) {
        if (String(err).includes('unexpected HTTP')) throw err;
        failed++; // connection reset/refused after the kill: not acknowledged
      }
    }),
  );
  await agent.close();
  expect((await first.exited).signal).toBe('SIGKILL');
  expect(killedAt).toBe(KILL_AFTER);
  expect(failed).toBeGreaterThan(0); // the kill really happened mid-way
  expect(acked.size + failed).toBe(N);

  // As tmkit opens it after a crash: under the state dir's lock (on wasm, a kill inside a transaction leaves
  // the VFS lock directory tmkit.db.lock and a hot journal; both are dealt with there).
  expect(withStateDirDb(stateDir, (db) => db.pragmaValue('integrity_check'))).toBe('ok');

  const second = await spawnServe(stateDir);
  try {
    const res = await request(`${second.api}/v1/profiles`, { headers: { authorization: `Bearer ${token}` } });
    const list = (await res.body.json()) as {
      revision: number;
      profiles: Array<{ name: string; profile: { dnsConfig: { ttl: number }; tags: { seq: string } } }>;
    };
    const stored = new Map(list.profiles.map((p) => [p.name, p.profile]));
    for (const [name, ttl] of acked) {
      expect(stored.get(name)?.dnsConfig.ttl).toBe(ttl);
    }
    for (const [name, p] of stored) {
      const i = Number(name.slice(1));
      expect(p.tags.seq).toBe(String(i));
      expect(p.dnsConfig.ttl).toBe(1000 + i);
      expect(validateProfile(p).filter((d) => d.severity === 'error')).toEqual([]);
    }
    expect(list.revision).toBe(stored.size);
    expect(stored.size).toBeGreaterThanOrEqual(acked.size);
  } finally {
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }
});
