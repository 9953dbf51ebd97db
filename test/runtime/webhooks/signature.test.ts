/**
 * The signature's key rule is one rule in the code and in docs/webhooks.md (issue 40 item 0): real
 * deliveries from the real runtime to a receiver on loopback that verifies X-Tmkit-Signature with the very
 * receiver code docs/webhooks.md shows (extracted from the page and run here), for secret files ending in
 * "\n", "\r\n", nothing, two newlines, and holding bytes that are not UTF-8. Then rotation: the file replaced
 * (write and rename, as the docs say) is picked up without a restart and without the delivery reading it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TmkitClient } from '../../../src/client';
import { profileInput } from '../api/fixtures';
import { engineHarness } from '../engine/harness';
import { waitFor } from '../../support/wait';

const { start, closers } = engineHarness('tmkit-webhook-signature-');

interface DocsReceiver {
  webhookKey(file: string): Buffer;
  verified(key: Buffer, rawBody: Buffer, header: unknown): boolean;
}

/** The receiver code of docs/webhooks.md's "Signature" (the js block defining webhookKey), as a module. */
function docsReceiver(): DocsReceiver {
  const md = readFileSync(join(__dirname, '../../../docs/webhooks.md'), 'utf8');
  const block = [...md.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes('function webhookKey('));
  if (block === undefined) throw new Error('docs/webhooks.md shows no receiver code defining webhookKey(file)');
  const code = block.replace(/^ {2}/gm, '');
  return new Function('require', `${code}\nreturn { webhookKey, verified };`)(require) as DocsReceiver;
}

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function receiver(): Promise<{ url: string; got: Delivery[] }> {
  const got: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

/** A revision event: a new profile each time. */
let n = 0;
const revision = (client: TmkitClient): Promise<unknown> => client.putProfile(profileInput(`p${++n}`));

test('receivers written from the docs verify every delivery: files ending in LF, CRLF, nothing, two LFs, and non-UTF-8 bytes', async () => {
  const docs = docsReceiver();
  const rx = await receiver();
  const { client, stateDir } = await start({ webhooks: { allowPrivate: true } });
  const files: Record<string, Buffer> = {
    lf: Buffer.from('s3cret-lf\n'),
    crlf: Buffer.from('s3cret-crlf\r\n'),
    none: Buffer.from('s3cret-none'),
    'two-lf': Buffer.from('s3cret-two\n\n'),
    'trailing-cr': Buffer.from('s3cret-cr\r'),
    binary: Buffer.concat([randomBytes(31), Buffer.from([0xff, 0xfe, 0x80, 0x0d, 0x0a])]),
  };
  for (const [name, content] of Object.entries(files)) {
    const secretFile = join(stateDir, `secret-${name}`);
    writeFileSync(secretFile, content, { mode: 0o600 });
    await client.addWebhook({ url: `${rx.url}/${name}`, events: ['revision'], secretFile });
  }
  await revision(client);
  await revision(client);
  await waitFor(() => (rx.got.length >= 2 * Object.keys(files).length ? true : undefined), {
    what: 'two revisions at every webhook',
    timeoutMs: 10_000,
  });
  const results = rx.got.map((d) => {
    const name = d.path.slice(1);
    const key = docs.webhookKey(join(stateDir, `secret-${name}`));
    return [name, docs.verified(key, d.body, d.headers['x-tmkit-signature'])];
  });
  expect(results.sort()).toEqual(
    Object.keys(files)
      .flatMap((f) => [
        [f, true],
        [f, true],
      ])
      .sort(),
  );
  // The rule itself, as the docs' examples state it.
  const key = (name: string): string => docs.webhookKey(join(stateDir, `secret-${name}`)).toString('latin1');
  expect([key('lf'), key('crlf'), key('none'), key('two-lf'), key('trailing-cr')]).toEqual([
    's3cret-lf',
    's3cret-crlf',
    's3cret-none',
    's3cret-two\n',
    's3cret-cr\r',
  ]);
  // A receiver that verifies with the wrong key fails: the check above is not vacuous.
  const first = rx.got[0]!;
  expect(docs.verified(Buffer.from('not-the-key'), first.body, first.headers['x-tmkit-signature'])).toBe(false);
});

test('rotation: the file replaced by rename is picked up without a restart; a bad replacement keeps the last good key', async () => {
  const docs = docsReceiver();
  const rx = await receiver();
  const { client, stateDir } = await start({ webhooks: { allowPrivate: true, tuning: { secretPollMs: 50 } } });
  const secretFile = join(stateDir, 'hook-secret');
  writeFileSync(secretFile, 'old-key\n', { mode: 0o600 });
  await client.addWebhook({ url: `${rx.url}/hook`, events: ['revision'], secretFile });
  await revision(client);
  await waitFor(() => rx.got.length >= 1 || undefined, { what: 'the first delivery', timeoutMs: 10_000 });
  const signedWith = (d: Delivery): string =>
    ['old-key', 'new-key'].find((k) => docs.verified(Buffer.from(k), d.body, d.headers['x-tmkit-signature'])) ?? 'neither';
  expect(signedWith(rx.got[0]!)).toBe('old-key');

  writeFileSync(`${secretFile}.new`, 'new-key\r\n', { mode: 0o600 });
  renameSync(`${secretFile}.new`, secretFile);
  await waitFor(
    async () => {
      await revision(client);
      await new Promise((r) => setTimeout(r, 100));
      return signedWith(rx.got.at(-1)!) === 'new-key' || undefined;
    },
    { what: 'a delivery signed with the rotated key', timeoutMs: 10_000, intervalMs: 50 },
  );

  // Emptied by mistake: refused on re-read, the last good key (new-key) still signs.
  writeFileSync(`${secretFile}.new`, '', { mode: 0o600 });
  renameSync(`${secretFile}.new`, secretFile);
  await new Promise((r) => setTimeout(r, 400));
  const before = rx.got.length;
  await revision(client);
  await waitFor(() => rx.got.length > before || undefined, { what: 'a delivery after the bad replacement', timeoutMs: 10_000 });
  expect(rx.got.slice(before).map(signedWith)).toEqual(['new-key']);
  expect(rx.got.every((d) => signedWith(d) !== 'neither')).toBe(true);
});
