/**
 * `tmkit test DOCUMENT TESTS.json`, the real CLI process on real files: one line per test, exit 0 / 1 / 2,
 * every problem of a bad file at once with its path, JSON, and JUnit XML that an XML parser reads as a
 * JUnit report (testsuites > testsuite > testcase, failure elements with the why).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, tmkit } from './run';

const DOC = join(REPO, 'examples/testing/tmkit.out.json');
const TESTS = join(REPO, 'examples/testing/tmkit.tests.json');
const dir = mkdtempSync(join(tmpdir(), 'tmkit-test-'));
const write = (name: string, value: unknown): string => {
  const f = join(dir, name);
  writeFileSync(f, typeof value === 'string' ? value : JSON.stringify(value));
  return f;
};

const FAILING = {
  tests: [
    { name: 'DE goes to North Europe', profile: 'web', client: '5.9.0.1', expect: ['neu'] },
    { name: 'canary', profile: 'shop', shares: { blue: 0.9, green: 0.1 } },
    { name: 'fast failover', profile: 'api', maxFailoverSeconds: 60 },
    { name: 'no SPOF', profile: 'web', noSinglePointOfFailure: true },
  ],
};

test('the example passes: one line per test, exit 0', async () => {
  const r = await tmkit(['test', DOC, TESTS]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(13);
  expect(lines[0]).toBe('PASS  DE goes to West Europe [web]: answered weu from 5.9.0.1');
  expect(lines[2]).toBe('PASS  ECS subnet [web]: answered weu from 2a02:908::/32');
  expect(lines[12]).toBe('12 tests passed.');
});

test('a failing test says what was answered instead and why; exit 1', async () => {
  const r = await tmkit(['test', DOC, write('failing.json', FAILING)]);
  expect(r.code).toBe(1);
  const out = r.stdout.split('\n');
  expect(out[0]).toBe('FAIL  DE goes to North Europe [web]: expected neu from 5.9.0.1; answered web-eu/weu');
  // The decision trace, as tmkit resolve prints it, indented under the failure.
  expect(out[1]).toMatch(/^ {8}\[web\] /);
  expect(r.stdout).toMatch(/^ {8}\[web-eu\] .*weu/m);
  expect(r.stdout).toContain('PASS  canary [shop]: shares blue 90%, green 10%');
  expect(r.stdout).toContain('FAIL  fast failover [api]: expected worst-case failover ≤ 60 s; it is 190 s (130 s over)');
  expect(r.stdout).toMatch(/FAIL {2}no SPOF \[web\]: expected no single point of failure; .*us/);
  expect(out.filter((l) => l !== '').pop()).toBe('3 tests failed, 1 passed.');
});

test('a bad tests file: every problem with its path, exit 2, nothing run', async () => {
  const f = write('bad.json', {
    tests: [
      { name: 'x', profile: 'wbe', expect: ['weu'] },
      { name: 'y', profile: 'web', down: ['weuu'], expect: 'weu' },
      { name: 'z', profile: 'web', client: 'nope', expect: ['weu'] },
      { name: 'w', profile: 'web', down: ['weuu'], expect: ['weu'] },
    ],
  });
  const r = await tmkit(['test', DOC, f]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trim().split('\n');
  expect(lines).toEqual([
    `tmkit: ${f}: tests[1].expect: expect is a list of endpoint names ([] for no answer)`,
    `tmkit: ${f}: tests[2].client: "nope" is not an IPv4 or IPv6 address`,
    `tmkit: ${f}: tests[0].profile: the document has no profile 'wbe'; did you mean web? (it has web, web-eu, api, shop, office, pool)`,
    expect.stringMatching(
      new RegExp(
        `^tmkit: ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: tests\\[3\\]\\.down\\[0\\]: profile web has no endpoint 'weuu'; did you mean weu\\?`,
      ),
    ),
    `tmkit: ${f}: 4 problems; no test ran (docs/testing.md describes the file)`,
  ]);
});

test('a tests file that is not JSON, or missing, and an invalid document: exit 2', async () => {
  const notJson = await tmkit(['test', DOC, write('nj.json', '{"tests": [')]);
  expect(notJson.code).toBe(2);
  expect(notJson.stderr).toMatch(/^tmkit: tests file .*nj\.json is not valid JSON: line 1/);
  const missing = await tmkit(['test', DOC, join(dir, 'missing.json')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('no such file');
  const badDoc = await tmkit(['test', write('doc.json', { apiVersion: 'tmkit/v1', profiles: [{ name: 'x' }] }), TESTS]);
  expect(badDoc.code).toBe(2);
  expect(badDoc.stderr).toMatch(/is not a valid document: fix the errors above/);
});

test('--format json', async () => {
  const r = await tmkit(['test', DOC, write('failing2.json', FAILING), '--format', 'json']);
  expect(r.code).toBe(1);
  const j = JSON.parse(r.stdout) as { passed: number; failed: number; tests: Array<{ name: string; passed: boolean; details: string[] }> };
  expect(j.passed).toBe(1);
  expect(j.failed).toBe(3);
  expect(j.tests[0]).toMatchObject({ name: 'DE goes to North Europe', passed: false, profile: 'web' });
  expect(j.tests[0]!.details.length).toBeGreaterThan(0);
});

test('JUnit XML (--format junit and --junit FILE) parses as a JUnit report', async () => {
  const file = join(dir, 'report.xml');
  const r = await tmkit(['test', DOC, write('failing3.json', FAILING), '--format', 'junit', '--junit', file]);
  expect(r.code).toBe(1);
  expect(readFileSync(file, 'utf8')).toBe(r.stdout);
  // @xmldom/xmldom (a dependency of the dev tooling) as a strict parser: any error throws.
  const { DOMParser } = require('@xmldom/xmldom') as typeof import('@xmldom/xmldom');
  const doc = new DOMParser({
    onError: (level: string, msg: string) => {
      throw new Error(`${level}: ${msg}`);
    },
  }).parseFromString(r.stdout, 'text/xml');
  const root = doc.documentElement!;
  expect(root.nodeName).toBe('testsuites');
  const suites = root.getElementsByTagName('testsuite');
  expect(suites.length).toBe(1);
  expect(suites[0]!.getAttribute('tests')).toBe('4');
  expect(suites[0]!.getAttribute('failures')).toBe('3');
  const cases = Array.from(suites[0]!.getElementsByTagName('testcase'));
  expect(cases.map((c) => [c.getAttribute('classname'), c.getAttribute('name'), c.getElementsByTagName('failure').length])).toEqual([
    ['web', 'DE goes to North Europe', 1],
    ['shop', 'canary', 0],
    ['api', 'fast failover', 1],
    ['web', 'no SPOF', 1],
  ]);
  const failure = cases[0]!.getElementsByTagName('failure')[0]!;
  expect(failure.getAttribute('message')).toBe('expected neu from 5.9.0.1; answered web-eu/weu');
  expect(failure.textContent).toContain('[web-eu]');
  // Passing run: text on stdout, the report in the file.
  const ok = await tmkit(['test', DOC, TESTS, '--junit', file]);
  expect(ok.code).toBe(0);
  expect(readFileSync(file, 'utf8')).toContain('failures="0"');
});

describe('tmkit plan runs the tests beside the document (tmkit.tests.json)', () => {
  const EMPTY = write('empty.json', { apiVersion: 'tmkit/v1', stack: 'testing', profiles: [] });

  test('passing: a section in text, Markdown and JSON, exit 0', async () => {
    const text = await tmkit(['plan', DOC, '--deployed', EMPTY, '--no-preview']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Routing tests (examples/testing/tmkit.tests.json): 12 tests passed.');
    expect(text.stdout).toContain('  PASS  DE goes to West Europe [web]: answered weu from 5.9.0.1');
    const md = await tmkit(['plan', DOC, '--deployed', EMPTY, '--no-preview', '--format', 'markdown']);
    expect(md.stdout).toContain('**Routing tests (examples/testing/tmkit.tests.json): 12 tests passed.**');
    const json = JSON.parse((await tmkit(['plan', DOC, '--deployed', EMPTY, '--no-preview', '--format', 'json'])).stdout) as {
      tests: { file: string; results: Array<{ passed: boolean }>; problems: unknown[] };
    };
    expect(json.tests.file).toBe('examples/testing/tmkit.tests.json');
    expect(json.tests.results.map((r) => r.passed)).toEqual(new Array(12).fill(true));
  });

  test('failing: shown in the plan (a CAUTION in Markdown), one stderr line, exit 1; no file: no section', async () => {
    const app = mkdtempSync(join(dir, 'plan-'));
    const doc = join(app, 'tmkit.out.json');
    writeFileSync(doc, readFileSync(DOC));
    writeFileSync(join(app, 'tmkit.tests.json'), JSON.stringify(FAILING));
    const md = await tmkit(['plan', doc, '--deployed', EMPTY, '--no-preview', '--format', 'markdown'], { cwd: app });
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('> **Routing tests (tmkit.tests.json): 3 tests failed, 1 passed.**');
    expect(md.stdout).toContain('FAIL  DE goes to North Europe [web]: expected neu from 5.9.0.1; answered web-eu/weu');
    expect(md.stderr).toContain('tmkit: routing tests tmkit.tests.json: 3 tests failed (see the plan)');
    writeFileSync(join(app, 'tmkit.tests.json'), JSON.stringify({ tests: [{ name: 'x', profile: 'wbe', expect: [] }] }));
    const bad = await tmkit(['plan', doc, '--deployed', EMPTY, '--no-preview'], { cwd: app });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('Routing tests (tmkit.tests.json): the file has 1 problem; no test ran.');
    expect(bad.stdout).toContain("tests[0].profile: the document has no profile 'wbe'; did you mean web?");
    const none = await tmkit(['plan', DOC.replace('testing', 'basic'), '--deployed', EMPTY, '--no-preview']);
    expect(none.stdout).not.toContain('Routing tests');
  });
});
