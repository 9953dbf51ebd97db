/**
 * `tmkit test`'s core: the tests file read with every problem and its path, the tests run with the routing
 * engine, and (property) a test built from the runtime's own resolve answer passes, one built from another
 * answer fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { normalize } from '../../../src/core/model/normalize';
import type { DocumentInput, Profile } from '../../../src/core/model/types';
import { buildSnapshot } from '../../../src/core/routing';
import {
  checkRoutingTests,
  parseRoutingTests,
  renderTestsJunit,
  renderTestsText,
  runRoutingTests,
  testQuery,
  type RoutingTest,
} from '../../../src/core/routing-tests';
import { resolveReport } from '../../../src/runtime/read-models';
import { TableGeo } from '../../../src/testing/geo-table';

const EXAMPLE = join(__dirname, '../../../examples/testing');
const profiles: Profile[] = normalize(JSON.parse(readFileSync(join(EXAMPLE, 'tmkit.out.json'), 'utf8')) as DocumentInput).profiles;
const byName = new Map(profiles.map((p) => [p.name, p] as const));
const geo = new TableGeo({
  locations: { '5.9.0.0/16': { country: 'DE' }, '2a02:908::/32': { country: 'DE' }, '8.8.8.0/24': { country: 'US' } },
  latency: { DE: { westeurope: 10, northeurope: 20, eastus: 90 }, US: { eastus: 10, westeurope: 90, northeurope: 95 } },
});
const run = (tests: RoutingTest[]) => runRoutingTests({ profiles, tests, geo });
const one = (t: Omit<RoutingTest, 'name'>) => run([{ name: 't', ...t }])[0]!;

describe('the tests file', () => {
  test('the example file reads without problems and passes against its document', () => {
    const parsed = parseRoutingTests(JSON.parse(readFileSync(join(EXAMPLE, 'tmkit.tests.json'), 'utf8')));
    expect(parsed.problems).toEqual([]);
    expect(checkRoutingTests({ profiles, tests: parsed.tests, geo })).toEqual([]);
    const results = run(parsed.tests);
    expect(results.filter((r) => !r.passed)).toEqual([]);
    expect(results).toHaveLength(12);
  });

  test('every shape problem at once, each with its path', () => {
    const { tests, problems } = parseRoutingTests({
      tests: [
        { name: 'ok', profile: 'web', expect: ['weu'] },
        { name: 'ok', profile: 'web', expect: 'weu' },
        { profile: 'web', client: '1.2.3.999', down: [1], maxFailoverSeconds: -1, expekt: [] },
        { name: 'nothing', profile: 'web' },
        { name: 'shares', profile: 'shop', shares: { blue: 2 }, tolerance: 5 },
        'x',
      ],
      extra: 1,
    });
    expect(tests.map((t) => t.name)).toEqual(['ok']);
    expect(problems.map((p) => p.path)).toEqual([
      'extra',
      'tests[1].name',
      'tests[1].expect',
      'tests[2].expekt',
      'tests[2].name',
      'tests[2].client',
      'tests[2].down',
      'tests[2].maxFailoverSeconds',
      'tests[3]',
      'tests[4].shares.blue',
      'tests[4].tolerance',
      'tests[5]',
    ]);
    expect(problems.find((p) => p.path === 'tests[2].expekt')!.message).toContain('did you mean expect?');
    expect(problems.find((p) => p.path === 'tests[3]')!.message).toContain('asserts nothing');
  });

  test('names the document does not have are problems with a did-you-mean', () => {
    const problems = checkRoutingTests({
      profiles,
      geo,
      tests: [
        { name: 'a', profile: 'wbe', expect: ['weu'] },
        { name: 'b', profile: 'web', down: ['weuu', 'web-eu/nope', 'location:japaneast', 'nochild/x'], expect: ['neuu'] },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual([
      'tests[0].profile',
      'tests[1].down[0]',
      'tests[1].down[1]',
      'tests[1].down[2]',
      'tests[1].down[3]',
      'tests[1].expect[0]',
    ]);
    expect(problems[0]!.message).toContain('did you mean web?');
    expect(problems[1]!.message).toContain('did you mean weu?');
    expect(problems[3]!.message).toContain("no endpoint of web's tree is in location 'japaneast'");
    expect(problems[5]!.message).toContain('did you mean neu?');
  });
});

describe('running', () => {
  test('a failing expectation says what was answered instead and why (the decision trace)', () => {
    const r = one({ profile: 'web', client: '5.9.0.1', expect: ['neu'] });
    expect(r.passed).toBe(false);
    expect(r.message).toBe('expected neu from 5.9.0.1; answered web-eu/weu');
    expect(r.details.join('\n')).toMatch(/\[web\] .*europe/);
    expect(r.details.some((d) => d.startsWith('[web-eu]'))).toBe(true);
  });

  test('down takes endpoint names, nested paths and location:NAME', () => {
    expect(one({ profile: 'web', client: '5.9.0.1', down: ['web-eu/weu'], expect: ['neu'] }).passed).toBe(true);
    expect(one({ profile: 'web', client: '5.9.0.1', down: ['europe/weu'], expect: ['neu'] }).passed).toBe(true);
    expect(one({ profile: 'api', client: '5.9.0.1', down: ['location:westeurope'], expect: ['eus'] }).passed).toBe(true);
    // The whole nested child down: Geographic has nowhere else for Europe, and answers it all the same.
    const all = one({ profile: 'web', client: '5.9.0.1', down: ['europe'], expect: ['weu'] });
    expect(all.passed).toBe(true);
  });

  test('[] means no answer; MultiValue is a set', () => {
    const r = one({ profile: 'pool', expect: ['a', 'b'] });
    expect(r.passed).toBe(false);
    expect(r.message).toContain('answered pool/a, pool/b, pool/c'.replace(/pool\//g, ''));
    expect(one({ profile: 'pool', type: 'AAAA', expect: [] }).passed).toBe(true);
    expect(one({ profile: 'pool', expect: [] }).message).toContain('expected no answer');
  });

  test('shares, with tolerance; an endpoint left out of shares fails', () => {
    expect(one({ profile: 'shop', shares: { blue: 0.9, green: 0.1 } }).passed).toBe(true);
    const off = one({ profile: 'shop', shares: { blue: 0.8, green: 0.2 }, tolerance: 0.05 });
    expect(off.passed).toBe(false);
    expect(off.message).toBe('expected shares blue 80%, green 20% (±5%); answered blue 90%, green 10%');
    expect(one({ profile: 'shop', shares: { blue: 0.9 } }).message).toContain('green 10%');
  });

  test('failover bound: the plan estimate with its formula', () => {
    const r = one({ profile: 'api', maxFailoverSeconds: 60 });
    expect(r.passed).toBe(false);
    expect(r.message).toBe('expected worst-case failover ≤ 60 s; it is 190 s (130 s over)');
    expect(r.details[0]).toContain('TTL 60 = 190 s');
    expect(one({ profile: 'api', maxFailoverSeconds: 200 }).passed).toBe(true);
  });

  test('single points of failure come from the plan scenarios', () => {
    const r = one({ profile: 'web', noSinglePointOfFailure: true });
    expect(r.passed).toBe(false);
    expect(r.message).toContain('us');
    expect(r.details.some((d) => d.startsWith('us down: still answered'))).toBe(true);
    expect(one({ profile: 'web-eu', noSinglePointOfFailure: true }).passed).toBe(true);
  });

  test('text and JUnit', () => {
    const results = run([
      { name: 'pass', profile: 'shop', shares: { blue: 0.9, green: 0.1 } },
      { name: 'fail <&>', profile: 'web', client: '5.9.0.1', expect: ['neu'] },
    ]);
    const text = renderTestsText(results);
    expect(text.split('\n')[0]).toBe('PASS  pass [shop]: shares blue 90%, green 10%');
    expect(text.split('\n')[1]).toBe('FAIL  fail <&> [web]: expected neu from 5.9.0.1; answered web-eu/weu');
    expect(text.trim().split('\n').pop()).toBe('1 test failed, 1 passed.');
    const xml = renderTestsJunit(results);
    expect(xml).toContain('<testsuite name="tmkit test" tests="2" failures="1" errors="0" skipped="0">');
    expect(xml).toContain('name="fail &lt;&amp;&gt;"');
  });
});

describe('property: a test built from the runtime resolve answer passes', () => {
  const leaves = profiles.flatMap((p) => p.endpoints.filter((e) => e.type !== 'nestedEndpoints').map((e) => `${p.name}/${e.name}`));
  const clients = ['5.9.0.1', '5.9.200.7', '8.8.8.8', '2a02:908::1', '10.2.3.4', '203.0.113.99', '127.0.0.1', '192.0.2.1'];
  const treeLeaves = (name: string): string[] => {
    const p = byName.get(name)!;
    return p.endpoints.flatMap((e) => (e.type === 'nestedEndpoints' ? treeLeaves(e.targetResourceId!) : [`${p.name}/${e.name}`]));
  };
  const arb = fc.constantFrom(...profiles.map((p) => p.name)).chain((profile) =>
    fc.record({
      profile: fc.constant(profile),
      client: fc.constantFrom(...clients),
      down: fc.subarray(treeLeaves(profile)),
      type: fc.constantFrom('A', 'AAAA', 'ANY', 'CNAME'),
    }),
  );
  test('expect = the endpoints /v1/resolve answers (when it has one outcome) with the same down set', () => {
    fc.assert(
      fc.property(arb, ({ profile, client, down, type }) => {
        const downSet = new Set(down);
        const snapshot = buildSnapshot({
          zone: 'tm.internal',
          profiles,
          geo,
          health: { verdict: (p, e) => (downSet.has(`${p}/${e}`) ? 'Degraded' : 'Online') },
        });
        const p = byName.get(profile)!;
        const name = `${p.dnsConfig.relativeName}.tm.internal`;
        const r = resolveReport(snapshot, { name, type, clientIp: client }, () => 0.5, 1);
        const t: RoutingTest = { name: 'p', profile, client, type, down };
        if (r.outcomes.length === 1) {
          const o = r.outcomes[0]!;
          const expectNames =
            o.records.length === 0 ? [] : o.endpoints.map((l) => (l.startsWith(`${profile}/`) ? l.slice(profile.length + 1) : l));
          expect(run([{ ...t, expect: expectNames }])[0]).toMatchObject({ passed: true });
          // Another answer fails: drop one endpoint, or expect one where there was none.
          const other =
            expectNames.length === 0 ? [leaves.find((l) => l.startsWith(`${profile}/`))!.slice(profile.length + 1)] : expectNames.slice(1);
          if (other.length > 0 || expectNames.length > 0) expect(run([{ ...t, expect: other }])[0]!.passed).toBe(false);
        } else {
          // Several outcomes (Weighted): the shares test built from them passes.
          const shares: Record<string, number> = {};
          for (const o of r.outcomes)
            for (const l of o.endpoints) {
              const n = l.startsWith(`${profile}/`) ? l.slice(profile.length + 1) : l;
              shares[n] = (shares[n] ?? 0) + o.probability;
            }
          if (r.outcomes.every((o) => o.records.length > 0)) expect(run([{ ...t, shares }])[0]).toMatchObject({ passed: true });
        }
        expect(testQuery(t, name).clientAddress).toBe(client);
      }),
      { numRuns: 300 },
    );
  });
});
