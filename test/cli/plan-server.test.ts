import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { executePlan, PlanRefusedError, type TmkitClient, type StepOutcome } from '../../src/client';
import { normalize } from '../../src/core/model/normalize';
import type { DocumentInput } from '../../src/core/model/types';
import { diff, readPlanJson } from '../../src/core/plan';
import { TOKEN, type Harness } from '../runtime/api/harness';
import { deployMainSample, MAIN, PR, type DeployedSample } from './sample-server';
import { tmkit } from './run';

/**
 * `tmkit plan` against a real management API (real HTTP, SQLite store), and the plan's steps applied the
 * way `tmkit apply plan.json` must apply them: the runtime accepts every step in order, a second plan is
 * empty, a stale plan is refused before anything is written, and a failure mid-way says what was applied.
 */
let h: Harness;
let client: TmkitClient;
let dir: string;
let sample: DeployedSample;

beforeEach(async () => {
  sample = await deployMainSample('tmkit-plan-server-');
  ({ h, client, dir } = sample);
});

afterEach(() => sample.close());

async function planFile(): Promise<string> {
  const out = join(dir, 'plan.json');
  const r = await tmkit(['plan', PR, '--server', h.base, '--token', TOKEN, '--out', out, '--no-preview', '--detailed-exitcode']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(2);
  return out;
}

test('plan against the server, apply the plan file, then a second plan has no changes', async () => {
  const plan = readPlanJson(JSON.parse(readFileSync(await planFile(), 'utf8')));
  expect(plan.summary).toEqual({ add: 1, change: 2, replace: 1, destroy: 1, unchanged: 1 });
  const seen: string[] = [];
  const result = await executePlan(client, plan, (o) => {
    seen.push(`${o.index}/${o.total} ${o.step.method} ${o.step.profile} ${o.ok ? 'ok' : 'failed'}`);
  });
  expect(result.failed).toBeUndefined();
  expect(seen).toEqual([
    '1/5 PUT contoso-api ok',
    '2/5 PUT contoso-geo ok',
    '3/5 PUT contoso-web ok',
    '4/5 PUT status ok',
    '5/5 DELETE old-api ok',
  ]);

  const again = await tmkit(['plan', PR, '--server', h.base, '--token', TOKEN, '--detailed-exitcode', '--no-preview']);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
});

test('a stale plan is refused before anything is written, naming what changed', async () => {
  const plan = readPlanJson(JSON.parse(readFileSync(await planFile(), 'utf8')));
  // Someone else deploys a change to contoso-web in between.
  const cur = await client.getProfile('contoso-web');
  await client.putProfile({ ...cur.profile, dnsConfig: { ...cur.profile.dnsConfig, ttl: 20 } }, { stack: 'web', ifMatch: cur.etag });
  const before = await client.listProfiles();
  await expect(executePlan(client, plan)).rejects.toThrow(PlanRefusedError);
  await expect(executePlan(client, plan)).rejects.toThrow(
    /stale, nothing was applied: profile contoso-web changed \(ETag .* → .*\) since the plan was made/,
  );
  expect(await client.listProfiles()).toEqual(before);
});

test('a failure mid-way reports exactly what was and was not applied', async () => {
  const plan = readPlanJson(JSON.parse(readFileSync(await planFile(), 'utf8')));
  const outcomes: StepOutcome[] = [];
  // After the second step, a concurrent writer changes contoso-web: its PUT (step 3) fails on If-Match.
  const result = await executePlan(client, plan, async (o) => {
    outcomes.push(o);
    if (o.index === 2) {
      const cur = await client.getProfile('contoso-web');
      await client.putProfile({ ...cur.profile, dnsConfig: { ...cur.profile.dnsConfig, ttl: 20 } }, { stack: 'web', ifMatch: cur.etag });
    }
  });
  expect(result.applied.map((o) => o.step.profile)).toEqual(['contoso-api', 'contoso-geo']);
  expect(result.failed).toMatchObject({ index: 3, ok: false, step: { profile: 'contoso-web', method: 'PUT' } });
  expect(result.failed!.error).toMatch(/412|If-Match|precondition/i);
  expect(result.notApplied.map((s) => `${s.method} ${s.profile}`)).toEqual(['PUT status', 'DELETE old-api']);
  // The server has exactly the applied part.
  expect((await client.findProfile('contoso-api'))?.stack).toBe('web');
  expect(await client.findProfile('old-api')).toBeDefined();
});

test('tmkit preview --against-server: before vs after for what the document changes', async () => {
  const r = await tmkit(['preview', PR, '--against-server', '--server', h.base, '--token', TOKEN, '--no-scenarios']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/ {6}eu-west +50% +40% +−10 pts/);
  expect(r.stdout).toContain('      GEO-ME: rest -> contoso-eu/eu-primary (15 regions:');
  expect(r.stdout).not.toContain('Plan:');
});

test('a plan with errors is refused', async () => {
  const wrongStack = normalize({ ...(JSON.parse(readFileSync(PR, 'utf8')) as DocumentInput), stack: 'other' });
  const plan = diff(
    wrongStack,
    (await client.listProfiles()).profiles.map((e) => ({ profile: e.profile, etag: e.etag, stack: e.stack })),
  );
  expect(plan.errors.map((e) => e.code)).toContain('PLAN_PROFILE_OWNED_BY_OTHER_STACK');
  await expect(executePlan(client, plan)).rejects.toThrow(/cannot be applied/);
});

test('tmkit preview --against-server with nothing to change says so instead of printing a blank line (issue 16 item 3)', async () => {
  const r = await tmkit(['preview', MAIN, '--against-server', '--server', h.base, '--token', TOKEN]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(
    'No routing changes. The deployed profiles of stack "web" match the document (5 profiles), so every client keeps its answer.\n',
  );
});

test('--max-failover-seconds names each profile over the bound, by how much and why (issue 16 item 5)', async () => {
  const r = await tmkit(['plan', PR, '--server', h.base, '--token', TOKEN, '--no-preview', '--max-failover-seconds', '60']);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain('EXCEEDS 60 s');
  const lines = r.stderr.trim().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) {
    expect(l).toMatch(
      /^tmkit: profile \S+: worst-case failover (\d+) s exceeds --max-failover-seconds 60 by (\d+) s: probe interval × \(tolerated failures \+ 1\) \+ timeout \+ TTL = \d+ × \(\d \+ 1\) \+ \d+ .*= \1 s/,
    );
    const [, total, over] = /failover (\d+) s exceeds .* by (\d+) s/.exec(l)!;
    expect(Number(total) - 60).toBe(Number(over));
  }
  expect(lines.some((l) => l.startsWith('tmkit: profile contoso-web: '))).toBe(true);
});
