/**
 * The plan's "Live health" durations count from the verdict, not from the server's last start (issue 40,
 * item 0): an endpoint found Degraded, the real `tmkit serve` restarted, and `tmkit plan` still says how long it
 * has been Degraded since the original transition (the ledger keeps transition times across restarts), and so
 * does the status API's `since`.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ProfileStatusReport } from '../../src/core/api';
import { runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(180_000);

const tempDir = tempDirs('tmkit-plan-since-');
let proc: ServeProcess | undefined;

afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  proc = undefined;
});

/** A loopback port nothing listens on (probes of it are refused at once). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('Degraded, restarted: tmkit plan counts the Degraded time from the original transition, not from the restart', async () => {
  const dir = tempDir();
  const state = join(dir, '.tmkit');
  const doc = join(dir, 'tmkit.out.json');
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
          monitorConfig: {
            protocol: 'HTTP',
            port: await closedPort(),
            path: '/',
            intervalInSeconds: 10,
            timeoutInSeconds: 5,
            toleratedNumberOfFailures: 0,
          },
          endpoints: [
            { name: 'primary', type: 'externalEndpoints', target: '127.0.0.1' },
            { name: 'backup', type: 'externalEndpoints', target: '127.0.0.2' },
          ],
        },
      ],
    }),
  );
  const cli = (args: string[]) => runTmkit(args, { cwd: dir, env: { TMKIT_SERVER: proc!.api } });
  const status = async (): Promise<ProfileStatusReport> => JSON.parse((await cli(['status', 'web', '--format', 'json'])).stdout);

  proc = await spawnServe(state, ['--apply', doc]);
  const first = await waitFor(
    async () => {
      const s = await status();
      return s.endpoints.every((e) => e.endpointMonitorStatus === 'Degraded') && s;
    },
    { what: 'web/primary and web/backup Degraded', timeoutMs: 30_000, intervalMs: 100 },
  );
  const degradedAt = first.transitions.find((t) => t.endpoint === 'primary' && t.to === 'Degraded')!.at;
  expect(first.endpoints[0]!.since).toBe(degradedAt);
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toEqual({ code: 0, signal: null });

  // Down for a while, so that "since the restart" and "since the verdict" differ by seconds.
  await new Promise((r) => setTimeout(r, 6000));
  proc = await spawnServe(state, ['--apply', doc]);
  const again = await waitFor(
    async () => {
      const s = await status();
      const primary = s.endpoints.find((e) => e.name === 'primary')!;
      return primary.lastProbe !== undefined && primary.verdictCarriedOver !== true && primary.endpointMonitorStatus === 'Degraded' && s;
    },
    { what: 'the first probe after the restart to confirm Degraded', timeoutMs: 30_000, intervalMs: 100 },
  );
  const primary = again.endpoints.find((e) => e.name === 'primary')!;
  expect(primary.since).toBe(degradedAt);

  const json = JSON.parse((await cli(['plan', doc, '--format', 'json'])).stdout) as {
    live: { at: string; endpoints: Array<{ endpoint: string; since?: string; seconds?: number }> };
  };
  const row = json.live.endpoints.find((e) => e.endpoint === 'primary')!;
  expect(row.since).toBe(degradedAt);
  const elapsed = Math.round((Date.parse(json.live.at) - Date.parse(degradedAt)) / 1000);
  expect(row.seconds).toBe(elapsed);
  expect(row.seconds).toBeGreaterThanOrEqual(6);

  const text = await cli(['plan', doc]);
  const m = /web\/primary: Degraded for (?:(\d+)m)?(\d+)s \(/.exec(text.stdout);
  expect(m).not.toBeNull();
  expect(Number(m![1] ?? 0) * 60 + Number(m![2])).toBeGreaterThanOrEqual(6);
  proc.child.kill('SIGTERM');
  expect(await proc.exited).toEqual({ code: 0, signal: null });
});
