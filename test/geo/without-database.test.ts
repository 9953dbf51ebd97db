/**
 * The geo database is an optional peer dependency (README.md "Installing"). Without it the routing preview
 * runs on MmdbGeoLookup.withoutDatabase(): its clients (one per country and state/province) carry their
 * own location, so the preview must be the same as with the database. Real addresses cannot be placed.
 * The error for a missing package (GEO_DB_MISSING) names the package, the version and the command; the
 * packed-install test (test/package/pack.test.ts) sees it from a real install without the package.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES } from '../../src/core/codes';
import { normalize } from '../../src/core/model/normalize';
import type { DocumentInput } from '../../src/core/model/types';
import { diff, plannedProfiles, previewRouting } from '../../src/core/plan';
import {
  countryDatabaseInstalled,
  DEFAULT_COUNTRY_DATABASE_INSTALL,
  DEFAULT_COUNTRY_DATABASE_PACKAGE,
  DEFAULT_COUNTRY_DATABASE_VERSION,
  geoDatabaseMissing,
  MmdbGeoLookup,
  parseLatencyTable,
} from '../../src/geo';

const REPO = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

test('the version in the message is the tested one: the devDependency, and the peer range is ^ it (optional)', () => {
  expect(pkg.devDependencies[DEFAULT_COUNTRY_DATABASE_PACKAGE]).toBe(DEFAULT_COUNTRY_DATABASE_VERSION);
  expect(pkg.peerDependencies[DEFAULT_COUNTRY_DATABASE_PACKAGE]).toBe(`^${DEFAULT_COUNTRY_DATABASE_VERSION}`);
  expect(pkg.peerDependenciesMeta[DEFAULT_COUNTRY_DATABASE_PACKAGE]).toEqual({ optional: true });
  expect(pkg.dependencies[DEFAULT_COUNTRY_DATABASE_PACKAGE]).toBeUndefined();
  expect(DEFAULT_COUNTRY_DATABASE_INSTALL).toBe('npm install @ip-location-db/geo-whois-asn-country-mmdb@2.3.2026061719');
});

test('GEO_DB_MISSING: a GeoError naming the package, the version, who needs it and the command', () => {
  const e = geoDatabaseMissing();
  expect(e.code).toBe('GEO_DB_MISSING');
  expect(CODES.GEO_DB_MISSING.family).toBe('geo');
  expect(e.message).toBe(
    'the geo database @ip-location-db/geo-whois-asn-country-mmdb (^2.3.2026061719, an optional peer dependency of tmkit) is not installed; ' +
      'it places DNS clients for Geographic and Performance routing. Install it next to tmkit: npm install @ip-location-db/geo-whois-asn-country-mmdb@2.3.2026061719 ' +
      '(or pass --geoip FILE.mmdb, a city-level database used alone)',
  );
});

test("in the repository the package is installed (a devDependency), so README's `npx tmkit serve` works", () => {
  expect(countryDatabaseInstalled()).toBe(true);
});

test('withoutDatabase places no address and estimates latency from the location it is given, as the database-backed lookup does', () => {
  const none = MmdbGeoLookup.withoutDatabase();
  const db = MmdbGeoLookup.openSync();
  expect(none.describe().databases).toEqual([]);
  expect(db.locate('194.25.2.129')?.country).toBe('DE');
  expect(none.locate('194.25.2.129')).toBeUndefined();
  for (const [geo, region] of [
    [{ country: 'DE' }, 'westeurope'],
    [{ country: 'US', subdivision: 'US-CA' }, 'westus'],
    [{ country: 'JP' }, 'eastus'],
  ] as const) {
    const ms = none.latencyMs('100::1', geo, region);
    expect(typeof ms).toBe('number');
    expect(ms).toBe(db.latencyMs('100::1', geo, region));
  }
  expect(none.latencyMs('100::1', undefined, 'westeurope')).toBeUndefined();
  // A measured table's country rows apply without a database too.
  const table = parseLatencyTable({ DE: { westeurope: 3 } }, 't.json');
  expect(MmdbGeoLookup.withoutDatabase({ latencyTable: table }).latencyMs('100::1', { country: 'DE' }, 'westeurope')).toBe(3);
  // The constructor alone still refuses an empty list (withoutDatabase is the explicit way).
  expect(() => new MmdbGeoLookup({ databases: [] })).toThrow(RangeError);
});

const GEOGRAPHIC: DocumentInput = {
  apiVersion: 'tmkit/v1',
  profiles: [
    {
      name: 'geo',
      trafficRoutingMethod: 'Geographic',
      dnsConfig: { relativeName: 'geo' },
      monitorConfig: { protocol: 'TCP', port: 443 },
      endpoints: [
        { name: 'eu', type: 'externalEndpoints', target: '192.0.2.1', geoMapping: ['GEO-EU'] },
        { name: 'ca', type: 'externalEndpoints', target: '192.0.2.2', geoMapping: ['US-CA', 'JP'] },
        { name: 'rest', type: 'externalEndpoints', target: '192.0.2.3', geoMapping: ['WORLD'] },
      ],
    },
  ],
};

test.each([
  [
    'examples/nested (Performance, Weighted, nested)',
    () => JSON.parse(readFileSync(join(REPO, 'examples/nested/tmkit.out.json'), 'utf8')) as DocumentInput,
  ],
  ['a Geographic profile (continent, state, country, WORLD)', () => GEOGRAPHIC],
])('the routing preview of %s is the same without the database', (_name, load) => {
  const doc = normalize(load());
  const preview = (geo: MmdbGeoLookup) => {
    const plan = diff(doc, []);
    return previewRouting({
      before: new Map(),
      after: plannedProfiles(plan, []),
      profiles: doc.profiles.map((p) => ({ name: p.name, action: 'preview' as const })),
      geo,
      clients: [],
      scenarios: true,
    });
  };
  const withDb = preview(MmdbGeoLookup.openSync());
  expect(JSON.stringify(withDb).length).toBeGreaterThan(1000);
  expect(preview(MmdbGeoLookup.withoutDatabase())).toEqual(withDb);
});
