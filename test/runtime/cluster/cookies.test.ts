/**
 * DNS cookies across a cluster (issue 39 item 2): the server secret is one etcd key every node makes and checks
 * cookies with. Real etcd, two real `tmkit serve` nodes started together, the real `dig`:
 *
 * - the two nodes agree on one secret at start (create-if-absent in a transaction);
 * - a cookie node A gave is valid at node B: echoed as it came, `(good)`, and exempt from B's rate limiting;
 * - `tmkit cookies rotate` on A reaches B through the watch: both accept the old cookie and the new ones;
 * - each node keeps a private copy (mode 0600); the secret is never logged;
 * - an etcd that lost the key (rebuilt empty) gets it back from a node's copy, so old cookies stay valid.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTmkit } from '../../support/process';
import { startEtcd, type EtcdServer } from '../../support/etcd';
import { waitFor } from '../../support/wait';
import { TOKEN, api, startNode, stopNode, type NodeProcess } from './support';

jest.setTimeout(180_000);

const SECRET_FILE = 'dns-cookie-secret.json';
let etcd: EtcdServer;
let etcd2: EtcdServer | undefined;
const running: NodeProcess[] = [];
const dirs: string[] = [];
const dir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'tmkit-cookies-'));
  dirs.push(d);
  return d;
};

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  for (const n of running) await stopNode(n);
  await etcd?.destroy();
  await etcd2?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The real dig's whole output (`+cookie`, `+cookie=HEX`, …); a timeout is output too. */
function dig(n: NodeProcess, ...args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'dig',
      [`@${n.dns.address}`, '-p', String(n.dns.port), 'tm.internal', 'SOA', '+time=2', '+tries=1', '+norecurse', ...args],
      { timeout: 15_000 },
      (_err, stdout) => resolve(stdout),
    );
  });
}

/** The cookie dig learned (client + server, hex) and what it said of it. */
function cookieOf(out: string): { hex: string; verdict: string } {
  const m = /; COOKIE: ([0-9a-f]+) \((\w+)\)/.exec(out);
  if (!m) throw new Error(`no COOKIE in the answer:\n${out}`);
  return { hex: m[1]!, verdict: m[2]! };
}

/** A cookie sent to `n` comes back exactly as it went: the server found it valid (a stale one is replaced). */
async function accepted(n: NodeProcess, hex: string): Promise<boolean> {
  const out = await dig(n, `+cookie=${hex}`);
  return out.includes('status: NOERROR') && cookieOf(out).hex === hex && cookieOf(out).verdict === 'good';
}

const cookiesTotal = async (n: NodeProcess, result: string): Promise<number> => {
  const text = (await fetch(`${n.api}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.text())) as string;
  const m = new RegExp(`^tmkit_dns_cookies_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};

let a: NodeProcess;
let b: NodeProcess;
let fromA: string;

test('two nodes started together agree on one secret: a cookie from A is valid at B, and exempt from its rate limiting', async () => {
  // Both with --rrl 2 (every node of a cluster takes the same flags), started at the same moment.
  const flags = ['--rrl', '2'];
  [a, b] = await Promise.all([
    startNode({ store: etcd.storeUrl(), node: 'a', stateDir: dir(), extra: flags }),
    startNode({ store: etcd.storeUrl(), node: 'b', stateDir: dir(), extra: flags }),
  ]);
  running.push(a, b);
  const ra = await api(a, 'GET', '/v1/dns/cookies');
  const rb = await api(b, 'GET', '/v1/dns/cookies');
  expect(ra.status).toBe(200);
  expect(ra.body).toMatchObject({ enabled: true, store: 'etcd', where: 'etcd key /tmkit/dns/cookie-secret', previous: false });
  expect(rb.body).toEqual(ra.body);
  // Each node's private copy holds the same secret, owner-only.
  expect(readFileSync(join(a.stateDir, SECRET_FILE), 'utf8')).toBe(readFileSync(join(b.stateDir, SECRET_FILE), 'utf8'));
  expect(statSync(join(b.stateDir, SECRET_FILE)).mode & 0o777).toBe(0o600);

  const first = cookieOf(await dig(a, '+cookie'));
  expect(first.verdict).toBe('good');
  expect(first.hex).toHaveLength(48); // 8-octet client cookie + 16-octet server cookie
  fromA = first.hex;
  const validBefore = await cookiesTotal(b, 'valid');
  // At B: echoed as it came (valid), not replaced by a fresh one.
  expect(await accepted(b, fromA)).toBe(true);
  // DNS workers (--workers auto: two on Node 24) report their counts to the metrics a moment later.
  await waitFor(async () => (await cookiesTotal(b, 'valid')) > validBefore, { what: "B's valid-cookie count to rise", timeoutMs: 5_000 });

  // B limits 2 answers a second per client and name: without a cookie a burst is cut (TC or nothing)...
  const plain = await Promise.all(Array.from({ length: 12 }, () => dig(b, '+nocookie', '+ignore')));
  expect(plain.filter((o) => /flags:[^;]* tc/.test(o) || o.includes('timed out') || o.trim() === '').length).toBeGreaterThan(0);
  // ...while the same burst with A's cookie is answered in full every time.
  const withCookie = await Promise.all(Array.from({ length: 12 }, () => dig(b, `+cookie=${fromA}`, '+ignore')));
  for (const o of withCookie) {
    expect(o).toContain('status: NOERROR');
    expect(o).not.toMatch(/flags:[^;]* tc/);
    expect(cookieOf(o).hex).toBe(fromA);
  }
});

test('tmkit cookies rotate on A reaches B: both accept the old cookie and the new ones; the secret is never logged', async () => {
  const before = (await api(a, 'GET', '/v1/dns/cookies')).body as { createdAt: string };
  await new Promise((r) => setTimeout(r, 5)); // a distinct createdAt
  const r = await runTmkit(['cookies', 'rotate', '--server', a.api, '--token', TOKEN], { timeoutMs: 30_000 });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(
    /^DNS cookie secret in etcd key \/tmkit\/dns\/cookie-secret \(every node of the cluster\), made \S+; the previous one is still accepted\n$/,
  );
  const after = (await api(a, 'GET', '/v1/dns/cookies')).body as { createdAt: string; previous: boolean };
  expect(after.createdAt).not.toBe(before.createdAt);
  expect(after.previous).toBe(true);
  // B learns it through its etcd watch, its DNS (and private copy) with it.
  await waitFor(async () => ((await api(b, 'GET', '/v1/dns/cookies')).body as { createdAt: string }).createdAt === after.createdAt, {
    what: 'node B to take the rotated secret',
    timeoutMs: 10_000,
  });
  await waitFor(() => readFileSync(join(b.stateDir, SECRET_FILE), 'utf8') === readFileSync(join(a.stateDir, SECRET_FILE), 'utf8'), {
    what: "B's private copy",
    timeoutMs: 10_000,
  });

  // The cookie made before the rotation: still valid at both (the previous secret).
  expect(await accepted(a, fromA)).toBe(true);
  expect(await accepted(b, fromA)).toBe(true);
  // A cookie made now, at B, with the new secret: valid at A.
  const fresh = cookieOf(await dig(b, '+cookie')).hex;
  expect(fresh.slice(16)).not.toBe(fromA.slice(16));
  expect(await accepted(a, fresh)).toBe(true);
  expect(await accepted(b, fresh)).toBe(true);
  // A server cookie nobody made is replaced (answered, with a fresh cookie), not accepted.
  const forged = `${fresh.slice(0, 32)}${'00'.repeat(8)}`;
  expect(await accepted(b, forged)).toBe(false);

  // The secrets appear in no log line.
  const doc = JSON.parse(readFileSync(join(a.stateDir, SECRET_FILE), 'utf8')) as { current: string; previous: string };
  for (const n of [a, b]) {
    expect(n.out()).not.toContain(doc.current);
    expect(n.out()).not.toContain(doc.previous);
  }
});

test('an etcd rebuilt empty gets the secret back from a node’s private copy: old cookies stay valid on every node', async () => {
  const fresh = cookieOf(await dig(a, '+cookie')).hex;
  await stopNode(a);
  await stopNode(b);
  etcd2 = await startEtcd();
  // A restarts on the empty etcd with its state dir: it offers its copy, which creates the key.
  const a2 = await startNode({ store: etcd2.storeUrl(), node: 'a', stateDir: a.stateDir });
  running.push(a2);
  // A new node with an empty state dir takes the key from etcd.
  const c = await startNode({ store: etcd2.storeUrl(), node: 'c', stateDir: dir() });
  running.push(c);
  expect((await api(c, 'GET', '/v1/dns/cookies')).body).toEqual((await api(a2, 'GET', '/v1/dns/cookies')).body);
  for (const n of [a2, c]) {
    expect(await accepted(n, fromA)).toBe(true);
    expect(await accepted(n, fresh)).toBe(true);
  }
});
