/**
 * Issue 42 item 4's acceptance, end to end: the real `tmkit serve` (real 10 s probing, with DNS worker
 * processes), two real HTTP endpoints on loopback, one 150 ms slower to probe than the other. A German
 * client (dig +subnet) that the distance model sends to the slow one gets the fast one once enough samples
 * exist, and goes back when the delay moves; `tmkit resolve` says "measured".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';
import { dig } from './dns/support';
import { delayed, measuredProfile } from './measured-support';

const tempDir = tempDirs('tmkit-measured-serve-');
let serve: ServeProcess | undefined;
let servers: Awaited<ReturnType<typeof delayed>> | undefined;
afterEach(async () => {
  if (serve) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  serve = undefined;
  await servers?.close();
  servers = undefined;
});

const NEAR = '127.0.0.2';
const FAR = '127.0.0.3';

test('the slow endpoint by the distance model loses to the measured fast one, and wins back when the delay moves', async () => {
  servers = await delayed([NEAR, FAR]);
  servers.delay.set(NEAR, 150);
  const dir = tempDir();
  const file = join(dir, 'doc.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [measuredProfile(servers.port, 2)] }));
  serve = await spawnServe(dir, ['--apply', file, '--workers', '2']);
  const s = serve;
  const env = { TMKIT_SERVER: s.api, TMKIT_TOKEN: readFileSync(join(dir, 'token'), 'utf8').trim() };
  const answer = async (): Promise<string> =>
    (await dig([`@${s.dns.address}`, '-p', String(s.dns.port), '+subnet=194.25.2.0/24', 'web.tm.internal'])).answer[0]?.[4] ?? '(none)';
  const resolveText = async (): Promise<string> => {
    const r = await runTmkit(['resolve', 'web.tm.internal', '--client', '194.25.2.1'], { env });
    expect(r.code).toBe(0);
    return r.stdout;
  };

  // Until two samples exist: the distance model, which prefers West Europe (near, the slow one).
  const first = await resolveText();
  expect(first).toMatch(/performance-source: distance model/);
  expect(first).toContain(`IN A ${NEAR}`);
  expect(await answer()).toBe(NEAR);

  // Two probes each (the second falls one to two intervals after the first): far, the fast one.
  // (near's samples can come first: far then wins on the distance model for a moment, 150 ms measured against
  // far's modelled 121 ms; wait for both to be measured.)
  const measured = await waitFor(
    async () => {
      const t = await resolveText();
      return /select far: measured: /.test(t) ? t : undefined;
    },
    { what: 'far selected by its measured latency', timeoutMs: 45_000, intervalMs: 500 },
  );
  expect(await answer()).toBe(FAR);
  expect(measured).toContain(`IN A ${FAR}`);
  expect(measured).toMatch(/\[web\] performance-source: measured: client mapped to \S+ \(the only probing location\)/);
  expect(measured).toMatch(/\[web\] select far: measured: [\d.]+ ms from \S+ \(EWMA of \d+ probes\)/);

  // The delay moves to far: near wins again once it is better by more than the 20 ms tolerance.
  servers.delay.set(NEAR, 0);
  servers.delay.set(FAR, 150);
  await waitFor(async () => (await answer()) === NEAR, { what: 'dig answering near again', timeoutMs: 60_000, intervalMs: 500 });
  const back = await resolveText();
  expect(back).toContain(`IN A ${NEAR}`);
  expect(back).toMatch(/\[web\] select near: measured: /);
}, 150_000);
