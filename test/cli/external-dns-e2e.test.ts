/**
 * The real ExternalDNS (v0.23, built by scripts/install-external-dns.sh; found with its --check, and the suite
 * fails without it) with `--provider=webhook` against a real `tmkit external-dns` and a real `tmkit serve`. Its
 * `fake` source makes A, AAAA and CNAME names under the zone (and SRV, MX, NS, PTR, … that adjustendpoints drops),
 * the same ones in every process (a fixed seed), new ones at each loop iteration: so `--once` twice is "a second
 * run changes nothing", another --fqdn-template is "the source objects went away", and the loop is what recovers
 * from an outage.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { dig, spawnServe, type ServeProcess } from '../support/process';
import { externalDnsBin } from '../support/tools';
import { waitFor } from '../support/wait';
import { call, externalDnsOnce, freePort, spawnWebhook, type WebhookProcess } from './external-dns-support';

jest.setTimeout(180_000);

const ED = externalDnsBin();

interface Ext {
  dnsName: string;
  recordType: string;
  targets: string[];
}

let dir: string;
let serve: ServeProcess;
let hooks: WebhookProcess[] = [];
let client: TmkitClient;
let apiPort: number;
const token = (): string => readFileSync(join(dir, 'token'), 'utf8').trim();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-extdns-e2e-'));
  apiPort = await freePort();
  serve = await spawnServe(dir, ['--api', `127.0.0.1:${apiPort}`]);
  client = new TmkitClient({ server: serve.api, token: token(), env: {}, retries: 0 });
});
afterEach(async () => {
  for (const h of hooks) await h.stop();
  hooks = [];
  await client.close();
  if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
  await serve.closed;
  rmSync(dir, { recursive: true, force: true });
});

async function webhook(owner: string): Promise<WebhookProcess> {
  const h = await spawnWebhook(['--server', `http://127.0.0.1:${apiPort}`, '--zone', 'tm.internal', '--owner-id', owner], {
    TMKIT_TOKEN: token(),
  });
  hooks.push(h);
  return h;
}

const args = (hook: WebhookProcess, owner: string, template: string): string[] => [
  '--provider=webhook',
  `--webhook-provider-url=${hook.url}`,
  '--source=fake',
  `--fqdn-template=${template}`,
  '--policy=sync',
  '--registry=txt',
  `--txt-owner-id=${owner}`,
  '--metrics-address=127.0.0.1:0',
  '--log-level=debug',
];

/** `external-dns ARGS --once`: its exit code and log. */
const once = (a: string[]) => externalDnsOnce(ED, a, 60_000);

const records = async (hook: WebhookProcess): Promise<Ext[]> => (await call(`${hook.url}/records`, 'GET')).body as Ext[];
const served = (rs: Ext[]) => rs.filter((r) => r.recordType !== 'TXT');

/** Every A/AAAA/CNAME record is what `dig` answers for its name. */
async function expectDigAnswers(rs: Ext[]): Promise<void> {
  for (const r of served(rs)) {
    const answers = await dig(serve.dns, r.dnsName, r.recordType);
    expect([r.dnsName, answers]).toEqual([r.dnsName, r.targets.map((t) => (r.recordType === 'CNAME' ? `${t}.` : t))]);
  }
}

test('--once creates profiles dig answers; a second run changes nothing; a name gone from the source goes from tmkit', async () => {
  const hook = await webhook('default');
  const first = await once(args(hook, 'default', 'tm.internal'));
  expect(first).toMatchObject({ code: 0 });
  const rs = await records(hook);
  expect(
    served(rs)
      .map((r) => r.recordType)
      .sort(),
  ).toEqual(['A', 'AAAA', 'CNAME']);
  // The TXT registry's ownership records are kept, one per record, and read back.
  expect(rs.filter((r) => r.recordType === 'TXT')).toHaveLength(3);
  await expectDigAnswers(rs);
  // What tmkit cannot hold was dropped with a reason, not failed.
  expect(hook.stderr()).toMatch(/dropped tm\.internal MX: record type MX/);
  const profiles = (await client.listProfiles({ stack: 'external-dns-default' })).profiles;
  expect(profiles).toHaveLength(3);
  const audit = (await client.audit(50)).entries.filter((e) => e.action.startsWith('profile.'));
  expect(audit.map((e) => e.who)).toEqual(['external-dns:default', 'external-dns:default', 'external-dns:default']);

  // A second run sees no difference and writes nothing.
  const second = await once(args(hook, 'default', 'tm.internal'));
  expect(second.code).toBe(0);
  expect(second.log).toMatch(/All records are already up to date/);
  expect((await client.listProfiles({ stack: 'external-dns-default' })).profiles.map((p) => p.etag)).toEqual(profiles.map((p) => p.etag));
  expect((await client.audit(50)).entries.filter((e) => e.action.startsWith('profile.'))).toHaveLength(3);

  // The source's objects are now others (another template): the old names are deleted, the new ones created.
  const third = await once(args(hook, 'default', 'apps.tm.internal'));
  expect(third.code).toBe(0);
  const now = await records(hook);
  expect(served(now).every((r) => r.dnsName.endsWith('.apps.tm.internal'))).toBe(true);
  for (const p of profiles) expect(await client.findProfile(p.name)).toBeUndefined();
  for (const r of served(rs)) expect(await dig(serve.dns, r.dnsName, r.recordType)).toEqual([]);
  await expectDigAnswers(now);
});

test('two owner ids keep their own stacks: neither run touches the other', async () => {
  const a = await webhook('cluster-a');
  const b = await webhook('cluster-b');
  expect((await once(args(a, 'cluster-a', 'a.tm.internal'))).code).toBe(0);
  expect((await once(args(b, 'cluster-b', 'b.tm.internal'))).code).toBe(0);
  const ra = await records(a);
  const rb = await records(b);
  expect(served(ra).every((r) => r.dnsName.endsWith('.a.tm.internal'))).toBe(true);
  expect(served(rb).every((r) => r.dnsName.endsWith('.b.tm.internal'))).toBe(true);
  const stacks = (await client.listProfiles()).profiles.map((p) => p.stack);
  expect(stacks.filter((s) => s === 'external-dns-cluster-a')).toHaveLength(3);
  expect(stacks.filter((s) => s === 'external-dns-cluster-b')).toHaveLength(3);
  // cluster-a syncing again (its source unchanged) leaves cluster-b's records alone.
  expect((await once(args(a, 'cluster-a', 'a.tm.internal'))).log).toMatch(/All records are already up to date/);
  expect(await records(b)).toEqual(rb);
  await expectDigAnswers([...ra, ...rb]);
});

test('the loop: while the tmkit server is down the webhook answers 5xx; ExternalDNS retries and converges once it is back', async () => {
  const hook = await webhook('default');
  serve.child.kill('SIGTERM');
  await serve.closed;
  const child = spawn(ED, [...args(hook, 'default', 'tm.internal'), '--interval=1s'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
  try {
    await waitFor(() => /failed to get records with code 503/i.test(log) || /code 503/.test(log), {
      what: 'ExternalDNS seeing 503',
      timeoutMs: 30_000,
    });
    expect(child.exitCode).toBeNull();
    serve = await spawnServe(dir, ['--api', `127.0.0.1:${apiPort}`]);
    const rs = await waitFor(
      async () => {
        const r = await records(hook);
        return served(r).length === 3 ? r : undefined;
      },
      { what: 'ExternalDNS converging after the restart', timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(rs.length).toBeGreaterThan(0);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
  }
  // Stopped between iterations or not, what tmkit holds is whole: every profile of the stack has its records.
  const profiles = (await client.listProfiles({ stack: 'external-dns-default' })).profiles;
  const rs = await records(hook);
  expect(new Set(served(rs).map((r) => r.dnsName.replace(/\.tm\.internal$/, '')))).toEqual(new Set(profiles.map((p) => p.name)));
  await expectDigAnswers(rs);
});

test('--registry=noop: no ownership records are written, and a second run still changes nothing', async () => {
  const hook = await webhook('default');
  const noop = args(hook, 'default', 'tm.internal').map((a) => (a === '--registry=txt' ? '--registry=noop' : a));
  expect((await once(noop)).code).toBe(0);
  const rs = await records(hook);
  expect(rs.map((r) => r.recordType).sort()).toEqual(['A', 'AAAA', 'CNAME']);
  await expectDigAnswers(rs);
  const second = await once(noop);
  expect(second.log).toMatch(/All records are already up to date/);
  expect((await client.audit(50)).entries.filter((e) => e.action.startsWith('profile.'))).toHaveLength(3);
});
