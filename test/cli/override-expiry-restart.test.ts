/**
 * An override that expires while `tmkit serve` is down is processed when it starts again (issue 40, item 0):
 * one `override.expire` audit entry dated the override's `expiresAt` (with `recordedAt`, when it was written),
 * one `expired` event to the webhook, the record gone from the store; a further restart adds nothing. Real
 * `tmkit serve` processes on one state dir, a loopback webhook receiver.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import type { AuditEntry } from '../../src/core/api';
import { spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(180_000);

const tempDir = tempDirs('tmkit-override-expiry-');
let proc: ServeProcess | undefined;
let receiver: Server | undefined;

afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  proc = undefined;
  if (receiver) await new Promise<void>((r) => receiver!.close(() => r()));
  receiver = undefined;
});

/** A webhook receiver on loopback: every delivery's body, acknowledged with 204. */
async function webhookReceiver(): Promise<{ url: string; bodies: Array<Record<string, unknown>> }> {
  const bodies: Array<Record<string, unknown>> = [];
  receiver = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (d: string) => {
      raw += d;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(raw) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, bodies };
}

function document(dir: string): string {
  const file = join(dir, 'tmkit.out.json');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      stack: 'default',
      profiles: [
        {
          name: 'web',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'web', ttl: 0 },
          endpoints: [
            { name: 'primary', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' },
            { name: 'backup', type: 'externalEndpoints', target: '192.0.2.2', alwaysServe: 'Enabled' },
          ],
        },
      ],
    }),
  );
  return file;
}

async function serve(state: string, args: string[]): Promise<{ proc: ServeProcess; client: TmkitClient }> {
  proc = await spawnServe(state, args);
  const client = new TmkitClient({ server: proc.api, token: readFileSync(join(state, 'token'), 'utf8').trim(), env: {}, retries: 0 });
  return { proc, client };
}

async function stop(p: ServeProcess, client: TmkitClient): Promise<void> {
  await client.close();
  p.child.kill('SIGTERM');
  expect(await p.exited).toEqual({ code: 0, signal: null });
  proc = undefined;
}

const expiries = (entries: AuditEntry[], id: string): AuditEntry[] =>
  entries.filter((e) => e.action === 'override.expire' && (e.details as { id?: string } | undefined)?.id === id);

test('an override that expired while serve was down is audited at its expiry and evented once at the next start', async () => {
  const dir = tempDir();
  const state = join(dir, 'state');
  const hook = await webhookReceiver();

  const one = await serve(state, ['--apply', document(dir)]);
  const made = await one.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'primary', for: '3s', reason: 'maintenance' });
  const { id, expiresAt } = made.override;
  await stop(one.proc, one.client);
  // Down past its expiry.
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now()) + 1_500));

  const two = await serve(state, ['--webhook', hook.url, '--webhook-allow-private']);
  const entry = await waitFor(async () => expiries(await two.client.audit(100).then((a) => a.entries), id)[0], {
    what: 'the override.expire entry',
    timeoutMs: 15_000,
    intervalMs: 100,
  });
  expect(entry).toMatchObject({ at: expiresAt, who: 'tmkit', action: 'override.expire', target: 'web/primary', reason: 'maintenance' });
  const recordedAt = (entry.details as { recordedAt?: string }).recordedAt;
  expect(Date.parse(recordedAt!)).toBeGreaterThan(Date.parse(expiresAt));
  const expired = () => hook.bodies.filter((b) => b.event === 'override' && b.action === 'expired');
  await waitFor(async () => expired().length > 0, { what: 'the expired event', timeoutMs: 15_000, intervalMs: 100 });
  expect(expired()).toHaveLength(1);
  expect(expired()[0]).toMatchObject({ override: { id, expiresAt } });
  expect((await two.client.listOverrides()).overrides).toEqual([]);
  await new Promise((r) => setTimeout(r, 1_000));
  expect(expired()).toHaveLength(1);
  await stop(two.proc, two.client);

  // Gone from the store: a further start neither audits nor announces it again.
  const three = await serve(state, ['--webhook', hook.url, '--webhook-allow-private']);
  await new Promise((r) => setTimeout(r, 2_000));
  expect(expiries((await three.client.audit(100)).entries, id)).toHaveLength(1);
  expect(expired()).toHaveLength(1);
  await stop(three.proc, three.client);
});
