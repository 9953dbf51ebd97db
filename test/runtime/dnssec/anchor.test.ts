/**
 * `tmkit dnssec anchor` (issue 39 item 10): the trust anchor of a private zone as validators want it, printed by
 * the real CLI from a real `tmkit serve --dnssec --dnssec-keys split`, and given as is to real validators:
 * BIND's delv reads the `--format bind` block with `-a`, unbound reads the `--format unbound` lines
 * (`trust-anchor:`) or the `--format dnskey` records (`trust-anchor-file:`), each with a stub zone to tmkit on
 * loopback. Both validate a signed answer; a tampered anchor makes both fail. During a KSK rollover both KSKs
 * are printed and stderr says so; a validator given both, or only the new one, validates.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import type { DnssecReport } from '../../../src/core/api';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { waitFor } from '../../support/wait';
import { delv, startUnbound, type Unbound } from './support';

jest.setTimeout(120_000);

const ZONE = 'tm.internal';
const NAME = 'web.tm.internal';
let dir: string;
let files: string;
let serve: ServeProcess;
let client: TmkitClient;
let report: DnssecReport;
const unbounds: Unbound[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-anchor-'));
  files = mkdtempSync(join(tmpdir(), 'tmkit-anchor-files-'));
  serve = await spawnServe(dir, ['--dnssec', '--dnssec-keys', 'split', '--workers', '1']);
  client = new TmkitClient({ server: serve.api, token: readFileSync(join(dir, 'token'), 'utf8').trim(), env: {} });
  await client.putProfile({
    name: 'web',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'web', ttl: 5 },
    endpoints: [{ name: 'a', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' }],
  });
  report = await client.dnssec();
  await waitFor(async () => (await delvWith(await anchor('bind'))).validated, {
    what: 'web answered and validated',
    timeoutMs: 30_000,
    intervalMs: 300,
  });
}, 120_000);

afterAll(async () => {
  for (const u of unbounds) await u.stop();
  await client?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.closed;
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(files, { recursive: true, force: true });
});

/** `tmkit dnssec anchor --format FORMAT` against the running server; stdout (stderr kept for the rollover test). */
async function anchorRun(format: string): Promise<{ stdout: string; stderr: string }> {
  const r = await runTmkit(['dnssec', 'anchor', '--format', format, '--server', serve.api, '--state-dir', dir]);
  expect({ code: r.code, format }).toEqual({ code: 0, format });
  return r;
}
const anchor = async (format: string): Promise<string> => (await anchorRun(format)).stdout;

let fileNo = 0;
function file(text: string): string {
  const f = join(files, `anchor-${++fileNo}`);
  writeFileSync(f, text);
  return f;
}

const delvWith = (bindBlock: string) => delv(serve.dns.port, file(bindBlock), ZONE, NAME, 'A');

async function unboundWith(conf: string[]): Promise<Unbound> {
  const u = await startUnbound(ZONE, [], serve.dns.port, conf);
  unbounds.push(u);
  return u;
}

/** The same anchor with one character of its public key changed (still base64, another key). */
function tamper(text: string, publicKey: string): string {
  const i = 20;
  const swapped = `${publicKey.slice(0, i)}${publicKey[i] === 'A' ? 'B' : 'A'}${publicKey.slice(i + 1)}`;
  expect(text).toContain(publicKey);
  return text.replace(publicKey, swapped);
}

const publicKeyOf = (dnskey: string): string => dnskey.split(/\s+/).slice(7).join('');

test('every format holds the KSK only (not the ZSK): unbound, bind, dnskey, ds, json', async () => {
  const ksk = report.keys.find((k) => k.role === 'ksk')!;
  const zsk = report.keys.find((k) => k.role === 'zsk')!;
  const key = publicKeyOf(ksk.dnskey);
  const json = JSON.parse(await anchor('json'));
  expect(json).toEqual({
    zone: ZONE,
    anchors: [{ keyTag: ksk.keyTag, role: 'ksk', state: 'active', flags: 257, algorithm: 13, dnskey: ksk.dnskey, ds: ksk.ds }],
  });
  expect(await anchor('unbound')).toBe(`trust-anchor: "tm.internal. DNSKEY 257 3 13 ${key}"\n`);
  expect(await anchor('bind')).toBe(`trust-anchors {\n\t"tm.internal." static-key 257 3 13 "${key}";\n};\n`);
  expect(await anchor('dnskey')).toBe(`${ksk.dnskey}\n`);
  expect(await anchor('ds')).toBe(`${ksk.ds}\n`);
  // `dnssec ds` prints the same DS; the default format is dnskey; the ZSK is in none of them.
  expect((await runTmkit(['dnssec', 'ds', '--server', serve.api, '--state-dir', dir])).stdout).toBe(`${ksk.ds}\n`);
  const plain = await runTmkit(['dnssec', 'anchor', '--server', serve.api, '--state-dir', dir]);
  expect({ code: plain.code, stdout: plain.stdout, stderr: plain.stderr }).toEqual({ code: 0, stdout: `${ksk.dnskey}\n`, stderr: '' });
  for (const f of ['unbound', 'bind', 'dnskey', 'json']) expect(await anchor(f)).not.toContain(publicKeyOf(zsk.dnskey));
});

test('--key-file reads the same anchor from the state dir without a server; a bad format is a usage error', async () => {
  for (const format of ['bind', 'unbound', 'json']) {
    const r = await runTmkit(['dnssec', 'anchor', '--format', format, '--key-file', join(dir, 'dnssec-keys.json')]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: await anchor(format) });
  }
  const bad = await runTmkit(['dnssec', 'anchor', '--format', 'named', '--key-file', join(dir, 'dnssec-keys.json')]);
  expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(/--format.*named.*unbound, bind/) });
  const missing = await runTmkit(['dnssec', 'anchor', '--key-file', join(dir, 'nope.json')]);
  expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/nope\.json: no such file/) });
});

test('delv -a <the --format bind output> fully validates a signed answer; a tampered anchor does not', async () => {
  const block = await anchor('bind');
  const good = await delvWith(block);
  expect(good.validated).toBe(true);
  expect(good.out).toMatch(/web\.tm\.internal\.\s+\d+\s+IN\s+A\s+192\.0\.2\.1/);
  const key = publicKeyOf(report.keys.find((k) => k.role === 'ksk')!.dnskey);
  const bad = await delvWith(tamper(block, key));
  expect(bad.validated).toBe(false);
  expect(bad.out).toMatch(/resolution failed|no valid|broken trust chain|insecurity proof failed|SERVFAIL/i);
});

test('unbound with the --format unbound lines (trust-anchor:) sets AD; with a tampered anchor it answers SERVFAIL', async () => {
  const lines = (await anchor('unbound')).trim().split('\n');
  const good = await (await unboundWith(lines)).query(NAME, 'A');
  expect({ status: good.status, ad: good.flags.includes('ad') }).toEqual({ status: 'NOERROR', ad: true });
  expect(good.answer.filter((a) => a[3] === 'A').map((a) => a[4])).toEqual(['192.0.2.1']);
  const key = publicKeyOf(report.keys.find((k) => k.role === 'ksk')!.dnskey);
  const bad = await (await unboundWith(lines.map((l) => tamper(l, key)))).query(NAME, 'A');
  expect({ status: bad.status, ad: bad.flags.includes('ad') }).toEqual({ status: 'SERVFAIL', ad: false });
});

test('unbound with the --format dnskey records as its trust-anchor-file: sets AD', async () => {
  const f = file(await anchor('dnskey'));
  const r = await (await unboundWith([`trust-anchor-file: "${f}"`])).query(NAME, 'A');
  expect({ status: r.status, ad: r.flags.includes('ad') }).toEqual({ status: 'NOERROR', ad: true });
});

test('during a KSK rollover both KSKs are printed and stderr says so; both, or the new one alone, validate', async () => {
  const roll = await runTmkit(['dnssec', 'rollover', '--ksk', '--server', serve.api, '--state-dir', dir]);
  expect(roll.code).toBe(0);
  const after = await client.dnssec();
  const [oldKsk, newKsk] = after.keys.filter((k) => k.role === 'ksk');
  expect(oldKsk!.keyTag).toBe(report.keys.find((k) => k.role === 'ksk')!.keyTag);

  const json = await anchorRun('json');
  expect(JSON.parse(json.stdout).anchors.map((a: { keyTag: number }) => a.keyTag)).toEqual([oldKsk!.keyTag, newKsk!.keyTag]);
  const bind = await anchorRun('bind');
  expect(bind.stderr).toMatch(
    new RegExp(
      `zone tm\\.internal: 2 trust anchors, a key rollover is under way: KSK ${oldKsk!.keyTag} \\(\\w+\\), KSK ${newKsk!.keyTag} \\(\\w+\\)`,
    ),
  );
  expect(bind.stderr).toMatch(/tmkit dnssec rollover --finish/);
  expect(bind.stdout.match(/static-key 257 3 13/g)).toHaveLength(2);
  expect((await anchor('unbound')).trim().split('\n')).toHaveLength(2);

  // The new KSK signs the DNSKEY RRset as soon as it is published: validators that only know it validate too.
  const newOnly = bind.stdout.replace(new RegExp(`\\t[^\\n]*"${publicKeyOf(oldKsk!.dnskey).replace(/[+/]/g, '\\$&')}";\\n`), '');
  expect(newOnly.match(/static-key/g)).toHaveLength(1);
  await waitFor(async () => (await delvWith(newOnly)).validated, {
    what: 'delv with the new KSK alone',
    timeoutMs: 30_000,
    intervalMs: 300,
  });
  expect((await delvWith(bind.stdout)).validated).toBe(true);
  const both = await (await unboundWith((await anchor('unbound')).trim().split('\n'))).query(NAME, 'A');
  expect({ status: both.status, ad: both.flags.includes('ad') }).toEqual({ status: 'NOERROR', ad: true });
});
