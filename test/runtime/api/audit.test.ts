/**
 * The reliability audit's defects (issue 28 item 10), each against a real API server on loopback:
 * - probe headers the prober could never send (CR, LF, NUL, non-ASCII values; hop-by-hop names) are refused
 *   at validation (400, CUSTOM_HEADER_VALUE / CUSTOM_HEADER_FORBIDDEN), not stored to turn a healthy
 *   endpoint Degraded;
 * - `GET /ui/%ff` without a token is a 400, with no error-level log and no stack trace;
 * - a client that aborts mid-request is not a server failure: no error-level log;
 * - a real full disk (a tmpfs filled up; root, as CI runs) answers the documented 507 STORAGE_FULL with every
 *   driver this Node has: node-sqlite3-wasm reports ENOSPC only as a disk I/O error (driver.ts).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeSqliteAvailable, SqliteStore, type SqliteDriverName } from '../../../src/runtime/store';
import { profileInput } from './fixtures';
import { call, startApi, TOKEN, type Harness } from './harness';

const unprobed = { endpoints: [{ name: 'a', type: 'externalEndpoints' as const, target: '192.0.2.10', alwaysServe: 'Enabled' as const }] };
const errorLogs = (h: Harness): string[] => h.logs.filter((l) => JSON.parse(l).level >= 50);

describe('the API', () => {
  let h: Harness;
  // The dashboard as `npm run build` made it (dist/ui), so the /ui/ route reaches its file lookup.
  beforeAll(async () => {
    h = await startApi({ uiDir: join(__dirname, '../../../dist/ui') });
  });
  afterAll(() => h.close());

  test.each([
    ['a value with CR LF', { name: 'X-Probe', value: 'ok\r\nX-Injected: 1' }, 'CUSTOM_HEADER_VALUE', 'value'],
    ['a value with NUL', { name: 'X-Probe', value: 'a\u0000b' }, 'CUSTOM_HEADER_VALUE', 'value'],
    ['a non-ASCII value', { name: 'X-Probe', value: 'café' }, 'CUSTOM_HEADER_VALUE', 'value'],
    ['Transfer-Encoding', { name: 'Transfer-Encoding', value: 'chunked' }, 'CUSTOM_HEADER_FORBIDDEN', 'name'],
    ['Connection', { name: 'connection', value: 'close' }, 'CUSTOM_HEADER_FORBIDDEN', 'name'],
  ])('a probe header with %s is refused with 400 and nothing is stored', async (_n, header, code, field) => {
    const p = profileInput('hdr', { monitorConfig: { protocol: 'HTTP', port: 80, path: '/', customHeaders: [header] } });
    const r = await call(h.base, 'PUT', '/v1/profiles/hdr', { body: p });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([expect.objectContaining({ code, path: `profiles[hdr].monitorConfig.customHeaders[0].${field}` })]);
    expect((await call(h.base, 'GET', '/v1/profiles/hdr')).status).toBe(404);
  });

  test('GET /ui/%ff without a token: 400, no error log, no stack trace', async () => {
    const before = h.logs.length;
    const r = await call(h.base, 'GET', '/ui/%ff', { auth: null });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      expect.objectContaining({ code: 'BAD_REQUEST', message: 'the path /ui/%ff is not valid percent-encoding' }),
    ]);
    expect(r.text).not.toContain('URIError');
    const logs = h.logs.slice(before);
    expect(logs.filter((l) => JSON.parse(l).level >= 50)).toEqual([]);
    expect(logs.join('')).not.toContain('stack');
  });

  test('a client that aborts mid-request is logged below error level', async () => {
    const before = h.logs.length;
    const port = Number(new URL(h.base).port);
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(
          `PUT /v1/profiles/gone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
        );
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 200);
      });
      s.on('error', reject);
    });
    // The request log line comes when the server has settled the request.
    const deadline = Date.now() + 5_000;
    while (!h.logs.slice(before).some((l) => JSON.parse(l).msg === 'api request') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const logs = h.logs.slice(before).map((l) => JSON.parse(l) as { level: number; msg: string; status?: number });
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'api request', status: 400 }));
    expect(errorLogs(h)).toEqual([]);
  });
});

describe('a full disk answers 507 STORAGE_FULL on every driver (a real tmpfs, filled up)', () => {
  let mount: string;
  beforeAll(() => {
    if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs: run it as root, as CI does');
    mount = mkdtempSync(join(tmpdir(), 'tmkit-enospc-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
  });
  afterAll(() => {
    if (!mount) return;
    execFileSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  /** Writes a file until the file system is full; returns its path (unlinking it frees the space). */
  function fill(dir: string): string {
    const file = join(dir, 'filler');
    const fd = openSync(file, 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break;
        }
      }
      for (;;) {
        try {
          writeSync(fd, chunk.subarray(0, 512));
        } catch {
          break;
        }
      }
    } finally {
      closeSync(fd);
    }
    return file;
  }

  const drivers: SqliteDriverName[] = nodeSqliteAvailable() ? ['wasm', 'node'] : ['wasm'];
  test.each(drivers)('driver %s', async (driver) => {
    const dir = join(mount, driver);
    mkdirSync(dir);
    const store = SqliteStore.open({ stateDir: dir, driver });
    const h = await startApi({ store, stateDir: dir });
    try {
      expect((await call(h.base, 'PUT', '/v1/profiles/web', { body: profileInput('web', unprobed) })).status).toBe(201);
      const filler = fill(mount);
      const big = profileInput('big', {
        trafficRoutingMethod: 'Weighted',
        endpoints: Array.from({ length: 200 }, (_, i) => ({
          name: `ep-${i}`,
          type: 'externalEndpoints' as const,
          target: `10.0.${i}.1`,
          alwaysServe: 'Enabled' as const,
        })),
      });
      const r = await call(h.base, 'PUT', '/v1/profiles/big', { body: big });
      expect({ status: r.status, code: r.body.errors?.[0]?.code }).toEqual({ status: 507, code: 'STORAGE_FULL' });
      expect(r.body.errors[0].message).toContain(`disk full at ${dir}: free space and retry`);
      expect((await call(h.base, 'GET', '/v1/profiles')).body.profiles.map((p: { name: string }) => p.name)).toEqual(['web']);
      unlinkSync(filler);
      expect((await call(h.base, 'PUT', '/v1/profiles/big', { body: big })).status).toBe(201);
    } finally {
      await h.close();
      await store.close();
    }
  });
});
