/**
 * Routing tests declared in constructs (`profile.expect`, `RoutingTest`): `App.synth()` writes them beside
 * the document as tmkit.tests.json, the same file `tmkit test` reads, and refuses tests naming what the
 * document does not have.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Profile, RoutingTest, SynthError, TESTS_FILE } from '../../src/constructs';
import { parseRoutingTests, runRoutingTests } from '../../src/core/routing-tests';
import { normalize } from '../../src/core/model/normalize';
import { TableGeo } from '../../src/testing/geo-table';

function app(): { app: App; web: Profile; shop: Profile } {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'tmkit-ct-')), stack: 's' });
  const web = new Profile(app, 'web', { trafficRoutingMethod: 'Priority' });
  web.addExternalEndpoint('primary', { target: '192.0.2.1' });
  web.addExternalEndpoint('backup', { target: '192.0.2.2' });
  const shop = new Profile(app, 'shop', { trafficRoutingMethod: 'Weighted' });
  shop.addExternalEndpoint('blue', { target: '192.0.2.10', weight: 90 });
  shop.addExternalEndpoint('green', { target: '192.0.2.20', weight: 10 });
  return { app, web, shop };
}

test('synth writes the declared tests beside the document, and they pass against it', () => {
  const { app: a, web, shop } = app();
  web.expect('primary first', { expect: ['primary'] });
  web.expect('primary down: backup', { down: ['primary'], expect: ['backup'] });
  new RoutingTest(a, 'canary', { profile: shop, shares: { blue: 0.9, green: 0.1 } });
  new RoutingTest(a, 'by name', { profile: 'web', name: 'failover under 5 min', maxFailoverSeconds: 300 });
  const out = a.synth();
  expect(out.testsFile).toBe(join(a.outdir, TESTS_FILE));
  const raw = JSON.parse(readFileSync(out.testsFile!, 'utf8'));
  expect(raw.tests).toEqual([
    { name: 'primary first', profile: 'web', expect: ['primary'] },
    { name: 'primary down: backup', profile: 'web', down: ['primary'], expect: ['backup'] },
    { name: 'canary', profile: 'shop', shares: { blue: 0.9, green: 0.1 } },
    { name: 'failover under 5 min', profile: 'web', maxFailoverSeconds: 300 },
  ]);
  // The endpoints are still only the endpoints (a test is no endpoint of the profile).
  expect(out.document.profiles.find((p) => p.name === 'web')!.endpoints!.map((e) => e.name)).toEqual(['primary', 'backup']);
  const parsed = parseRoutingTests(raw);
  expect(parsed.problems).toEqual([]);
  const results = runRoutingTests({
    profiles: normalize(JSON.parse(readFileSync(out.file, 'utf8'))).profiles,
    tests: parsed.tests,
    geo: new TableGeo({}),
  });
  expect(results.map((r) => r.passed)).toEqual([true, true, true, true]);
});

test('no tests: no file, and a stale one from an earlier synth is removed', () => {
  const { app: a, web } = app();
  web.expect('t', { expect: ['primary'] });
  const first = a.synth();
  expect(existsSync(first.testsFile!)).toBe(true);
  const again = new App({ outdir: a.outdir });
  const p = new Profile(again, 'web', { trafficRoutingMethod: 'Priority' });
  p.addExternalEndpoint('primary', { target: '192.0.2.1' });
  const second = again.synth();
  expect(second.testsFile).toBeUndefined();
  expect(existsSync(join(a.outdir, TESTS_FILE))).toBe(false);
});

test('a test naming what the document lacks fails synth, at the test construct, and writes nothing', () => {
  const { app: a, web } = app();
  web.expect('typo', { down: ['primry'], expect: ['backup'] });
  new RoutingTest(a, 'nothing', { profile: 'wbe', expect: [] });
  let err: unknown;
  try {
    a.synth();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SynthError);
  const d = (err as SynthError).diagnostics;
  expect(d.map((x) => [x.code, x.constructPath, x.path])).toEqual([
    ['ROUTING_TEST_INVALID', 'web/test:typo', 'down[0]'],
    ['ROUTING_TEST_INVALID', 'nothing', 'profile'],
  ]);
  expect(d[0]!.message).toContain('did you mean primary?');
  expect(existsSync(join(a.outdir, 'tmkit.out.json'))).toBe(false);
});
