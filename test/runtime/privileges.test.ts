/** runtime/privileges.ts's pure parts: the --user syntax, who may touch a file, the user database read, the plan, EACCES. */
import { canAccess, dropPlan, isBindRefused, parseUserSpec, PrivilegeError, resolveUser, type Getent } from '../../src/runtime/privileges';

const db: Record<string, string[]> = {
  'passwd tmkit': ['tmkit', 'x', '999', '998', '', '/var/lib/tmkit', '/usr/sbin/nologin'],
  'passwd root': ['root', 'x', '0', '0', 'root', '/root', '/bin/bash'],
  'group 998': ['tmkit', 'x', '998', ''],
  'group geo': ['geo', 'x', '1200', 'tmkit'],
};
const getent: Getent = (d, k) => db[`${d} ${k}`];

test('--user NAME[:GROUP] syntax', () => {
  expect(parseUserSpec('tmkit')).toEqual({ user: 'tmkit' });
  expect(parseUserSpec('tmkit:geo')).toEqual({ user: 'tmkit', group: 'geo' });
  for (const bad of ['', ':geo', 'a b', 'tmkit:', 'tmkit:geo:x', '-rf']) expect(() => parseUserSpec(bad)).toThrow(PrivilegeError);
});

test('resolveUser: ids from the user database, GROUP replaces the primary group, root and unknown names are refused (exit 2)', () => {
  expect(resolveUser('tmkit', getent)).toMatchObject({ name: 'tmkit', uid: 999, gid: 998, group: 'tmkit' });
  expect(resolveUser('tmkit:geo', getent)).toMatchObject({ uid: 999, gid: 1200, group: 'geo' });
  const refused = (spec: string): PrivilegeError => {
    try {
      resolveUser(spec, getent);
    } catch (err) {
      return err as PrivilegeError;
    }
    throw new Error(`${spec} was accepted`);
  };
  expect(refused('nosuch')).toMatchObject({ kind: 'usage', message: expect.stringContaining('useradd --system') });
  expect(refused('tmkit:nosuch')).toMatchObject({ kind: 'usage', message: expect.stringContaining('no group nosuch') });
  expect(refused('root')).toMatchObject({ kind: 'usage', message: expect.stringContaining('that is root') });
});

test('dropPlan: root drops, the same user has nothing to drop, another user is a usage error', () => {
  const who = { name: 'tmkit', uid: 999, gid: 998, group: 'tmkit', groups: [998] };
  expect(dropPlan(who, 'tmkit', { uid: 0, gid: 0 })).toBe('drop');
  expect(dropPlan(who, 'tmkit', { uid: 999, gid: 998 })).toBe('none');
  expect(() => dropPlan(who, 'tmkit', { uid: 1000, gid: 1000 })).toThrow(/only root can switch/);
  expect(() => dropPlan(who, 'tmkit', { uid: 999, gid: 1000 })).toThrow(/only root can switch/);
});

test('canAccess: the owner bits for the owner, the group bits for a member, the other bits for the rest', () => {
  const who = { uid: 999, gid: 998, groups: [998, 1200] };
  expect(canAccess({ mode: 0o700, uid: 999, gid: 0 }, who, 'rwx')).toBe(true);
  expect(canAccess({ mode: 0o700, uid: 0, gid: 0 }, who, 'x')).toBe(false);
  expect(canAccess({ mode: 0o750, uid: 0, gid: 1200 }, who, 'rx')).toBe(true);
  expect(canAccess({ mode: 0o750, uid: 0, gid: 1200 }, who, 'w')).toBe(false);
  expect(canAccess({ mode: 0o701, uid: 0, gid: 0 }, who, 'x')).toBe(true);
  // The owner class decides even when it grants less than "other" (as the kernel does).
  expect(canAccess({ mode: 0o007, uid: 999, gid: 0 }, who, 'r')).toBe(false);
});

test('isBindRefused: EACCES from bind/listen, or its message from a DNS worker; not a file EACCES', () => {
  const e = (code: string, syscall: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code, syscall });
  expect(isBindRefused(e('EACCES', 'bind', 'bind EACCES 0.0.0.0:53'))).toBe(true);
  expect(isBindRefused(e('EACCES', 'listen', 'listen EACCES: permission denied 127.0.0.1:80'))).toBe(true);
  expect(isBindRefused(new Error('bind EACCES 127.0.0.1:53'))).toBe(true);
  expect(isBindRefused(e('EACCES', 'open', "EACCES: permission denied, open '/x/tmkit.db'"))).toBe(false);
  expect(isBindRefused(e('EADDRINUSE', 'bind', 'bind EADDRINUSE 0.0.0.0:53'))).toBe(false);
});
