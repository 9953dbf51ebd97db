/**
 * The geo database at start-up (README.md "Installing"): serve opens it right after taking the state dir's
 * lock, so a bad one stops it with its code before the store or the token file exists; the preview names the code too. (The missing
 * package, GEO_DB_MISSING, needs an install without it: test/package/pack.test.ts.)
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tmkit } from './run';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-geo-startup-'));
  writeFileSync(join(dir, 'not.mmdb'), 'not a database');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('serve --geoip with a file that is not an MMDB: GEO_DATABASE_INVALID, before the store or the token is created', async () => {
  const state = join(dir, 'state');
  const r = await tmkit(['serve', '--state-dir', state, '--geoip', join(dir, 'not.mmdb'), '--dns', '127.0.0.1:0', '--api', '127.0.0.1:0'], {
    cwd: dir,
  });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(
    /^tmkit: serve: .*not\.mmdb: not a MaxMind DB \(\.mmdb\) file \(.*\); pass an \.mmdb file such as GeoLite2-City\.mmdb \(not \.csv or \.gz\) \[GEO_DATABASE_INVALID\]\n$/,
  );
  // Only the state dir's lock comes first (a second serve on the same dir stops there); no store, no token.
  expect(existsSync(join(state, 'tmkit.db'))).toBe(false);
  expect(existsSync(join(state, 'token'))).toBe(false);
  expect(readdirSync(state).filter((f) => !/lock/.test(f))).toEqual([]);
});

test('dns and preview --clients with a missing --geoip file name the file and the code', async () => {
  writeFileSync(
    join(dir, 'doc.json'),
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'p',
          trafficRoutingMethod: 'Performance',
          dnsConfig: { relativeName: 'p' },
          endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', endpointLocation: 'westeurope' }],
        },
      ],
    }),
  );
  const dns = await tmkit(['dns', '--document', 'doc.json', '--geoip', 'missing.mmdb', '--listen', '127.0.0.1:0'], { cwd: dir });
  expect(dns.code).toBe(1);
  expect(dns.stderr).toBe('tmkit: dns: missing.mmdb: cannot read the geo database (ENOENT); check the path [GEO_DATABASE_INVALID]\n');
  const preview = await tmkit(['preview', 'doc.json', '--geoip', 'missing.mmdb', '--clients', '8.8.8.8'], { cwd: dir });
  expect(preview.code).toBe(1);
  expect(preview.stderr).toBe(
    'tmkit: cannot open the geo database missing.mmdb: missing.mmdb: cannot read the geo database (ENOENT); check the path [GEO_DATABASE_INVALID]\n',
  );
  // With the package installed (the repository's devDependency) the same preview places the client.
  const ok = await tmkit(['preview', 'doc.json', '--clients', '8.8.8.8', '--format', 'json'], { cwd: dir });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('8.8.8.8');
});
