/**
 * `tmkit serve --user NAME` (docs/production.md "Run the nodes"): started as root on port 53 in a network
 * namespace of the test's own, it binds, then runs as the user (the DNS worker processes too); it keeps a
 * write made through the API over a restart as the user on the same state dir; it refuses a state dir the
 * user does not own, and `--user` from another user. Without root or CAP_NET_BIND_SERVICE port 53 is refused
 * with what to do. Real processes, real sockets, real dig. Needs root, ip, setpriv and dig (CI runs as root).
 */
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, REPO } from '../support/process';
import {
  childrenOf,
  digIn,
  ids,
  netns,
  nodeForOthers,
  procStatus,
  requireRootWith,
  run,
  start,
  type NetNs,
  type Started,
} from '../support/privileged';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(180_000);

requireRootWith(['ip', 'setpriv', 'dig']);

const NOBODY = 65534;

const temp = tempDirs('tmkit-serve-user-');
let ns: NetNs;
const running: Started[] = [];

beforeAll(() => {
  ns = netns('user');
});

afterEach(async () => {
  for (const s of running.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  }
});

afterAll(() => ns.remove());

/** A temp dir others may enter (mkdtemp makes 0700, which would keep nobody out of the state dir below it). */
function openBase(): string {
  const base = temp();
  chmodSync(base, 0o755);
  return base;
}

/** `tmkit serve ARGS` in the namespace (argv prefix `pre`: e.g. setpriv), resolved once its banner is out. */
async function serveIn(args: string[], pre: string[] = [], node = process.execPath): Promise<Started> {
  const s = start(ns.exec([...pre, node, BIN, 'serve', '--log-level', 'warn', ...args]), { env: cleanEnv(), cwd: REPO });
  running.push(s);
  await waitFor(() => s.stdout().includes('  UI   ') || s.child.exitCode !== null, { what: 'the serve banner', timeoutMs: 90_000 });
  if (s.child.exitCode !== null) throw new Error(`serve exited ${s.child.exitCode}:\n${s.stdout()}\n${s.stderr()}`);
  return s;
}

async function stop(s: Started): Promise<void> {
  s.child.kill('SIGTERM');
  const { code } = await s.exited;
  expect(s.stdout()).toContain('tmkit serve: stopped');
  expect(code).toBe(0);
}

/** Every entry of `dir` (and `dir`) belongs to uid:gid. */
function ownedBy(dir: string, uid: number, gid: number): string[] {
  const wrong: string[] = [];
  const visit = (p: string): void => {
    const st = statSync(p);
    if (st.uid !== uid || st.gid !== gid) wrong.push(`${p} ${st.uid}:${st.gid}`);
    if (st.isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
  };
  visit(dir);
  return wrong;
}

const doc = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'web',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'web', ttl: 30 },
      monitorConfig: { protocol: 'TCP', port: 9, intervalInSeconds: 30, toleratedNumberOfFailures: 3 },
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.10', weight: 1 }],
    },
  ],
};

test('--user nobody on port 53 with 2 DNS workers: all run as nobody, answer, keep an API write over a restart as nobody', async () => {
  const base = openBase();
  const state = join(base, 'state');
  const file = join(base, 'doc.json');
  writeFileSync(file, JSON.stringify(doc));
  const args = ['--user', 'nobody', '--state-dir', state, '--dns', '127.0.0.1:53', '--api', '127.0.0.1:5380', '--workers', '2'];

  const first = await serveIn(args);
  const pid = first.child.pid!;
  expect(first.stdout()).toContain('DNS  UDP+TCP 127.0.0.1:53 (2 worker processes)');
  expect(first.stdout()).toContain('workers share one socket: with --user');
  expect(first.stdout()).toContain('User nobody:nogroup (uid 65534, gid 65534): bound as root, then dropped to it');
  const workers = childrenOf(pid);
  expect(workers).toHaveLength(2);
  for (const p of [pid, ...workers]) {
    const st = procStatus(p);
    expect({ pid: p, uid: ids(st.Uid!), gid: ids(st.Gid!), groups: st.Groups, capEff: st.CapEff }).toEqual({
      pid: p,
      uid: [NOBODY, NOBODY, NOBODY, NOBODY],
      gid: [NOBODY, NOBODY, NOBODY, NOBODY],
      groups: String(NOBODY),
      capEff: '0000000000000000',
    });
  }
  // UDP and TCP, each answered by the workers on the sockets the primary bound as root.
  expect(await digIn(ns, '127.0.0.1', 53, 'tm.internal', 'SOA')).toEqual([
    expect.stringMatching(/^ns1\.tm\.internal\. hostmaster\.tm\.internal\. \d+ /),
  ]);
  expect(await digIn(ns, '127.0.0.1', 53, 'tm.internal', 'SOA', ['+tcp'])).toHaveLength(1);

  // A write through the management API, with the token serve generated (root reads it; nobody owns it).
  const token = readFileSync(join(state, 'token'), 'utf8').trim();
  const env = cleanEnv({ TMKIT_SERVER: 'http://127.0.0.1:5380', TMKIT_TOKEN: token });
  const applied = await run(ns.exec([process.execPath, BIN, 'apply', file, '--yes']), { env, cwd: base });
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain('PUT web (create) ... ok');
  expect(await digIn(ns, '127.0.0.1', 53, 'web.tm.internal')).toEqual(['192.0.2.10']);
  // What start-up made as root (database, lock, pid, token, cookie secret) is nobody's now.
  expect(ownedBy(state, NOBODY, NOBODY)).toEqual([]);
  await stop(first);

  // The same state dir, as nobody again (one process this time): the write is there.
  const second = await serveIn(args.filter((a, i) => a !== '--workers' && args[i - 1] !== '--workers'));
  expect(second.stdout()).toContain('1 profile,');
  expect(ids(procStatus(second.child.pid!).Uid!)).toEqual([NOBODY, NOBODY, NOBODY, NOBODY]);
  expect(await digIn(ns, '127.0.0.1', 53, 'web.tm.internal')).toEqual(['192.0.2.10']);
  const got = await run(ns.exec([process.execPath, BIN, 'get', 'web']), { env, cwd: base });
  expect(got.code).toBe(0);
  expect(got.stdout).toContain('192.0.2.10');
  await stop(second);
  expect(ownedBy(state, NOBODY, NOBODY)).toEqual([]);
});

test('--user refuses a state dir with root-owned files (a start without --user) and names the chown that fixes it', async () => {
  const base = openBase();
  const state = join(base, 'state');
  mkdirSync(state, { mode: 0o700 });
  chownSync(state, NOBODY, NOBODY);
  writeFileSync(join(state, 'token'), 'x'.repeat(40), { mode: 0o600 });
  const r = await run(ns.exec([process.execPath, BIN, 'serve', '--user', 'nobody', '--state-dir', state, '--dns', '127.0.0.1:53']), {
    env: cleanEnv(),
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${join(state, 'token')} (uid 0)`);
  expect(r.stderr).toContain(`chown -R nobody:nogroup ${state}`);
  // Nothing was started: the namespace's port 53 is still free, and no database was made.
  expect(readdirSync(state)).toEqual(['token']);
});

test('--user refuses a state dir the user cannot reach, naming the directory in the way', async () => {
  const closed = temp(); // 0700 root
  const r = await run([process.execPath, BIN, 'serve', '--user', 'nobody', '--state-dir', join(closed, 'state'), '--dns', '127.0.0.1:0'], {
    env: cleanEnv(),
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`nobody cannot reach the state dir ${join(closed, 'state')}: ${closed} (mode 0700, owner uid 0)`);
  expect(r.stderr).toContain(`chmod o+x ${closed}`);
});

test('--user from a user that is not root: exit 2 unless it already is that user', async () => {
  const base = openBase();
  const state = join(base, 'state');
  mkdirSync(state, { mode: 0o700 });
  chownSync(state, NOBODY, NOBODY);
  const asNobody = ['setpriv', '--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups'];
  const node = nodeForOthers(temp());
  const other = await run(ns.exec([...asNobody, node, BIN, 'serve', '--user', 'daemon', '--state-dir', state]), {
    env: cleanEnv(),
  });
  expect(other.code).toBe(2);
  expect(other.stderr).toContain('--user daemon: only root can switch to another user, and this process runs as uid 65534');
  // Already nobody: nothing to drop, it just runs.
  const same = await serveIn(
    ['--user', 'nobody', '--state-dir', state, '--dns', '127.0.0.1:5300', '--api', '127.0.0.1:5381'],
    asNobody,
    node,
  );
  expect(same.stdout()).not.toContain('dropped');
  expect(await digIn(ns, '127.0.0.1', 5300, 'tm.internal', 'SOA')).toHaveLength(1);
  await stop(same);
});

test('without root or CAP_NET_BIND_SERVICE, port 53 (DNS) and port 80 (API) are refused with what to do, exit 1', async () => {
  const base = openBase();
  const state = join(base, 'state');
  mkdirSync(state, { mode: 0o700 });
  chownSync(state, NOBODY, NOBODY);
  const node = nodeForOthers(temp());
  const noCaps = ['setpriv', '--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all'];
  for (const [flags, refused] of [
    [['--dns', '127.0.0.1:53'], 'bind EACCES 127.0.0.1:53'],
    [['--dns', '127.0.0.1:53', '--workers', '2'], 'bind EACCES 127.0.0.1:53'],
    [['--dns', '127.0.0.1:5300', '--api', '127.0.0.1:80'], 'listen EACCES: permission denied 127.0.0.1:80'],
  ] as const) {
    const r = await run(ns.exec([...noCaps, node, BIN, 'serve', '--state-dir', state, '--log-level', 'warn', ...flags]), {
      env: cleanEnv(),
    });
    expect({ flags, code: r.code }).toEqual({ flags, code: 1 });
    expect(r.stderr).toContain(`tmkit: serve: ${refused}: binding a port below 1024 needs root or the CAP_NET_BIND_SERVICE capability`);
    expect(r.stderr).toContain('AmbientCapabilities=CAP_NET_BIND_SERVICE');
    expect(r.stderr).toContain('setcap cap_net_bind_service=+ep');
    expect(r.stderr).toContain('start as root with --user NAME');
  }
});
