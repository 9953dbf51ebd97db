/**
 * One rule for a webhook's host (issue 40 item 7): `http://localhost./` and `http://[2002:7f00:1::]/` (6to4
 * of 127.0.0.1) used to be accepted by `POST /v1/webhooks` and refused only at delivery (or not at all). The
 * add check and the delivery check are now the same function (policy.ts hostRefusal); these tests hold the
 * running server's add to it for every form, and a stored webhook with such a URL to the same reason at
 * delivery. What the WHATWG URL parser already normalizes (`0x7f.1`, `2130706433`, `127.1`, `0177.0.0.1`
 * → 127.0.0.1; IPv6 to its short form) is checked as the address it becomes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TmkitApiError } from '../../../src/client';
import { embeddedIpv4, formatIp, parseIp } from '../../../src/core/net/ip';
import { checkWebhookUrl, hostRefusal } from '../../../src/runtime/webhooks/policy';
import { profileInput } from '../api/fixtures';
import { engineHarness } from '../engine/harness';
import { tempDirs } from '../../support/tmp';
import { waitFor } from '../../support/wait';

const { start } = engineHarness('tmkit-webhook-url-');
const tempDir = tempDirs('tmkit-webhook-url-stored-');

/** URL → what the refusal must say (after "<host> is "). */
const REFUSED: Array<[string, RegExp]> = [
  ['http://localhost./hook', /^localhost\. is loopback \(RFC 6761\)/],
  ['http://LOCALHOST../hook', /^localhost\.\. is loopback/],
  ['http://api.localhost./hook', /^api\.localhost\. is loopback/],
  ['http://[2002:7f00:1::]/hook', /^2002:7f00:1:: is 6to4 of 127\.0\.0\.1, which is loopback/],
  ['http://[2002:a01:203::1]/hook', /^2002:a01:203::1 is 6to4 of 10\.1\.2\.3, which is private \(RFC 1918\)/],
  ['http://[64:ff9b::127.0.0.1]/hook', /^64:ff9b::7f00:1 is NAT64 of 127\.0\.0\.1, which is loopback/],
  ['http://[64:ff9b::a9fe:a9fe]/hook', /^64:ff9b::a9fe:a9fe is NAT64 of 169\.254\.169\.254, which is link-local/],
  ['http://[64:ff9b:1::808:808]/hook', /^64:ff9b:1::808:808 is local-use IPv4\/IPv6 translation/],
  ['http://[::ffff:127.0.0.1]/hook', /^::ffff:7f00:1 is IPv4-mapped of 127\.0\.0\.1, which is loopback/],
  ['http://[::ffff:192.168.1.1]/hook', /^::ffff:c0a8:101 is IPv4-mapped of 192\.168\.1\.1, which is private/],
  ['http://[::127.0.0.1]/hook', /^::7f00:1 is IPv4-compatible of 127\.0\.0\.1, which is loopback/],
  ['http://0x7f.1/hook', /^127\.0\.0\.1 is loopback/],
  ['http://2130706433/hook', /^127\.0\.0\.1 is loopback/],
  ['http://127.1/hook', /^127\.0\.0\.1 is loopback/],
  ['http://0177.0.0.1/hook', /^127\.0\.0\.1 is loopback/],
  ['http://0xa9.254.169.254/hook', /^169\.254\.169\.254 is link-local/],
];

/** Public, so taken (nothing is sent in these tests: no event fires for them). */
const ACCEPTED = [
  'https://hooks.example.com/tmkit',
  'http://[2002:808:808::1]/hook', // 6to4 of 8.8.8.8
  'http://[64:ff9b::808:808]/hook', // NAT64 of 8.8.8.8 (DNS64 gives these for public hosts)
  'http://[::ffff:8.8.8.8]/hook',
  'http://[2606:4700::1111]/hook',
];

test('embeddedIpv4 reads the IPv4 address inside mapped, compatible, 6to4 and NAT64 IPv6 addresses', () => {
  const of = (s: string): string | undefined => {
    const e = embeddedIpv4(parseIp(s)!);
    return e ? `${e.via} ${formatIp(e.ipv4)}` : undefined;
  };
  expect(of('::ffff:127.0.0.1')).toBe('IPv4-mapped 127.0.0.1');
  expect(of('::7f00:1')).toBe('IPv4-compatible 127.0.0.1');
  expect(of('2002:7f00:1::')).toBe('6to4 127.0.0.1');
  expect(of('2002:c0a8:101:5::9')).toBe('6to4 192.168.1.1');
  expect(of('64:ff9b::7f00:1')).toBe('NAT64 127.0.0.1');
  expect([of('::1'), of('::'), of('2001:db8::1'), of('64:ff9b:1::1'), of('127.0.0.1')]).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

test('the add check and the delivery check are one rule: every form of a non-public host refused by both, public ones by neither', () => {
  for (const [url, why] of REFUSED) {
    const host = new URL(url).hostname;
    const atDelivery = hostRefusal(host, false);
    expect([url, atDelivery]).toEqual([url, expect.stringMatching(why)]);
    expect(() => checkWebhookUrl(url, false)).toThrow(atDelivery);
    // --webhook-allow-private lets them all through.
    expect(hostRefusal(host, true)).toBeUndefined();
    expect(checkWebhookUrl(url, true).href).toBe(new URL(url).href);
  }
  for (const url of ACCEPTED) {
    expect([url, hostRefusal(new URL(url).hostname, false)]).toEqual([url, undefined]);
    expect(checkWebhookUrl(url, false).href).toBe(new URL(url).href);
  }
});

test('POST /v1/webhooks refuses each form at add (400 WEBHOOK_NOT_ALLOWED with the reason) and takes the public ones', async () => {
  const { client } = await start();
  const outcome = async (url: string): Promise<string> => {
    try {
      await client.addWebhook({ url });
      return 'accepted';
    } catch (err) {
      const e = err as TmkitApiError;
      return `${e.status} ${e.code}: ${e.errors[0]?.message}`;
    }
  };
  for (const [url, why] of REFUSED) {
    const got = await outcome(url);
    expect([url, got]).toEqual([url, expect.stringMatching(/^400 WEBHOOK_NOT_ALLOWED: /)]);
    expect([url, got.replace(/^400 WEBHOOK_NOT_ALLOWED: /, '')]).toEqual([url, expect.stringMatching(why)]);
    expect(got).toMatch(/--webhook-allow-private$/);
  }
  for (const url of ACCEPTED) expect([url, await outcome(url)]).toEqual([url, 'accepted']);
  expect((await client.webhooks()).webhooks.map((w) => w.url)).toEqual(ACCEPTED);
});

test('a stored webhook to localhost. (kept from before this rule) is refused at delivery with the same reason, never sent', async () => {
  const stateDir = tempDir();
  writeFileSync(
    join(stateDir, 'webhooks.json'),
    JSON.stringify({ webhooks: [{ id: 'wh-0000dot0', url: 'http://localhost./hook', events: ['revision'], format: 'json' }] }),
  );
  const { client } = await start({ stateDir });
  await client.putProfile(profileInput('dotted'));
  const log = await waitFor(
    async () => {
      const w = (await client.webhooks()).webhooks.find((x) => x.id === 'wh-0000dot0');
      return w?.deliveries.find((d) => d.outcome === 'failed' || d.outcome === 'retrying');
    },
    { what: "the stored webhook's first delivery attempt", timeoutMs: 10_000 },
  );
  expect(log.error).toMatch(
    /localhost\. is loopback \(RFC 6761\): webhooks go to public addresses unless tmkit serve runs with --webhook-allow-private/,
  );
  expect(log.error).toContain(hostRefusal('localhost.', false));
});
