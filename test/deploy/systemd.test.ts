/**
 * deploy/systemd/tmkit.service: systemd-analyze accepts it (verify, and its offline security review rates it
 * OK), and its own ExecStart line, with $TMKIT_SERVE_ARGS expanded as systemd does, serves port 53 when run
 * the way the unit runs it: as its User= with CAP_NET_BIND_SERVICE as the only capability (ambient and
 * bounding set, no new privileges), in a network namespace of the test's own, on a state dir made as
 * StateDirectory= makes it. No running systemd is needed. Needs root, ip, setpriv, dig, systemd-analyze and
 * useradd (the unit's user is created as deploy/systemd/README.md says when the machine lacks it, and removed).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv } from '../support/process';
import {
  digIn,
  ids,
  netns,
  nodeForOthers,
  procStatus,
  requireRootWith,
  run,
  start,
  userIds,
  type NetNs,
  type Started,
} from '../support/privileged';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(180_000);

requireRootWith(['ip', 'setpriv', 'dig', 'systemd-analyze', 'useradd', 'userdel']);

const UNIT = join(__dirname, '../../deploy/systemd/tmkit.service');
const text = readFileSync(UNIT, 'utf8');
const temp = tempDirs('tmkit-systemd-');

/** The [Service] settings of the unit: key → every value given (in order). */
function service(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) {
      section = s[1]!;
      continue;
    }
    if (section !== 'Service') continue;
    const i = line.indexOf('=');
    const k = line.slice(0, i);
    out.set(k, [...(out.get(k) ?? []), line.slice(i + 1)]);
  }
  return out;
}

const unit = service();
const one = (k: string): string => {
  const v = unit.get(k);
  if (v?.length !== 1) throw new Error(`${k}= is given ${v?.length ?? 0} times in ${UNIT}`);
  return v[0]!;
};

/** ExecStart's words, `$VAR` replaced by the words of env[VAR] (systemd's unbraced form; nothing when unset). */
function execStart(env: Record<string, string>): string[] {
  return one('ExecStart')
    .split(/\s+/)
    .flatMap((w) => {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(w);
      if (!m) return [w];
      const v = env[m[1]!];
      return v === undefined ? [] : v.split(/\s+/).filter(Boolean);
    });
}

test('the unit holds the settings docs/production.md promises', () => {
  expect(one('User')).toBe('tmkit');
  expect(one('AmbientCapabilities')).toBe('CAP_NET_BIND_SERVICE');
  expect(one('CapabilityBoundingSet')).toBe('CAP_NET_BIND_SERVICE');
  expect(one('StateDirectory')).toBe('tmkit');
  expect(one('ProtectSystem')).toBe('strict');
  expect(one('NoNewPrivileges')).toBe('yes');
  expect(one('Restart')).toBe('on-failure');
  expect(one('KillMode')).toBe('mixed');
  expect(Number(one('LimitNOFILE'))).toBeGreaterThanOrEqual(8192);
  expect(unit.has('MemoryDenyWriteExecute')).toBe(false);
  expect(unit.has('User') && unit.has('DynamicUser')).toBe(false);
  const argv = execStart({});
  expect(argv.slice(0, 2)).toEqual(['/usr/local/bin/tmkit', 'serve']);
  expect(argv.join(' ')).toContain('--state-dir /var/lib/tmkit --dns 0.0.0.0:53 --dns [::]:53 --api 127.0.0.1:5380');
});

test('systemd-analyze verify passes without a word, and the offline security review rates it OK', async () => {
  const dir = temp();
  // verify checks that ExecStart's program exists and is executable: the built CLI stands in for /usr/local/bin/tmkit.
  const bin = join(dir, 'tmkit');
  symlinkSync(BIN, bin);
  const file = join(dir, 'tmkit.service');
  writeFileSync(file, text.replace('ExecStart=/usr/local/bin/tmkit ', `ExecStart=${bin} `));
  const verify = await run(['systemd-analyze', 'verify', file]);
  expect({ code: verify.code, stderr: verify.stderr, stdout: verify.stdout }).toEqual({ code: 0, stderr: '', stdout: '' });
  // A program that is not there is what verify does catch (so the pass above is not verify saying nothing).
  writeFileSync(file, text.replace('ExecStart=/usr/local/bin/tmkit ', `ExecStart=${join(dir, 'missing')} `));
  const missing = await run(['systemd-analyze', 'verify', file]);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('is not executable');

  writeFileSync(file, text.replace('ExecStart=/usr/local/bin/tmkit ', `ExecStart=${bin} `));
  const security = await run(['systemd-analyze', 'security', '--offline=yes', '--no-pager', file]);
  expect(security.code).toBe(0);
  const m = /Overall exposure level for tmkit\.service: ([\d.]+) (\w+)/.exec(security.stdout);
  expect(m?.[2]).toBe('OK');
  expect(Number(m?.[1])).toBeLessThan(4);
});

describe("the unit's ExecStart, as its user with CAP_NET_BIND_SERVICE only, on port 53", () => {
  let ns: NetNs;
  let created = false;
  let serve: Started | undefined;
  const user = one('User');

  beforeAll(() => {
    ns = netns('unit');
    if (userIds(user) === undefined) {
      // As deploy/systemd/README.md (and the unit's comment) say to make it.
      execFileSync('useradd', [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/var/lib/tmkit',
        '--shell',
        '/usr/sbin/nologin',
        user,
      ]);
      created = true;
    }
  });

  afterAll(async () => {
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
    ns.remove();
    if (created) execFileSync('userdel', [user]);
  });

  test('answers the SOA of its zone on 127.0.0.1:53 and [::1]:53, runs as the user holding that one capability, stops on SIGTERM', async () => {
    const { uid, gid } = userIds(user)!;
    // StateDirectory=tmkit with StateDirectoryMode=0700: the directory, owned by User:Group.
    const base = temp();
    chmodSync(base, 0o755);
    const state = join(base, 'tmkit');
    mkdirSync(state, { mode: 0o700 });
    chownSync(state, uid, gid);
    const siteArgs = '--zone tm.example.com --ns ns1.tm.example.com=192.0.2.53 --soa-rname hostmaster.example.com';
    const argv = execStart({ TMKIT_SERVE_ARGS: siteArgs }).map((w) => (w === '/var/lib/tmkit' ? state : w));
    expect(argv[0]).toBe('/usr/local/bin/tmkit');
    // The program is the built CLI, run by this test's node (the unit's /usr/local/bin/tmkit is its symlink).
    const command = [nodeForOthers(temp()), BIN, ...argv.slice(1)];
    const asUnit = [
      'setpriv',
      `--reuid=${user}`,
      `--regid=${one('Group')}`,
      '--init-groups',
      '--inh-caps=-all,+net_bind_service',
      '--ambient-caps=-all,+net_bind_service',
      '--bounding-set=-all,+net_bind_service',
      '--no-new-privs',
      '--',
    ];
    serve = start(ns.exec([...asUnit, ...command]), { env: cleanEnv(), cwd: state });
    const s = serve;
    await waitFor(() => s.stdout().includes('  UI   ') || s.child.exitCode !== null, { what: 'the serve banner', timeoutMs: 90_000 });
    expect(s.stderr()).not.toContain('"level":50');
    expect(s.stdout()).toContain('DNS  UDP+TCP 0.0.0.0:53, [::]:53');
    expect(s.stdout()).toContain('API  http://127.0.0.1:5380');

    const st = procStatus(s.child.pid!);
    expect({ uid: ids(st.Uid!), gid: ids(st.Gid!) }).toEqual({ uid: [uid, uid, uid, uid], gid: [gid, gid, gid, gid] });
    // CAP_NET_BIND_SERVICE is capability 10: 0x400, and nothing else, ever (bounding set, no new privileges).
    expect({ eff: st.CapEff, prm: st.CapPrm, amb: st.CapAmb, bnd: st.CapBnd, nnp: st.NoNewPrivs }).toEqual({
      eff: '0000000000000400',
      prm: '0000000000000400',
      amb: '0000000000000400',
      bnd: '0000000000000400',
      nnp: '1',
    });

    const soa = /^ns1\.tm\.example\.com\. hostmaster\.example\.com\. \d+ 3600 600 86400 30$/;
    expect(await digIn(ns, '127.0.0.1', 53, 'tm.example.com', 'SOA')).toEqual([expect.stringMatching(soa)]);
    expect(await digIn(ns, '::1', 53, 'tm.example.com', 'SOA')).toEqual([expect.stringMatching(soa)]);
    expect(await digIn(ns, '127.0.0.1', 53, 'tm.example.com', 'SOA', ['+tcp'])).toEqual([expect.stringMatching(soa)]);
    expect(await digIn(ns, '127.0.0.1', 53, 'ns1.tm.example.com', 'A')).toEqual(['192.0.2.53']);

    s.child.kill('SIGTERM');
    const { code } = await s.exited;
    expect(s.stdout()).toContain('tmkit serve: stopped');
    expect(code).toBe(0);
  });
});
