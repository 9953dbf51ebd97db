/**
 * `tmkit serve --user NAME[:GROUP]` (docs/production.md): everything is bound as root, then the process
 * becomes NAME. This module holds what that takes apart from the CLI: who NAME is (the system's user
 * database, through `getent`, so NSS users count), whether that user can use the state dir on this start
 * and on the next one, handing the files made as root during start-up to the user, the drop itself
 * (supplementary groups, then gid, then uid), and the hint for a privileged bind refused with EACCES.
 *
 * Why files are handed over after start rather than made as the user: the engine opens the store, the
 * token, the DNSSEC keys and the cookie secret while it binds its sockets, and Node cannot bind a port
 * below 1024 with a non-root effective uid and put it back. So the state dir must be the user's before
 * start (checked here, with the fix in the message), and whatever start-up created in it as root is
 * chowned to the user just before the drop, so that a restart as the user finds only its own files.
 *
 * Nothing here imports another part of the runtime (floor 0 in docs/ARCHITECTURE.md).
 */
import { execFileSync } from 'node:child_process';
import { chownSync, lchownSync, lstatSync, mkdirSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A refusal `--user` explains: the message names the path and the command that fixes it. */
export class PrivilegeError extends Error {
  constructor(
    message: string,
    /** 'usage': the flag itself is wrong (exit 2); 'state': the machine needs fixing (exit 1). */
    readonly kind: 'usage' | 'state',
  ) {
    super(message);
    this.name = 'PrivilegeError';
  }
}

/** The user `--user` names, resolved. */
export interface TargetUser {
  /** The user's name in the user database (what `initgroups` takes). */
  name: string;
  uid: number;
  /** The group to run as: GROUP of NAME:GROUP, else the user's primary group. */
  gid: number;
  /** That group's name (for messages such as `chown -R tmkit:tmkit …`). */
  group: string;
  /** Every group the user will be in: `gid` and the user's supplementary groups (`id -G NAME`, as initgroups(3) gives). */
  groups: number[];
}

/** Who may touch a file, as the kernel decides it (ACLs aside). */
export interface Identity {
  uid: number;
  gid: number;
  groups: readonly number[];
}

/** `tmkit`, `tmkit:tmkit`, `65534:65534` → the two halves; syntax only. */
export function parseUserSpec(spec: string): { user: string; group?: string } {
  const m = /^([A-Za-z0-9_][A-Za-z0-9_.-]*\$?)(?::([A-Za-z0-9_][A-Za-z0-9_.-]*))?$/.exec(spec.trim());
  if (!m)
    throw new PrivilegeError(`--user ${spec}: expected a user name, optionally :group (e.g. --user tmkit or --user tmkit:tmkit)`, 'usage');
  return { user: m[1]!, ...(m[2] !== undefined ? { group: m[2] } : {}) };
}

/** One `getent DATABASE KEY` line split on ':', or undefined when there is no such entry. */
export type Getent = (database: 'passwd' | 'group', key: string) => string[] | undefined;

/** The system's user database through getent(1) (libc-bin: files, LDAP, systemd's dynamic users alike). */
export const systemGetent: Getent = (database, key) => {
  try {
    const out = execFileSync('getent', [database, key], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const line = out.split('\n')[0]?.trim();
    return line ? line.split(':') : undefined;
  } catch (err) {
    // Exit 2: no such key. Anything else (no getent at all) is said as it is.
    if ((err as { status?: number }).status === 2) return undefined;
    throw new PrivilegeError(`--user: cannot read the user database with getent: ${(err as Error).message}`, 'state');
  }
};

/**
 * The groups initgroups(NAME, gid) gives: `gid` and the groups listing NAME as a member. `id -G NAME` prints
 * those after the user's primary group (`primary`), which is left out when another group was named.
 */
function supplementaryGroups(name: string, gid: number, primary: number): number[] {
  try {
    const out = execFileSync('id', ['-G', '--', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const ids = out.trim().split(/\s+/).map(Number).filter(Number.isInteger);
    return [...new Set([gid, ...ids.filter((g, i) => !(i === 0 && g === primary && g !== gid))])];
  } catch {
    return [gid];
  }
}

/** `--user NAME[:GROUP]` → the user and group, which must exist; root is refused (nothing would be dropped). */
export function resolveUser(spec: string, getent: Getent = systemGetent): TargetUser {
  const { user, group } = parseUserSpec(spec);
  const pw = getent('passwd', user);
  if (!pw || pw.length < 4)
    throw new PrivilegeError(
      `--user ${spec}: there is no user ${user} on this machine; create it (useradd --system --no-create-home --shell /usr/sbin/nologin ${user}) or name another`,
      'usage',
    );
  const uid = Number(pw[2]);
  const primary = Number(pw[3]);
  let gid = primary;
  let groupName: string = getent('group', String(gid))?.[0] ?? String(gid);
  if (group !== undefined) {
    const gr = getent('group', group);
    if (!gr || gr.length < 3) throw new PrivilegeError(`--user ${spec}: there is no group ${group} on this machine`, 'usage');
    gid = Number(gr[2]);
    groupName = gr[0]!;
  }
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new PrivilegeError(`--user ${spec}: the user database gives no numeric ids`, 'state');
  if (uid === 0)
    throw new PrivilegeError(
      `--user ${spec}: that is root; name an unprivileged user (e.g. one made with useradd --system tmkit)`,
      'usage',
    );
  const name = pw[0]!;
  return { name, uid, gid, group: groupName, groups: supplementaryGroups(name, gid, primary) };
}

/**
 * What `--user` means for this process: 'drop' (it runs as root and will become `who`), 'none' (it already
 * runs as `who`: nothing to do), or a usage error (another user cannot switch users).
 */
export function dropPlan(
  who: TargetUser,
  spec: string,
  self: { uid: number; gid: number } = { uid: process.getuid!(), gid: process.getgid!() },
): 'drop' | 'none' {
  if (self.uid === 0) return 'drop';
  if (self.uid === who.uid && self.gid === who.gid) return 'none';
  throw new PrivilegeError(
    `--user ${spec}: only root can switch to another user, and this process runs as uid ${self.uid} (gid ${self.gid}); ` +
      `start it as root with --user ${spec}, or start it as ${who.name} without --user`,
    'usage',
  );
}

/** Pure: whether `who` has every permission of `want` ('r', 'w', 'x') on a file with these mode and owners. */
export function canAccess(st: { mode: number; uid: number; gid: number }, who: Identity, want: string): boolean {
  if (who.uid === 0) return true;
  const shift = st.uid === who.uid ? 6 : who.gid === st.gid || who.groups.includes(st.gid) ? 3 : 0;
  const bits = (st.mode >> shift) & 0o7;
  for (const c of want) {
    const bit = c === 'r' ? 4 : c === 'w' ? 2 : c === 'x' ? 1 : 0;
    if ((bits & bit) === 0) return false;
  }
  return true;
}

const octal = (m: number): string => `0${(m & 0o7777).toString(8).padStart(3, '0')}`;

/** The directories from `/` down to `dir`'s parent (`dir` absolute). */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dirname(dir); ; d = dirname(d)) {
    out.unshift(d);
    if (dirname(d) === d) return out;
  }
}

/** Every entry under `dir` (lstat: a symbolic link is itself, never followed), depth first; at most `limit`. */
function walk(dir: string, limit = 10_000): Array<{ path: string; st: Stats }> {
  const out: Array<{ path: string; st: Stats }> = [];
  const visit = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (out.length >= limit) return;
      const path = join(d, name);
      const st = lstatSync(path);
      out.push({ path, st });
      if (st.isDirectory()) visit(path);
    }
  };
  visit(dir);
  return out;
}

/**
 * Before start, as root: makes sure `who` can use the state dir now and after a restart, or throws a
 * PrivilegeError naming the path and the fix. The user must be able to reach it (search permission on every
 * directory above it), own it and everything in it (the store, `tmkit.lock`/`tmkit.pid`, the token, the
 * DNSSEC keys, `dns-cookie-secret.json`, the etcd local copy, all rewritten later by the user). A state dir
 * that does not exist yet is made here, mode 0700, owned by the user (its parent must exist). Returns the
 * absolute path.
 */
export function prepareStateDir(stateDir: string, who: TargetUser): string {
  const dir = resolve(stateDir);
  const owner = `${who.name}:${who.group}`;
  let st: Stats | undefined;
  try {
    st = statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (st === undefined) {
    const parent = dirname(dir);
    try {
      statSync(parent);
    } catch {
      throw new PrivilegeError(
        `--user ${who.name}: the state dir ${dir} does not exist, nor does ${parent}; create it for the user: ` +
          `install -d -o ${who.name} -g ${who.group} -m 0700 ${dir}`,
        'state',
      );
    }
  } else if (!st.isDirectory()) {
    throw new PrivilegeError(`--user ${who.name}: the state dir ${dir} is not a directory; pass another --state-dir`, 'state');
  }
  // Reachable: every directory above it lets the user through (x).
  const real = st !== undefined ? realpathSync(dir) : join(realpathSync(dirname(dir)), '__tmkit_new__');
  for (const a of ancestors(real)) {
    const s = statSync(a);
    if (!canAccess(s, who, 'x'))
      throw new PrivilegeError(
        `--user ${who.name}: ${who.name} cannot reach the state dir ${dir}: ${a} (mode ${octal(s.mode)}, owner uid ${s.uid}) ` +
          `has no search permission for it; chmod o+x ${a} (or put the state dir somewhere ${who.name} can reach, e.g. /var/lib/tmkit)`,
        'state',
      );
  }
  if (st === undefined) {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, who.uid, who.gid);
    return dir;
  }
  const fix = `chown -R ${owner} ${dir}`;
  if (st.uid !== who.uid)
    throw new PrivilegeError(
      `--user ${who.name}: the state dir ${dir} is owned by uid ${st.uid}, not ${who.name} (uid ${who.uid}), who will write ` +
        `in it after the drop; give it to the user: ${fix}`,
      'state',
    );
  if ((st.mode & 0o700) !== 0o700)
    throw new PrivilegeError(
      `--user ${who.name}: the state dir ${dir} has mode ${octal(st.mode)}; its owner needs rwx: chmod 0700 ${dir}`,
      'state',
    );
  const foreign = walk(dir).filter((e) => e.st.uid !== who.uid);
  if (foreign.length > 0) {
    const shown = foreign
      .slice(0, 3)
      .map((e) => `${e.path} (uid ${e.st.uid})`)
      .join(', ');
    throw new PrivilegeError(
      `--user ${who.name}: ${foreign.length} file${foreign.length === 1 ? '' : 's'} in the state dir ${dir} ` +
        `belong${foreign.length === 1 ? 's' : ''} to another user (${shown}${foreign.length > 3 ? ', …' : ''}), ` +
        `probably from a start without --user; ${who.name} must own ${foreign.length === 1 ? 'it' : 'them'} to write ${foreign.length === 1 ? 'it' : 'them'}: ${fix}`,
      'state',
    );
  }
  return dir;
}

/**
 * A file the user reads after the drop (`--geoip`, `--latency-table`: DNS worker processes open them as the
 * user, a replaced one too): throws when `who` cannot read it.
 */
export function checkReadable(file: string, flag: string, who: TargetUser): void {
  const path = resolve(file);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return; // Missing: the option's own check says so.
  }
  for (const a of ancestors(real)) {
    const s = statSync(a);
    if (!canAccess(s, who, 'x'))
      throw new PrivilegeError(
        `--user ${who.name}: ${flag} ${file}: ${who.name} cannot reach it (${a}, mode ${octal(s.mode)}, has no search permission for it); chmod o+x ${a}`,
        'state',
      );
  }
  const s = statSync(real);
  if (!canAccess(s, who, 'r'))
    throw new PrivilegeError(
      `--user ${who.name}: ${flag} ${file} (mode ${octal(s.mode)}, owner uid ${s.uid}) is not readable by ${who.name}, ` +
        `who reads it after the drop; chgrp ${who.group} ${real} && chmod g+r ${real}`,
      'state',
    );
}

/**
 * After start, still as root: gives `who` whatever start-up made in the state dir as root (the database and
 * its journal, the lock and pid files, a new token, keys or cookie secret), so that the user can write them
 * now and a restart as the user opens them. Returns the paths it changed.
 */
export function handOverStateDir(dir: string, who: TargetUser): string[] {
  const changed: string[] = [];
  const st = statSync(dir);
  if (st.uid !== who.uid || st.gid !== who.gid) {
    chownSync(dir, who.uid, who.gid);
    changed.push(dir);
  }
  for (const e of walk(dir)) {
    if (e.st.uid === who.uid) continue;
    try {
      lchownSync(e.path, who.uid, who.gid);
      changed.push(e.path);
    } catch (err) {
      // Gone meanwhile (a SQLite lock directory, a temporary file renamed into place): nothing to give.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return changed;
}

/**
 * Becomes `who` for good: supplementary groups (what initgroups(3) would set: `id -G NAME`, plus `gid`), then
 * the gid, then the uid (in that order: after setuid there would be no right left to change groups). Then
 * checks that root cannot be had back. Synchronous, so no other JavaScript of this process runs in between.
 */
export function dropPrivileges(who: TargetUser): void {
  if (process.getuid!() === who.uid && process.geteuid!() === who.uid && process.getgid!() === who.gid) return;
  process.setgroups!(who.groups);
  process.setgid!(who.gid);
  process.setuid!(who.uid);
  if (process.getuid!() !== who.uid || process.geteuid!() !== who.uid || process.getgid!() !== who.gid || process.getegid!() !== who.gid)
    throw new Error(`--user ${who.name}: the switch to uid ${who.uid} gid ${who.gid} did not take`);
  let regained = false;
  try {
    process.setuid!(0);
    regained = true;
  } catch {
    // EPERM: as it must be.
  }
  if (regained) throw new Error(`--user ${who.name}: root could be regained after the switch; refusing to run`);
}

/** An EACCES from bind(2)/listen(2): a port below net.ipv4.ip_unprivileged_port_start without the right to it. */
export function isBindRefused(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || typeof e !== 'object') return false;
  if (e.code === 'EACCES' && (e.syscall === 'bind' || e.syscall === 'listen')) return true;
  // From a DNS worker process the error arrives as its message only.
  return typeof e.message === 'string' && /\b(bind|listen) EACCES\b/.test(e.message);
}

/** What to do about a refused privileged bind. */
export function bindRefusedHint(): string {
  return (
    'binding a port below 1024 needs root or the CAP_NET_BIND_SERVICE capability: run tmkit under systemd with ' +
    'AmbientCapabilities=CAP_NET_BIND_SERVICE (deploy/systemd/tmkit.service), give node the capability ' +
    '(setcap cap_net_bind_service=+ep "$(readlink -f "$(command -v node)")"), or start as root with ' +
    '--user NAME (it binds, then runs as NAME); in a container, --cap-add=NET_BIND_SERVICE'
  );
}
