/**
 * What a webhook may be given, against the real `tmkit serve` process (issue 40 item 0):
 * - a `secretFile` must be a regular file of at most 4 KiB. A FIFO used to freeze the whole server (the file
 *   was read synchronously on the event loop): now `POST /v1/webhooks` answers 400 at once, naming the path
 *   and the rule, while DNS (the real dig) keeps answering; a directory, a device and an oversized file are
 *   refused the same way; a regular file is taken. A stored webhook whose file became a FIFO, and
 *   `serve --webhook URL,FIFO`, do not freeze the start either.
 * - `events` must name live event types: `tmkit webhooks add --events nosuch` is a usage error (exit 2) and
 *   the API answers 400, both naming the unknown names and listing the valid ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TmkitClient } from '../../src/client';
import { profileInput } from '../runtime/api/fixtures';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../support/process';
import { tempDirs } from '../support/tmp';
import { waitFor } from '../support/wait';

jest.setTimeout(90_000);

const tempDir = tempDirs('tmkit-webhooks-input-');
const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL'); // SIGKILL: a frozen server (the bug) never handles SIGTERM
      await p.closed;
    }
  }
});

async function serve(stateDir: string, args: string[] = []): Promise<ServeProcess & { token: string }> {
  const p = await spawnServe(stateDir, ['--webhook-allow-private', ...args]);
  running.push(p);
  return { ...p, token: readFileSync(join(stateDir, 'token'), 'utf8').trim() };
}

/** POST /v1/webhooks; an answer that takes longer than `timeoutMs` is reported as 'no answer'. */
async function addWebhook(
  s: { api: string; token: string },
  body: Record<string, unknown>,
  timeoutMs = 5000,
): Promise<{
  status: number | 'no answer';
  ms: number;
  json: { errors?: Array<{ code: string; path: string; message: string }> } & Record<string, unknown>;
}> {
  const t0 = Date.now();
  try {
    const res = await fetch(`${s.api}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, ms: Date.now() - t0, json: (await res.json()) as never };
  } catch {
    return { status: 'no answer', ms: Date.now() - t0, json: {} };
  }
}

const fifo = (path: string): string => {
  execFileSync('mkfifo', [path]);
  return path;
};

test('a FIFO secretFile is refused at once (400 naming the path and the rule) while DNS keeps answering', async () => {
  const dir = tempDir();
  const s = await serve(join(dir, 'state'));
  const soa = (): Promise<string[]> => dig(s.dns, 'tm.internal', 'SOA');
  expect(await soa()).toHaveLength(1);
  const pipe = fifo(join(dir, 'hook-secret.fifo'));

  // DNS asked while the POST is in flight, and after it.
  const posting = addWebhook(s, { url: 'http://127.0.0.1:9/hook', secretFile: pipe });
  await new Promise((r) => setTimeout(r, 300)); // the server has the request by now
  const during = await soa();
  const answer = await posting;
  expect(during).toHaveLength(1);
  expect(answer.status).toBe(400);
  expect(answer.ms).toBeLessThan(2000);
  expect(answer.json.errors).toEqual([
    {
      severity: 'error',
      code: 'WEBHOOK_NOT_ALLOWED',
      path: 'secretFile',
      message: `secret file ${pipe} is a FIFO: a secret file must be a regular file (not a FIFO, device, directory or socket) of at most 4096 bytes`,
    },
  ]);
  expect(await soa()).toHaveLength(1);

  // A directory and a device the same way, naming what they are.
  const directory = join(dir, 'a-dir');
  mkdirSync(directory);
  expect((await addWebhook(s, { url: 'http://127.0.0.1:9/hook', secretFile: directory })).json.errors?.[0]?.message).toBe(
    `secret file ${directory} is a directory: a secret file must be a regular file (not a FIFO, device, directory or socket) of at most 4096 bytes`,
  );
  expect((await addWebhook(s, { url: 'http://127.0.0.1:9/hook', secretFile: '/dev/zero' })).json.errors?.[0]?.message).toBe(
    'secret file /dev/zero is a character device: a secret file must be a regular file (not a FIFO, device, directory or socket) of at most 4096 bytes',
  );

  // Over 4 KiB: refused with its size; at 4096 bytes and with a newline: taken.
  const big = join(dir, 'big-secret');
  writeFileSync(big, 'x'.repeat(4097));
  const tooBig = await addWebhook(s, { url: 'http://127.0.0.1:9/hook', secretFile: big });
  expect(tooBig.status).toBe(400);
  expect(tooBig.json.errors?.[0]).toMatchObject({
    path: 'secretFile',
    message: `secret file ${big} is 4097 bytes: a secret file holds at most 4096 bytes`,
  });
  const regular = join(dir, 'hook-secret');
  writeFileSync(regular, `${'k'.repeat(4095)}\n`, { mode: 0o600 });
  const ok = await addWebhook(s, { url: 'http://127.0.0.1:9/hook', secretFile: regular });
  expect(ok).toMatchObject({ status: 201, json: { signed: true, origin: 'api' } });

  // Nothing refused was stored: only the regular one.
  const stored = JSON.parse(readFileSync(join(dir, 'state', 'webhooks.json'), 'utf8')) as { webhooks: Array<{ secretFile: string }> };
  expect(stored.webhooks.map((w) => w.secretFile)).toEqual([regular]);
});

test('a stored webhook whose secret file is now a FIFO does not freeze the start or the deliveries', async () => {
  const dir = tempDir();
  const stateDir = join(dir, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  const pipe = fifo(join(dir, 'hook-secret.fifo'));
  writeFileSync(
    join(stateDir, 'webhooks.json'),
    JSON.stringify({ webhooks: [{ id: 'wh-0000fifo', url: 'http://127.0.0.1:9/hook', events: [], secretFile: pipe, format: 'json' }] }),
    { mode: 0o600 },
  );
  const s = await serve(stateDir);
  // A revision event for the webhook: its delivery must not read the FIFO either.
  const client = new TmkitClient({ server: s.api, token: s.token, env: {}, retries: 0, timeoutMs: 5000 });
  try {
    await client.putProfile(profileInput('web'));
  } finally {
    await client.close();
  }
  const log = await waitFor(
    async () => {
      const res = await fetch(`${s.api}/v1/webhooks`, {
        headers: { authorization: `Bearer ${s.token}` },
        signal: AbortSignal.timeout(3000),
      });
      const w = ((await res.json()) as { webhooks: Array<{ id: string; deliveries: Array<{ outcome: string; error?: string }> }> })
        .webhooks[0];
      return w && w.deliveries.length > 0 ? w : undefined;
    },
    { what: 'a delivery attempt in the log', timeoutMs: 10_000 },
  );
  expect(log.id).toBe('wh-0000fifo');
  expect(log.deliveries[0]).toMatchObject({ outcome: 'retrying', error: expect.stringContaining(`secret file ${pipe} is a FIFO`) });
  expect(await dig(s.dns, 'tm.internal', 'SOA')).toHaveLength(1);
  expect(s.stderr()).toContain(`secret file ${pipe} is a FIFO`);
});

test('serve --webhook URL,FIFO stops the start with the reason instead of hanging', async () => {
  const dir = tempDir();
  const pipe = fifo(join(dir, 'hook-secret.fifo'));
  const r = await runTmkit(
    [
      'serve',
      '--state-dir',
      join(dir, 'state'),
      '--dns',
      '127.0.0.1:0',
      '--api',
      '127.0.0.1:0',
      '--webhook-allow-private',
      '--webhook',
      `http://127.0.0.1:9/hook,${pipe}`,
    ],
    { timeoutMs: 20_000 },
  );
  expect(r.timedOut).toBeUndefined();
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`--webhook http://127.0.0.1:9/hook: secret file ${pipe} is a FIFO: a secret file must be a regular file`);
});

test('unknown event names: tmkit webhooks add exits 2, the API answers 400, both naming them and the valid ones', async () => {
  const dir = tempDir();
  const s = await serve(join(dir, 'state'));
  const valid = 'transition, revision, traffic, override, drill, node, rrl';
  const cli = await runTmkit(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'transition,nosuch,Revision'], {
    env: { TMKIT_SERVER: s.api, TMKIT_TOKEN: s.token },
  });
  expect(cli).toMatchObject({
    code: 2,
    stdout: '',
    stderr: `tmkit: --events: unknown event types nosuch, Revision; the event types are ${valid}\n`,
  });
  // An empty list (an unset shell variable) would mean every event: refused, not guessed.
  const empty = await runTmkit(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', ' , '], {
    env: { TMKIT_SERVER: s.api, TMKIT_TOKEN: s.token },
  });
  expect(empty).toMatchObject({
    code: 2,
    stdout: '',
    stderr: `tmkit: --events ' , ' names no event type: give at least one (${valid}), or leave --events out for all\n`,
  });
  const api = await addWebhook(s, { url: 'http://127.0.0.1:9/hook', events: ['transition', 'nosuch'] });
  expect(api.status).toBe(400);
  expect(api.json.errors).toEqual([
    {
      severity: 'error',
      code: 'BAD_REQUEST',
      path: 'events',
      message: `events: unknown event type nosuch; the event types are ${valid} (none: all)`,
    },
  ]);
  // The valid ones are taken, each of them.
  const all = valid.split(', ');
  const ok = await runTmkit(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', all.join(','), '--json'], {
    env: { TMKIT_SERVER: s.api, TMKIT_TOKEN: s.token },
  });
  expect(ok.code).toBe(0);
  expect((JSON.parse(ok.stdout) as { events: string[] }).events).toEqual(all);
  // Nothing refused was stored.
  const stored = JSON.parse(readFileSync(join(dir, 'state', 'webhooks.json'), 'utf8')) as { webhooks: unknown[] };
  expect(stored.webhooks).toHaveLength(1);
});
