/**
 * The routing tests file (`tmkit test DOCUMENT TESTS.json`, docs/testing.md): its shape, read with every
 * problem at once and its path (`tests[2].down[0]`), then checked against the document (profiles, endpoint
 * names, `down` entries that exist), so a typo is a bad file (exit 2), never a silently passing test.
 */
import { findAzureRegion } from '../data';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import { parsePrefix } from '../net/ip';
import { closestValue } from '../validate/util';
import type { TestFileProblem } from './types';

/** One test as written. Every assertion given must hold; at least one is required. */
export interface RoutingTest {
  name: string;
  /** The profile whose DNS name is queried (a nested child may be tested on its own too). */
  profile: string;
  /** The client address (`81.2.69.142`) or an ECS subnet (`2a02:908::/32`); default `127.0.0.1`. */
  client?: string;
  /** Query type: A, AAAA, CNAME or ANY (default ANY: the endpoint whatever its record kind). */
  type?: string;
  /** Taken Degraded for the test: endpoint names, nested paths (`child/ep`) or `location:NAME`. */
  down?: string[];
  /** The endpoints answered (a set; for MultiValue all of them); `[]`: no answer (NODATA or NXDOMAIN). */
  expect?: string[];
  /** Worst-case failover (tmkit plan's estimate) at most this many seconds. */
  maxFailoverSeconds?: number;
  /** No single endpoint (or nested child) going down keeps clients on it or leaves them without an answer. */
  noSinglePointOfFailure?: boolean;
  /** Share of answers per endpoint (0–1); every answered endpoint must be listed (0 for none). */
  shares?: Record<string, number>;
  /** How far a share may be from the one given (default 0.001). */
  tolerance?: number;
}

export type { TestFileProblem };

export const DEFAULT_TOLERANCE = 0.001;
const KEYS = [
  'name',
  'profile',
  'client',
  'type',
  'down',
  'expect',
  'maxFailoverSeconds',
  'noSinglePointOfFailure',
  'shares',
  'tolerance',
] as const;
const ASSERTIONS = ['expect', 'maxFailoverSeconds', 'noSinglePointOfFailure', 'shares'] as const;
const TYPES = ['A', 'AAAA', 'CNAME', 'ANY'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== '');

/** The shape of the file, every problem at once. Tests with a problem are left out of `tests`. */
export function parseRoutingTests(raw: unknown): { tests: RoutingTest[]; problems: TestFileProblem[] } {
  const problems: TestFileProblem[] = [];
  const bad = (path: string, message: string): void => {
    problems.push({ path, message });
  };
  if (!isObj(raw) || !Array.isArray(raw.tests)) {
    bad('tests', 'the file is {"tests": [...]}: a list of tests, each with a name, a profile and an assertion');
    return { tests: [], problems };
  }
  for (const k of Object.keys(raw)) if (k !== 'tests' && k !== '$schema') bad(k, `unknown property '${k}' (the file has only "tests")`);
  const tests: RoutingTest[] = [];
  const names = new Map<string, number>();
  raw.tests.forEach((t: unknown, i: number) => {
    const at = `tests[${i}]`;
    const before = problems.length;
    if (!isObj(t)) {
      bad(at, 'a test is an object: {"name", "profile", and one of expect, maxFailoverSeconds, noSinglePointOfFailure, shares}');
      return;
    }
    for (const k of Object.keys(t)) {
      if (!(KEYS as readonly string[]).includes(k)) {
        const near = closestValue(k, KEYS);
        bad(`${at}.${k}`, `unknown property '${k}'${near ? `; did you mean ${near}?` : ''}`);
      }
    }
    if (typeof t.name !== 'string' || t.name.trim() === '') bad(`${at}.name`, 'name is required: a non-empty string');
    else if (names.has(t.name)) bad(`${at}.name`, `'${t.name}' is already the name of tests[${names.get(t.name)}]`);
    else names.set(t.name, i);
    if (typeof t.profile !== 'string' || t.profile === '')
      bad(`${at}.profile`, 'profile is required: the name of a profile of the document');
    if (t.client !== undefined) {
      if (typeof t.client !== 'string') bad(`${at}.client`, 'client is an IP address or a subnet (ECS), as a string');
      else {
        const p = parsePrefix(t.client, { strict: false });
        if ('error' in p) bad(`${at}.client`, p.error);
      }
    }
    if (t.type !== undefined && (typeof t.type !== 'string' || !TYPES.includes(t.type.toUpperCase())))
      bad(`${at}.type`, `type is one of ${TYPES.join(', ')}`);
    if (t.down !== undefined && !isStringList(t.down))
      bad(`${at}.down`, 'down is a list of endpoint names, nested paths (child/endpoint) or location:NAME');
    if (t.expect !== undefined && !isStringList(t.expect)) bad(`${at}.expect`, 'expect is a list of endpoint names ([] for no answer)');
    if (
      t.maxFailoverSeconds !== undefined &&
      !(typeof t.maxFailoverSeconds === 'number' && Number.isFinite(t.maxFailoverSeconds) && t.maxFailoverSeconds >= 0)
    )
      bad(`${at}.maxFailoverSeconds`, 'maxFailoverSeconds is a number of seconds, 0 or more');
    if (t.noSinglePointOfFailure !== undefined && t.noSinglePointOfFailure !== true)
      bad(`${at}.noSinglePointOfFailure`, 'noSinglePointOfFailure is true (leave it out otherwise)');
    if (t.shares !== undefined) {
      if (!isObj(t.shares) || Object.keys(t.shares).length === 0)
        bad(`${at}.shares`, 'shares is an object of endpoint name → share of answers from 0 to 1');
      else
        for (const [k, v] of Object.entries(t.shares))
          if (typeof v !== 'number' || !(v >= 0 && v <= 1)) bad(`${at}.shares.${k}`, `the share of ${k} is a number from 0 to 1`);
    }
    if (t.tolerance !== undefined) {
      if (typeof t.tolerance !== 'number' || !(t.tolerance >= 0 && t.tolerance < 1))
        bad(`${at}.tolerance`, 'tolerance is a number from 0 to 1');
      else if (t.shares === undefined) bad(`${at}.tolerance`, 'tolerance applies to shares only; this test has none');
    }
    if (!ASSERTIONS.some((a) => t[a] !== undefined)) bad(at, `the test asserts nothing: give one of ${ASSERTIONS.join(', ')}`);
    if (problems.length === before) tests.push(t as unknown as RoutingTest);
  });
  return { tests, problems };
}

/** A profile by name, exact or case-insensitive (ARM names compare case-insensitively). */
export function findProfile(profiles: ReadonlyMap<string, Profile>, name: string): Profile | undefined {
  return profiles.get(name) ?? [...profiles.values()].find((p) => p.name.toLowerCase() === name.toLowerCase());
}

/** Every profile of the tree under `root` (root first). */
export function treeOf(root: Profile, profiles: ReadonlyMap<string, Profile>): Profile[] {
  const out: Profile[] = [];
  const seen = new Set<string>();
  const walk = (p: Profile): void => {
    if (seen.has(p.name)) return;
    seen.add(p.name);
    out.push(p);
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints' || !e.targetResourceId) continue;
      const c = findProfile(profiles, childProfileName(e.targetResourceId));
      if (c) walk(c);
    }
  };
  walk(root);
  return out;
}

/** The canonical region of a location (`West Europe` → `westeurope`), else the text lower-cased without spaces. */
export function regionKey(location: string): string {
  return findAzureRegion(location)?.name ?? location.replace(/\s+/g, '').toLowerCase();
}

/**
 * What a `down` entry takes Degraded, as `profile/endpoint` pairs of the tree (a nested endpoint: every
 * endpoint under it, as the plan's failure scenarios do), or a message when it names nothing there.
 */
export function downTargets(
  entry: string,
  root: Profile,
  profiles: ReadonlyMap<string, Profile>,
  locationOf: (p: Profile, endpoint: string) => string | undefined,
): string[] | string {
  const tree = treeOf(root, profiles);
  const under = (p: Profile, name: string, seen = new Set<string>()): string[] => {
    const e = p.endpoints.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!e) return [];
    const here = [`${p.name}/${e.name}`];
    if (e.type !== 'nestedEndpoints' || !e.targetResourceId) return here;
    const c = findProfile(profiles, childProfileName(e.targetResourceId));
    if (!c || seen.has(c.name)) return here;
    seen.add(c.name);
    return c.endpoints.flatMap((x) => under(c, x.name, seen));
  };
  if (entry.toLowerCase().startsWith('location:')) {
    const want = regionKey(entry.slice('location:'.length));
    const hits = tree.flatMap((p) =>
      p.endpoints
        .filter((e) => e.type !== 'nestedEndpoints' && regionKey(locationOf(p, e.name) ?? '') === want)
        .map((e) => `${p.name}/${e.name}`),
    );
    if (hits.length > 0) return hits;
    const known = [...new Set(tree.flatMap((p) => p.endpoints.map((e) => locationOf(p, e.name)).filter((l): l is string => !!l)))];
    return `no endpoint of ${root.name}'s tree is in location '${entry.slice(9)}'${known.length ? ` (locations: ${known.join(', ')})` : ''}`;
  }
  const slash = entry.lastIndexOf('/');
  if (slash < 0) {
    const hit = under(root, entry);
    if (hit.length > 0) return hit;
    // A name of the tree below, when only one profile there has it (as `expect` names leaves).
    const owners = tree.slice(1).filter((p) => p.endpoints.some((e) => e.name.toLowerCase() === entry.toLowerCase()));
    if (owners.length === 1) return under(owners[0]!, entry);
    if (owners.length > 1)
      return `'${entry}' is an endpoint of ${owners.map((p) => p.name).join(' and ')}: write ${owners.map((p) => `${p.name}/${entry}`).join(' or ')}`;
    const near = closestValue(entry, [...new Set(tree.flatMap((p) => p.endpoints.map((e) => e.name)))]);
    return `profile ${root.name} has no endpoint '${entry}'${near ? `; did you mean ${near}?` : ''} (it has ${root.endpoints.map((e) => e.name).join(', ') || 'none'}; a nested one is child/endpoint)`;
  }
  const parent = entry.slice(0, slash);
  const ep = entry.slice(slash + 1);
  // `child/ep`: the child profile's name, or the path of nested endpoint names from the root.
  let p = tree.find((x) => x.name.toLowerCase() === parent.toLowerCase());
  if (!p) {
    let cur: Profile | undefined = root;
    for (const seg of parent.split('/')) {
      const e: Profile['endpoints'][number] | undefined = cur?.endpoints.find(
        (x) => x.name.toLowerCase() === seg.toLowerCase() && x.type === 'nestedEndpoints',
      );
      cur = e?.targetResourceId ? findProfile(profiles, childProfileName(e.targetResourceId)) : undefined;
    }
    p = cur;
  }
  if (!p)
    return `no profile '${parent}' is nested under ${root.name} (nested: ${
      tree
        .slice(1)
        .map((x) => x.name)
        .join(', ') || 'none'
    })`;
  const hit = under(p, ep);
  if (hit.length > 0) return hit;
  return `profile ${p.name} has no endpoint '${ep}' (it has ${p.endpoints.map((e) => e.name).join(', ') || 'none'})`;
}

/**
 * The answered leaves (`profile/endpoint` paths) an `expect` or `shares` name stands for: a leaf's path
 * relative to the tested profile (`weu`, `child/ep`), its endpoint name alone, or a nested endpoint of the
 * tested profile (every leaf under it).
 */
export function nameMatches(name: string, leaf: string, root: Profile, profiles: ReadonlyMap<string, Profile>): boolean {
  const n = name.toLowerCase();
  const l = leaf.toLowerCase();
  const r = root.name.toLowerCase();
  if (l === `${r}/${n}` || l === n || l.slice(l.lastIndexOf('/') + 1) === n) return true;
  const e = root.endpoints.find((x) => x.name.toLowerCase() === n && x.type === 'nestedEndpoints');
  if (!e?.targetResourceId) return false;
  const c = findProfile(profiles, childProfileName(e.targetResourceId));
  return c !== undefined && treeOf(c, profiles).some((p) => l.startsWith(`${p.name.toLowerCase()}/`));
}

/** The leaf endpoints of the tree, as `profile/endpoint`. */
export function treeLeaves(root: Profile, profiles: ReadonlyMap<string, Profile>): string[] {
  return treeOf(root, profiles).flatMap((p) => p.endpoints.filter((e) => e.type !== 'nestedEndpoints').map((e) => `${p.name}/${e.name}`));
}

/** Problems of tests against the document: unknown profiles, endpoints and `down` entries. */
export function checkTestsAgainst(
  tests: readonly RoutingTest[],
  profiles: ReadonlyMap<string, Profile>,
  locationOf: (p: Profile, endpoint: string) => string | undefined,
  indexOf: (t: RoutingTest) => number = (t) => tests.indexOf(t),
): TestFileProblem[] {
  const problems: TestFileProblem[] = [];
  for (const t of tests) {
    const at = `tests[${indexOf(t)}]`;
    const root = findProfile(profiles, t.profile);
    if (!root) {
      const near = closestValue(t.profile, [...profiles.keys()]);
      problems.push({
        path: `${at}.profile`,
        message: `the document has no profile '${t.profile}'${near ? `; did you mean ${near}?` : ''} (it has ${[...profiles.keys()].join(', ') || 'none'})`,
      });
      continue;
    }
    (t.down ?? []).forEach((d, j) => {
      const r = downTargets(d, root, profiles, locationOf);
      if (typeof r === 'string') problems.push({ path: `${at}.down[${j}]`, message: r });
    });
    const leaves = treeLeaves(root, profiles);
    const names = [
      ...(t.expect ?? []).map((n, j) => [n, `expect[${j}]`] as const),
      ...Object.keys(t.shares ?? {}).map((n) => [n, `shares.${n}`] as const),
    ];
    for (const [n, path] of names) {
      if (leaves.some((l) => nameMatches(n, l, root, profiles))) continue;
      const rel = leaves.map((l) => (l.startsWith(`${root.name}/`) ? l.slice(root.name.length + 1) : l));
      const near = closestValue(n, [...new Set([...rel.map((r) => r.slice(r.lastIndexOf('/') + 1)), ...rel])]);
      problems.push({
        path: `${at}.${path}`,
        message: `no endpoint '${n}' in ${root.name}'s tree${near ? `; did you mean ${near}?` : ''} (endpoints: ${rel.join(', ') || 'none'})`,
      });
    }
  }
  return problems;
}
