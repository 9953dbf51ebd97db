/**
 * A typo in a write's body is an error, never silently dropped (issue 40 item 8's sweep found these routes
 * ignoring unknown fields): pushed health (`PUT …/health`) and `POST /v1/webhooks` answer 400 naming the
 * field, and store nothing; a webhook URL over 2,048 characters is refused the same way.
 */
import type { TmkitApiError, TmkitClient } from '../../../src/client';
import { profileInput } from './fixtures';
import { engineHarness } from '../engine/harness';

const { start } = engineHarness('tmkit-unknown-fields-');

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string; path: string }> {
  const err = (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as TmkitApiError | undefined;
  if (!err) throw new Error('accepted');
  return { status: err.status, message: err.errors[0]?.message ?? '', path: err.errors[0]?.path ?? '' };
}

test('pushed health and webhooks refuse unknown fields and store nothing; a too-long webhook URL is refused', async () => {
  const { client } = await start();
  await client.putProfile(profileInput('web'));
  const ep = (await client.getProfile('web')).profile.endpoints[0]!.name;

  const typo = { status: 'Degraded', ttlSeconds: 60, ttlSecond: 600 } as unknown as Parameters<TmkitClient['pushHealth']>[2];
  expect(await refusal(client.pushHealth('web', ep, typo))).toEqual({
    status: 400,
    message: 'unknown field "ttlSecond": the body is {"status": "Online" | "Degraded", "ttlSeconds": 300, "reason"?, "who"?}',
    path: 'ttlSecond',
  });
  expect((await client.status('web')).endpoints.every((e) => e.pushedHealth === undefined)).toBe(true);
  // The right body still works.
  expect((await client.pushHealth('web', ep, { status: 'Degraded', ttlSeconds: 60 })).status).toBe('Degraded');

  const hook = { url: 'https://hooks.example.com/tmkit', secretfile: '/etc/tmkit/secret' } as unknown as Parameters<
    TmkitClient['addWebhook']
  >[0];
  expect(await refusal(client.addWebhook(hook))).toEqual({
    status: 400,
    message: 'unknown field "secretfile": the body is {"url", "events"?, "secretFile"?, "format"?, "who"?}',
    path: 'secretfile',
  });
  const long = `https://hooks.example.com/${'a'.repeat(2100)}`;
  expect(await refusal(client.addWebhook({ url: long }))).toEqual({
    status: 400,
    message: `url is ${long.length} characters long: at most 2048`,
    path: 'url',
  });
  expect((await client.webhooks()).webhooks).toEqual([]);
});
