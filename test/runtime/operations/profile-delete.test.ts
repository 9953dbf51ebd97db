/**
 * A deleted profile's overrides go with it (issue 40, item 0), as its pushed health does: a profile created
 * again under the name is answered without them, their records are deleted with an `override.clear` audit
 * entry (who `tmkit`, reason `profile web deleted`) and a `cleared` event, once. A real engine (SQLite, the API
 * over HTTP, DNS asked with the real `dig`); Always Serve endpoints, so no prober is involved.
 */
import type { LiveEvent } from '../../../src/core/api';
import type { ProfileInput } from '../../../src/core/model/types';
import { dig } from '../../support/process';
import { waitFor } from '../../support/wait';
import { harness } from './support';

const h = harness('tmkit-ops-delete-');

const web = (): ProfileInput => ({
  name: 'web',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'web', ttl: 0 },
  endpoints: [
    { name: 'primary', type: 'externalEndpoints', target: '192.0.2.1', alwaysServe: 'Enabled' },
    { name: 'backup', type: 'externalEndpoints', target: '192.0.2.2', alwaysServe: 'Enabled' },
  ],
});

test('deleting a profile removes its overrides: a new profile of the same name is answered without them; audited and evented like a clear', async () => {
  const s = await h.start(h.tempDir());
  const events: LiveEvent[] = [];
  s.engine.events.onEvent((e) => events.push(e));
  await s.client.putProfile(web());
  const down = await s.client.createOverride({
    kind: 'down',
    profile: 'web',
    endpoint: 'primary',
    for: '1h',
    who: 'cli',
    reason: 'patching',
  });
  expect(await dig(s.dns, 'web.tm.internal')).toEqual(['192.0.2.2']);

  await s.client.deleteProfile('web');
  await s.client.putProfile(web());
  // The new profile's primary answers: the old profile's override is gone with it.
  await waitFor(async () => (await dig(s.dns, 'web.tm.internal'))[0] === '192.0.2.1', {
    what: 'primary answered',
    timeoutMs: 5_000,
    intervalMs: 50,
  });
  expect((await s.client.listOverrides()).overrides).toEqual([]);
  expect((await s.client.status('web')).endpoints.map((e) => [e.name, e.overrides ?? []])).toEqual([
    ['primary', []],
    ['backup', []],
  ]);
  const clears = async () => (await s.client.audit(50)).entries.filter((e) => e.action === 'override.clear');
  await waitFor(async () => (await clears()).length > 0, { what: 'the override.clear entry', timeoutMs: 5_000, intervalMs: 50 });
  expect(await clears()).toEqual([
    expect.objectContaining({
      who: 'tmkit',
      target: 'web/primary',
      reason: 'profile web deleted',
      details: expect.objectContaining({ id: down.override.id, kind: 'down', profileDeleted: true }),
    }),
  ]);
  const overrideEvents = events.flatMap((e) => (e.type === 'override' ? [[e.data.action, e.data.override.id]] : []));
  expect(overrideEvents).toEqual([
    ['created', down.override.id],
    ['cleared', down.override.id],
  ]);
}, 60_000);
