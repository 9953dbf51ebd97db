import { profileFqdn } from '../../../src/core/model/names';
import type { ProfileInput } from '../../../src/core/model/types';
import { diff, plannedProfiles, previewPlan, previewRouting, type ProfilePreview } from '../../../src/core/plan';
import { answer, buildSnapshot, resolve } from '../../../src/core/routing';
import { seededRng } from '../../../src/testing/rng';
import { deployedOf, doc, webScenario } from './fixtures';
import { clientAddress, countries, testGeo } from './geo';

const geo = testGeo();
const { desired, deployed } = webScenario();
const plan = diff(desired, deployed);
const preview = previewPlan(plan, deployed, geo, { clientRows: true });
const byName = (n: string): ProfilePreview => preview.profiles.find((p) => p.profile === n)!;

describe('routing preview of the web scenario', () => {
  test('previews every changed profile (no-op children only when a parent changes)', () => {
    expect(preview.profiles.map((p) => [p.profile, p.action])).toEqual([
      ['contoso-api', 'create'],
      ['contoso-geo', 'update'],
      ['contoso-web', 'update'],
      ['old-api', 'delete'],
      ['status', 'replace'],
    ]);
  });

  test('Weighted: exact shares before and after, and the change in points', () => {
    expect(byName('contoso-web').shares).toEqual([
      { endpoint: 'eu-canary', before: 0, after: 0.1, deltaPoints: 10 },
      { endpoint: 'eu-west', before: 0.5, after: 0.4, deltaPoints: -10 },
      { endpoint: 'legacy', before: 0.1, after: 0, deltaPoints: -10 },
      { endpoint: 'us-east', before: 0.4, after: 0.5, deltaPoints: 10 },
    ]);
  });

  test("Geographic: the Middle East moves from rest to Europe's child, summarised by group", () => {
    const g = byName('contoso-geo');
    const me = g.clientGroups!.filter((x) => x.before !== x.after);
    expect(me).toEqual([
      { group: 'GEO-ME', before: 'rest', after: 'contoso-eu/eu-primary', count: 15, clients: expect.arrayContaining(['AE', 'IL', 'SA']) },
    ]);
    expect(g.lostAnswer).toEqual([]);
  });

  test('Geographic: an endpoint that is not nested is a single point of failure for its regions', () => {
    const rows = byName('contoso-geo').scenarios;
    expect(rows.find((r) => r.down === 'americas')).toMatchObject({
      flags: ['single-point-of-failure'],
      goesTo: 'nowhere: its clients are still answered with it',
    });
    expect(rows.find((r) => r.down === 'contoso-eu/eu-primary')).toMatchObject({ flags: [], goesTo: 'contoso-eu/eu-backup (69)' });
  });

  test('Performance: every country → its nearest endpoint by the latency model', () => {
    const api = byName('contoso-api');
    const fr = api.clients!.find((c) => c.client === 'FR')!;
    const jp = api.clients!.find((c) => c.client === 'JP')!;
    const br = api.clients!.find((c) => c.client === 'BR')!;
    expect([fr.before, fr.after, jp.after, br.after]).toEqual([null, 'westeurope', 'japaneast', 'eastus']);
    expect(api.clients!.find((c) => c.client === 'unknown location')!.after).toBe('eastus 33.33% · japaneast 33.33% · westeurope 33.33%');
  });

  test('Priority: active endpoint and failover order; replace notes the DNS name move', () => {
    expect(byName('status').priority).toEqual({ before: { active: 'page', order: ['page'] }, after: { active: 'page', order: ['page'] } });
    expect(byName('status').notes.join(' ')).toMatch(/moves from status to status-v2/);
  });
});

describe('preview equals the routing engine on sampled clients', () => {
  const after = plannedProfiles(plan, deployed);
  const snapshot = buildSnapshot({ zone: 'tm.test', profiles: after.values(), geo, health: { verdict: () => 'Online' } });
  const strip = (root: string, paths: string[]): string =>
    paths.map((p) => (p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p)).join(' + ');
  const rng = seededRng(7);
  const sample = Array.from({ length: 40 }, () => countries[Math.floor(rng() * countries.length)]!);

  test.each(['contoso-geo', 'contoso-api'])('%s: 40 random countries answer as the preview says', (name) => {
    const p = after.get(name)!;
    const rows = byName(name).clients!;
    for (const country of sample) {
      const r = resolve(snapshot, {
        name: profileFqdn(p.dnsConfig.relativeName, 'tm.test'),
        type: 'A',
        clientAddress: clientAddress(country),
      });
      expect(r.outcomes).toHaveLength(1);
      expect([country, strip(name, r.outcomes[0]!.endpoints)]).toEqual([country, rows.find((c) => c.client === country)!.after]);
    }
  });

  test('contoso-web: 20,000 sampled answers match the previewed shares within 1 point', () => {
    const counts = new Map<string, number>();
    const r = seededRng(42);
    const N = 20000;
    for (let i = 0; i < N; i++) {
      const a = answer(snapshot, { name: 'www.tm.test', type: 'A', clientAddress: '192.0.2.1' }, r);
      const k = strip('contoso-web', a.endpoints);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const s of byName('contoso-web').shares!) {
      expect(Math.abs((counts.get(s.endpoint) ?? 0) / N - s.after!)).toBeLessThan(0.01);
    }
  });
});

describe('preview findings', () => {
  const ext = (name: string, extra: object = {}) => ({ name, type: 'externalEndpoints', target: `${name}.example.net`, ...extra });

  test('regions that lose their answer are flagged (WORLD mapping removed)', () => {
    const before: ProfileInput = {
      name: 'g',
      trafficRoutingMethod: 'Geographic',
      dnsConfig: { relativeName: 'g' },
      endpoints: [ext('eu', { geoMapping: ['GEO-EU'] }), ext('world', { geoMapping: ['WORLD'] })],
    };
    const after: ProfileInput = { ...before, endpoints: [ext('eu', { geoMapping: ['GEO-EU'] })] };
    const dep = deployedOf(doc('s', [before]));
    const p = diff(doc('s', [after]), dep);
    const pv = previewPlan(p, dep, geo, { clientRows: true }).profiles[0]!;
    expect(pv.lostAnswer).toContain('US');
    expect(pv.lostAnswer).toContain('unknown location');
    expect(pv.lostAnswer).not.toContain('FR');
    expect(pv.clientGroups!.find((g) => g.group === 'GEO-NA')).toMatchObject({ before: 'world', after: 'NODATA' });
  });

  test('states/provinces are client classes only when an endpoint maps one', () => {
    const p = (mapCa: boolean): ProfileInput => ({
      name: 'g',
      trafficRoutingMethod: 'Geographic',
      dnsConfig: { relativeName: 'g' },
      endpoints: [
        ext('us', { geoMapping: ['US'] }),
        ext('world', { geoMapping: ['WORLD'] }),
        ...(mapCa ? [ext('ca', { geoMapping: ['US-CA'] })] : []),
      ],
    });
    const classes = (mapCa: boolean) => previewPlan(diff(doc('s', [p(mapCa)]), []), [], geo, { clientRows: true }).profiles[0]!.clients!;
    expect(classes(false).map((c) => c.client)).not.toContain('US-TX');
    const withCa = classes(true);
    expect(withCa.find((c) => c.client === 'US-CA')!.after).toBe('ca');
    expect(withCa.find((c) => c.client === 'US-TX')!.after).toBe('us');
    expect(withCa.find((c) => c.client === 'US')!.after).toBe('us');
  });

  test('a nested endpoint whose child can never meet MinChildEndpoints never receives traffic', () => {
    const parent: ProfileInput = {
      name: 'p',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'p' },
      endpoints: [
        ext('primary', { priority: 1 }),
        { name: 'backup', type: 'nestedEndpoints', targetResourceId: 'c', priority: 2, minChildEndpoints: 3 },
      ],
    };
    const child: ProfileInput = {
      name: 'c',
      trafficRoutingMethod: 'Weighted',
      dnsConfig: { relativeName: 'c' },
      endpoints: [ext('c1'), ext('c2')],
    };
    const d = doc('s', [parent, child]);
    const pv = previewPlan(diff(d, []), [], geo).profiles.find((x) => x.profile === 'p')!;
    expect(pv.neverReceive).toEqual(['backup']);
    expect(pv.scenarios.find((s) => s.down === 'primary')).toMatchObject({ flags: ['single-point-of-failure'] });
  });

  test('Subnet: each range and the addresses outside every range', () => {
    const p: ProfileInput = {
      name: 'sn',
      trafficRoutingMethod: 'Subnet',
      dnsConfig: { relativeName: 'sn' },
      endpoints: [
        ext('corp', { subnets: [{ first: '10.0.0.0', scope: 8 }] }),
        ext('lab', { subnets: [{ first: '192.168.1.10', last: '192.168.1.20' }] }),
        ext('rest'),
      ],
    };
    const pv = previewPlan(diff(doc('s', [p]), []), [], geo, { clientRows: true }).profiles[0]!;
    expect(pv.clients!.map((c) => [c.client, c.after])).toEqual([
      ['10.0.0.0/8', 'corp'],
      ['192.168.1.10-192.168.1.20', 'lab'],
      ['other addresses', 'rest'],
    ]);
  });

  test("MultiValue: the returned set and each endpoint's share of answers", () => {
    const p: ProfileInput = {
      name: 'mv',
      trafficRoutingMethod: 'MultiValue',
      dnsConfig: { relativeName: 'mv' },
      maxReturn: 2,
      endpoints: [
        { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
        { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
        { name: 'c', type: 'externalEndpoints', target: '2001:db8::3' },
      ],
    };
    const pv = previewPlan(diff(doc('s', [p]), []), [], geo).profiles[0]!;
    expect(pv.multiValue).toEqual({ before: null, after: { set: ['a', 'b', 'c'], maxReturn: 2 } });
    expect(pv.shares!.map((s) => [s.endpoint, Math.round(s.after! * 1000) / 1000])).toEqual([
      ['a', 0.667],
      ['b', 0.667],
      ['c', 0.667],
    ]);
  });

  test('a changed child previews the parents that nest it, with the reason', () => {
    const before = webScenario().deployed;
    const desiredDoc = doc(
      'web',
      webScenario().desired.profiles.map((p) =>
        p.name === 'contoso-eu'
          ? { ...p, endpoints: p.endpoints.map((e) => (e.name === 'eu-primary' ? { ...e, endpointStatus: 'Disabled' as const } : e)) }
          : p,
      ) as never,
    );
    const pv = previewPlan(diff(desiredDoc, before), before, geo);
    const parent = pv.profiles.find((x) => x.profile === 'contoso-geo')!;
    expect(parent.action).toBe('update');
    const eu = pv.profiles.find((x) => x.profile === 'contoso-eu')!;
    expect(eu.priority).toEqual({
      before: { active: 'eu-primary', order: ['eu-primary', 'eu-backup'] },
      after: { active: 'eu-backup', order: ['eu-backup'] },
    });
    expect(parent.clientGroups!.find((g) => g.group === 'GEO-EU')).toMatchObject({
      before: 'contoso-eu/eu-primary',
      after: 'contoso-eu/eu-backup',
    });
  });

  test('only-child change: an unchanged parent is previewed as affected', () => {
    const base = webScenario().deployed.filter((d) => d.stack === 'web');
    const d = doc(
      'web',
      base.map((x) =>
        x.profile.name === 'contoso-eu'
          ? { ...x.profile, endpoints: [...x.profile.endpoints].reverse().map((e, i) => ({ ...e, priority: i + 1 })) }
          : x.profile,
      ) as never,
    );
    const pv = previewRouting({
      before: new Map(base.map((x) => [x.profile.name, x.profile])),
      after: plannedProfiles(diff(d, base), base),
      profiles: [{ name: 'contoso-geo', action: 'affected', reason: 'nests contoso-eu, which changes' }],
      geo,
    }).profiles[0]!;
    expect(pv.reason).toBe('nests contoso-eu, which changes');
    expect(pv.clientGroups!.find((g) => g.group === 'GEO-EU')).toMatchObject({
      before: 'contoso-eu/eu-primary',
      after: 'contoso-eu/eu-backup',
    });
  });
});

describe('resolving one client per class key gives the same preview as resolving every client', () => {
  const REGIONS = ['westeurope', 'eastus', 'japaneast', 'brazilsouth', 'australiaeast', 'northeurope'];
  const CODES = ['WORLD', 'GEO-EU', 'GEO-NA', 'GEO-AS', 'DE', 'FR', 'US', 'US-CA', 'JP', 'BR', 'GEO-AF'];
  test('random Geographic / Performance trees (fast-check)', () => {
    const fc = require('fast-check') as typeof import('fast-check');
    const ep = (i: number) =>
      fc
        .record({
          loc: fc.option(fc.constantFrom(...REGIONS), { nil: undefined }),
          codes: fc.subarray(CODES, { maxLength: 3 }),
          disabled: fc.boolean(),
        })
        .map((e) => ({
          name: `e${i}`,
          type: 'externalEndpoints',
          target: `e${i}.example.net`,
          ...(e.loc ? { endpointLocation: e.loc } : {}),
          geoMapping: e.codes,
          endpointStatus: e.disabled && i > 0 ? ('Disabled' as const) : ('Enabled' as const),
        }));
    fc.assert(
      fc.property(
        fc.constantFrom('Geographic', 'Performance'),
        fc.constantFrom('Geographic', 'Performance', 'Weighted'),
        fc.tuple(ep(0), ep(1), ep(2)),
        fc.tuple(ep(0), ep(1)),
        (topMethod, childMethod, topEps, childEps) => {
          // Unique codes per profile (validation's rule), so the test is about the engine, not invalid input.
          const uniq = <T extends { geoMapping: string[] }>(eps: T[]): T[] => {
            const used = new Set<string>();
            return eps.map((e) => ({ ...e, geoMapping: e.geoMapping.filter((c) => !used.has(c) && used.add(c)) }));
          };
          const child: ProfileInput = {
            name: 'child',
            trafficRoutingMethod: childMethod as 'Weighted',
            dnsConfig: { relativeName: 'child' },
            endpoints: uniq(childEps),
          };
          const top: ProfileInput = {
            name: 'top',
            trafficRoutingMethod: topMethod as 'Geographic',
            dnsConfig: { relativeName: 'top' },
            endpoints: [
              ...uniq(topEps),
              { name: 'n', type: 'nestedEndpoints', targetResourceId: 'child', endpointLocation: 'westeurope', geoMapping: ['GEO-ME'] },
            ],
          };
          const d = doc('s', [top, child]);
          const p = diff(d, []);
          const fast = previewPlan(p, [], geo, { clientRows: true });
          const slow = previewPlan(p, [], geo, { clientRows: true, exhaustive: true });
          expect(fast).toEqual(slow);
        },
      ),
      { numRuns: 25 },
    );
  });
});
