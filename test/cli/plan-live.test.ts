/**
 * `tmkit plan FILE` against a server sees its live health (docs/plan.md "Live health"): endpoints Degraded or
 * overridden now and for how long, profiles in the all-degraded fallback, and a warning when the planned change
 * leaves a profile with no endpoint Online now. Text, Markdown and JSON carry the same; a failback property adds
 * the worst-case recovery to the failover times. Real `tmkit` processes against a real runtime.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileInput } from '../../src/core/model/types';
import { waitFor } from '../support/wait';
import { runTmkit } from '../support/process';
import { switchable } from '../runtime/operations/support';
import { startDay2Server, type Day2Server } from './day2-server';

jest.setTimeout(120_000);

let s: Day2Server;
let hs: Awaited<ReturnType<typeof switchable>>;
beforeEach(async () => {
  s = await startDay2Server('tmkit-plan-live-');
  hs = await switchable(['127.0.0.61', '127.0.0.62', '127.0.0.63']);
});
afterEach(async () => {
  await s.close();
  await hs.close();
});

const cli = (args: string[]) => runTmkit(args, { cwd: s.dir, env: { TMKIT_SERVER: s.api } });

const web = (primaryStatus: 'Enabled' | 'Disabled' = 'Enabled', extra: Partial<ProfileInput> = {}): ProfileInput => ({
  name: 'web',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'web', ttl: 30 },
  monitorConfig: {
    protocol: 'HTTP',
    port: hs.port,
    path: '/healthz',
    intervalInSeconds: 10,
    timeoutInSeconds: 5,
    toleratedNumberOfFailures: 0,
  },
  endpoints: [
    { name: 'primary', type: 'externalEndpoints', target: '127.0.0.61', endpointStatus: primaryStatus },
    { name: 'backup', type: 'externalEndpoints', target: '127.0.0.62' },
    { name: 'spare', type: 'externalEndpoints', target: '127.0.0.63' },
  ],
  ...extra,
});

function doc(p: ProfileInput): string {
  const file = join(s.dir, 'doc.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'default', profiles: [p] }));
  return file;
}

test('disabling the only Online endpoint: the warning names the profile; the section lists the Degraded and overridden endpoints', async () => {
  await s.client.putProfile(web());
  hs.down.add('127.0.0.62');
  await waitFor(
    async () => {
      const e = (await s.client.status('web')).endpoints;
      return (
        e[0]!.endpointMonitorStatus === 'Online' && e[1]!.endpointMonitorStatus === 'Degraded' && e[2]!.endpointMonitorStatus === 'Online'
      );
    },
    { what: 'backup Degraded, the others Online', timeoutMs: 30_000, intervalMs: 50 },
  );
  await s.client.createOverride({ kind: 'down', profile: 'web', endpoint: 'spare', for: '1h', who: 'cli', reason: 'patching' });

  const text = await cli(['plan', doc(web('Disabled')), '--no-preview']);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(
    /Live health \(the server now, \S+\):\n {2}web\/backup: Degraded for \d+s \(probe verdict Degraded\)\n {2}web\/spare: Degraded for \d+s \(override down by cli until \S+ \(patching\): taken out of DNS\); override down by cli until \S+ \(patching\)\n/,
  );
  expect(text.stdout).toContain(
    '! profiles[web]: with the live health now, this change leaves profile web with no endpoint Online (Online now: primary; after: primary Disabled, backup Degraded, spare Degraded) [LIVE_NO_ONLINE_ENDPOINT]',
  );

  const md = await cli(['plan', doc(web('Disabled')), '--no-preview', '--format', 'markdown']);
  expect(md.stdout).toContain('**Live health** (the server now, ');
  expect(md.stdout).toContain('- web/backup: Degraded for ');
  expect(md.stdout).toContain('(LIVE_NO_ONLINE_ENDPOINT)');

  const json = JSON.parse((await cli(['plan', doc(web('Disabled')), '--no-preview', '--format', 'json'])).stdout) as {
    warnings: Array<{ code: string; path: string }>;
    live: { endpoints: Array<{ endpoint: string; status: string; seconds: number; overrides: string[] }>; fallback: string[] };
  };
  expect(json.warnings).toEqual(
    expect.arrayContaining([expect.objectContaining({ code: 'LIVE_NO_ONLINE_ENDPOINT', path: 'profiles[web]' })]),
  );
  expect(json.live.endpoints.map((e) => [e.endpoint, e.status, e.overrides.length])).toEqual([
    ['backup', 'Degraded', 0],
    ['spare', 'Degraded', 1],
  ]);
  expect(json.live.fallback).toEqual([]);

  // A change that keeps an Online endpoint warns about nothing live.
  const fine = await cli(['plan', doc(web('Enabled', { dnsConfig: { relativeName: 'web', ttl: 60 } })), '--no-preview']);
  expect(fine.stdout).not.toContain('LIVE_NO_ONLINE_ENDPOINT');
  expect(fine.stdout).toContain('Live health');
});

test('a profile in the all-degraded fallback is listed; a failback property shows the worst-case recovery', async () => {
  await s.client.putProfile(web());
  for (const h of ['127.0.0.61', '127.0.0.62', '127.0.0.63']) hs.down.add(h);
  await waitFor(async () => (await s.client.status('web')).allDegradedFallback, {
    what: 'all Degraded',
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const r = await cli([
    'plan',
    doc(web('Enabled', { failback: { mode: 'Automatic', successesToRecover: 3, holdDownSeconds: 60 } })),
    '--no-preview',
  ]);
  expect(r.stdout).toContain('  web: every eligible endpoint is Degraded: answering in the all-degraded fallback');
  expect(r.stdout).toContain('recovery after the endpoint is healthy again: max(10 × 3, 60) + TTL 30 = 90 s');
  const manual = await cli(['plan', doc(web('Enabled', { failback: { mode: 'Manual' } })), '--no-preview']);
  expect(manual.stdout).toContain(
    'recovery after the endpoint is healthy again: manual: AwaitingFailback until tmkit endpoint failback, then TTL 30',
  );
  expect(manual.stdout).toContain('+ failback: {"mode":"Manual","successesToRecover":1,"holdDownSeconds":0}');
});
