/**
 * End to end with the real Pulumi CLI and a real `tmkit serve`: the example program (examples/pulumi,
 * the nested Performance + Weighted scenario) as an inline program through the Automation API, the
 * shipped plugin found through `plugins.providers`, real HTTP health endpoints on 127.0.0.x, and `dig`.
 * The steps share one stack and run in order. Fails (never skips) when the CLI is missing (harness).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent, Stack } from '@pulumi/pulumi/automation';
import * as network from 'tmkit/pulumi';
import { TmkitClient } from '../../../src/client';
import { contoso, type ContosoSettings } from '../../../examples/pulumi/contoso';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { healthServer } from '../../support/loopback';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { REPO, newStack, type E2eStack } from './harness';

jest.setTimeout(240_000);

const TOKEN = 'e2e-pulumi-t0ken-9f3a';
const ZONE = 'tm.internal';
const ADDR = { westus: '127.0.0.21', production: '127.0.0.22', canary: '127.0.0.23', eastasia: '127.0.0.24' };
/** ECS client subnets the shipped country database places in Germany, the US and Japan. */
const CLIENT = { de: '5.9.0.0/24', us: '8.8.8.0/24', jp: '133.1.0.0/24' };

type Health = Awaited<ReturnType<typeof healthServer>>;
let health: Health[] = [];
let serve: ServeProcess;
let client: TmkitClient;
let e2e: E2eStack;
let stack: Stack;
let work: string;
let settings: ContosoSettings;

/** Health servers on every endpoint address, all on one port (a profile probes one port). */
async function healthServers(hosts: string[]): Promise<Health[]> {
  for (let attempt = 0; ; attempt++) {
    const first = await healthServer(hosts[0]!);
    const rest: Health[] = [];
    try {
      for (const h of hosts.slice(1)) rest.push(await healthServer(h, first.port));
      return [first, ...rest];
    } catch (err) {
      await Promise.all([first, ...rest].map((s) => s.close()));
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
    }
  }
}

/** `dig` with the status line and the answer section (optionally with an ECS client subnet). */
function dig(name: string, subnet?: string): Promise<{ status: string; answers: string[] }> {
  return new Promise((resolve, reject) => {
    const args = [
      `@${serve.dns.address}`,
      '-p',
      String(serve.dns.port),
      name,
      'A',
      '+noall',
      '+comments',
      '+answer',
      '+time=2',
      '+tries=1',
      ...(subnet ? [`+subnet=${subnet}`] : []),
    ];
    const child = spawn('dig', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => {
      const status = /status: (\w+)/.exec(out)?.[1] ?? `no status in: ${out}`;
      const answers = out
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith(';'))
        .map((l) => l.split(/\s+/).pop()!);
      resolve({ status, answers });
    });
  });
}

const program =
  (over: Partial<ContosoSettings> = {}, more?: () => void) =>
  async () => {
    const out = contoso({ ...settings, ...over });
    more?.();
    return out;
  };

/**
 * A program whose registration fails never returns: an inline program that returns after the engine gave
 * up makes the SDK register stack outputs with a monitor that is gone (an unhandled rejection).
 */
const failing = (build: () => void) => async () => {
  build();
  return new Promise<Record<string, never>>(() => undefined);
};

function recorder(): { events: EngineEvent[]; onEvent: (e: EngineEvent) => void } {
  const events: EngineEvent[] = [];
  return {
    events,
    onEvent: (e) => {
      events.push(e);
    },
  };
}

/** The pre-step of the tmkit resource named `name`. */
function step(events: EngineEvent[], name: string) {
  return events
    .map((e) => e.resourcePreEvent?.metadata)
    .filter((m): m is NonNullable<typeof m> => m?.type.startsWith('tmkit:index:') === true && m.urn.endsWith(`::${name}`));
}

async function pulumiProfiles(): Promise<string[]> {
  return (await client.listProfiles({ stack: 'pulumi' })).profiles.map((p) => p.name).sort();
}

let otherEtag: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-e2e-'));
  health = await healthServers(Object.values(ADDR));
  settings = { targets: ADDR, monitorPort: health[0]!.port };
  serve = await spawnServe(join(work, 'state'), ['--zone', ZONE], { TMKIT_TOKEN: TOKEN });
  client = new TmkitClient({ server: serve.api, token: TOKEN, env: {} });
  // Another team's profile, deployed with `tmkit apply` in its own stack: nothing here may touch it.
  const doc = join(work, 'other.json');
  writeFileSync(
    doc,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      stack: 'other',
      profiles: [
        {
          name: 'other',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'other', ttl: 30 },
          endpoints: [{ name: 'only', type: 'externalEndpoints', target: '127.0.0.31' }],
        },
      ],
    }),
  );
  const applied = await runTmkit(['apply', doc, '--yes'], { env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: TOKEN } });
  expect(applied.code).toBe(0);
  otherEtag = (await client.getProfile('other')).etag;

  e2e = await newStack(program(), { stackName: 'dev' });
  stack = e2e.stack;
  await stack.setConfig('tmkit:server', { value: serve.api });
  await stack.setConfig('tmkit:token', { value: TOKEN, secret: true });
});

afterAll(async () => {
  await client?.close();
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  await Promise.all(health.map((h) => h.close()));
  if (e2e) rmSync(e2e.work, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a validation error is shown by preview with its property path, before anything is created', async () => {
  let message = '';
  try {
    await stack.preview({
      program: failing(() => {
        new network.Profile('broken', {
          trafficRoutingMethod: 'Weighted',
          dnsConfig: { relativeName: 'broken', ttl: -1 },
          endpoints: [{ name: 'a', type: 'externalEndpoints', target: '127.0.0.99', weight: 0 }],
        });
      }),
    });
  } catch (err) {
    message = String((err as Error).message);
  }
  expect(message).toMatch(
    /tmkit:index:Profile resource 'broken'.*property dnsConfig\.ttl .*has a problem: ttl -1 is out of range: an integer 0–2147483647 seconds/,
  );
  expect(message).toMatch(/property endpoints\[0\]\.weight .*has a problem: weight 0 is out of range: an integer 1–1000/);
  expect(await pulumiProfiles()).toEqual([]);
  expect((await stack.exportStack()).deployment.resources ?? []).toEqual([]);
});

test('up deploys the nested Performance + Weighted scenario; dig answers per region and weight', async () => {
  const pv = await stack.preview();
  expect(pv.changeSummary).toEqual({ create: 5 }); // the stack and four tmkit resources
  expect(await pulumiProfiles()).toEqual([]);
  const up = await stack.up();
  expect(up.summary.resourceChanges).toEqual({ create: 5 });
  expect(up.outputs.fqdn!.value).toBe(`app.${ZONE}`);
  expect(up.outputs.appId!.value).toBe('/tmkit/stacks/pulumi/trafficManagerProfiles/app');
  expect(await pulumiProfiles()).toEqual(['app', 'app-westeurope']);
  // The token (secret config) is only ciphertext in the stored state.
  const stateFile = readFileSync(join(e2e.work, 'state/.pulumi/stacks/tmkite2e/dev.json'), 'utf8');
  expect(stateFile).toContain('"tmkit:index:Profile"');
  expect(stateFile).not.toContain(TOKEN);
  const child = await client.getProfile('app-westeurope');
  // The two Endpoint resources are created in parallel, in either order.
  expect(child.profile.endpoints.map((e) => [e.name, e.target, e.weight]).sort()).toEqual([
    ['canary', ADDR.canary, 10],
    ['production', ADDR.production, 90],
  ]);
  expect((await client.getProfile('app')).profile.endpoints[1]).toMatchObject({
    name: 'westeurope',
    type: 'nestedEndpoints',
    targetResourceId: '/tmkit/stacks/pulumi/trafficManagerProfiles/app-westeurope',
    minChildEndpoints: 2,
  });

  expect(await dig(`app.${ZONE}`, CLIENT.us)).toEqual({ status: 'NOERROR', answers: [ADDR.westus] });
  expect(await dig(`app.${ZONE}`, CLIENT.jp)).toEqual({ status: 'NOERROR', answers: [ADDR.eastasia] });
  const europe = new Set<string>();
  for (let i = 0; i < 12; i++) {
    const r = await dig(`app.${ZONE}`, `5.9.${i}.0/24`);
    expect(r.status).toBe('NOERROR');
    expect(r.answers).toHaveLength(1);
    europe.add(r.answers[0]!);
  }
  expect([...europe].every((a) => a === ADDR.production || a === ADDR.canary)).toBe(true);
  expect((await dig(`app-westeurope.${ZONE}`)).answers[0]).toMatch(/^127\.0\.0\.2[23]$/);
});

test('preview of a one-weight change shows a one-property update; up applies just that', async () => {
  const rec = recorder();
  const pv = await stack.preview({ program: program({ canaryWeight: 30 }), onEvent: rec.onEvent });
  expect(pv.changeSummary).toEqual({ same: 4, update: 1 });
  const [canary] = step(rec.events, 'canary');
  expect(canary!.op).toBe('update');
  expect(canary!.diffs).toEqual(['weight']);
  expect(canary!.detailedDiff).toEqual({ weight: { diffKind: 'update', inputDiff: true } });
  expect((await client.getEndpoint('app-westeurope', 'canary')).endpoint.weight).toBe(10);
  const before = await client.getEndpoint('app-westeurope', 'production');
  const up = await stack.up({ program: program({ canaryWeight: 30 }) });
  expect(up.summary.resourceChanges).toEqual({ same: 4, update: 1 });
  expect((await client.getEndpoint('app-westeurope', 'canary')).endpoint.weight).toBe(30);
  expect((await client.getEndpoint('app-westeurope', 'production')).etag).toBe(before.etag);
  settings = { ...settings, canaryWeight: 30 };
});

test("a relativeName change replaces the profile; it stays the same tmkit profile, so its endpoints and the parent's nesting stay", async () => {
  const rec = recorder();
  const pv = await stack.preview({ program: program({ childRelativeName: 'app-europe' }), onEvent: rec.onEvent });
  const child = step(rec.events, 'app-westeurope').find((m) => m.op === 'replace');
  expect(child!.detailedDiff).toEqual({ 'dnsConfig.relativeName': { diffKind: 'update-replace', inputDiff: true } });
  expect(child!.keys).toEqual(['dnsConfig']);
  // The replacement's id is known in preview (it is the name's), so the parent nesting it shows no change.
  expect(pv.changeSummary).toEqual({ same: 4, replace: 1 });
  const endpointsBefore = (await client.getProfile('app-westeurope')).profile.endpoints;

  const up = await stack.up({ program: program({ childRelativeName: 'app-europe' }), onEvent: rec.onEvent });
  expect(up.summary.resourceChanges).toEqual({ same: 4, replace: 1 });
  const stored = await client.getProfile('app-westeurope');
  expect(stored.profile.dnsConfig.relativeName).toBe('app-europe');
  expect(stored.profile.endpoints).toEqual(endpointsBefore);
  expect(up.outputs.childFqdn!.value).toBe(`app-europe.${ZONE}`);
  expect((await dig(`app-westeurope.${ZONE}`)).status).toBe('NXDOMAIN');
  expect((await dig(`app-europe.${ZONE}`)).answers[0]).toMatch(/^127\.0\.0\.2[23]$/);
  expect((await dig(`app.${ZONE}`, CLIENT.de)).answers[0]).toMatch(/^127\.0\.0\.2[23]$/);
  settings = { ...settings, childRelativeName: 'app-europe' };
});

test('a change made with the tmkit CLI: up refuses to overwrite it, refresh shows it, the next up undoes it', async () => {
  // `tmkit apply` of the stack's profiles as they are, with the parent's TTL changed.
  const current = (await client.listProfiles({ stack: 'pulumi' })).profiles.map((p) => p.profile);
  const doc = join(work, 'by-hand.json');
  writeFileSync(
    doc,
    JSON.stringify({
      apiVersion: 'tmkit/v1',
      stack: 'pulumi',
      profiles: current.map((p) => (p.name === 'app' ? { ...p, dnsConfig: { ...p.dnsConfig, ttl: 300 } } : p)),
    }),
  );
  const applied = await runTmkit(['apply', doc, '--yes'], { env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: TOKEN } });
  expect(applied.stdout).toContain('PUT app (update)');
  expect(applied.code).toBe(0);

  // An up that writes the parent finds it changed and stops, saying what changed and what to do.
  let message = '';
  try {
    await stack.up({ program: program({ ttl: 20 }) });
  } catch (err) {
    message = String((err as Error).message);
  }
  expect(message).toContain(
    "profile 'app' was changed by someone else since it was last read (dnsConfig.ttl 30 → 300); nothing was written: run `pulumi refresh`",
  );
  expect((await client.getProfile('app')).profile.dnsConfig.ttl).toBe(300);

  const rec = recorder();
  const rf = await stack.refresh({ onEvent: rec.onEvent });
  expect(rf.summary.resourceChanges).toMatchObject({ update: 1 });
  const done = rec.events.map((e) => e.resOutputsEvent?.metadata).filter((m) => m?.type === 'tmkit:index:Profile' && m.op === 'update');
  expect(done.map((m) => [m!.urn.split('::').pop(), m!.detailedDiff])).toEqual([
    ['app', { 'dnsConfig.ttl': { diffKind: 'update', inputDiff: true } }],
  ]);

  const rec2 = recorder();
  const pv = await stack.preview({ onEvent: rec2.onEvent, program: program() });
  expect(pv.changeSummary).toEqual({ same: 4, update: 1 });
  expect(step(rec2.events, 'app')[0]!.detailedDiff).toEqual({ 'dnsConfig.ttl': { diffKind: 'update', inputDiff: true } });
  await stack.up({ program: program() });
  expect((await client.getProfile('app')).profile.dnsConfig.ttl).toBe(30);
});

test('the import option adopts an existing profile without writing it', async () => {
  await client.putProfile(
    {
      name: 'legacy',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'legacy', ttl: 60 },
      monitorConfig: { protocol: 'HTTP', port: settings.monitorPort, path: '/healthz' },
      endpoints: [
        { name: 'primary', type: 'externalEndpoints', target: ADDR.westus },
        { name: 'backup', type: 'externalEndpoints', target: ADDR.eastasia },
      ],
    },
    { stack: 'pulumi' },
  );
  const before = await client.getProfile('legacy');
  const withLegacy = program({}, () => {
    new network.Profile(
      'legacy',
      {
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'legacy', ttl: 60 },
        monitorConfig: { protocol: 'HTTP', port: settings.monitorPort, path: '/healthz' },
        endpoints: [
          { name: 'primary', type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', target: ADDR.westus },
          { name: 'backup', type: 'Microsoft.Network/trafficManagerProfiles/externalEndpoints', target: ADDR.eastasia },
        ],
      },
      { import: '/tmkit/stacks/pulumi/trafficManagerProfiles/legacy' },
    );
  });
  const up = await stack.up({ program: withLegacy });
  expect(up.summary.resourceChanges).toEqual({ same: 5, import: 1 });
  expect(await client.getProfile('legacy')).toEqual(before);
  const again = await stack.preview({ program: withLegacy });
  expect(again.changeSummary).toEqual({ same: 6 });
  expect((await dig(`legacy.${ZONE}`)).answers).toEqual([ADDR.westus]);
});

test("destroy deletes what the stack made (NXDOMAIN); the other stack's profile is untouched throughout", async () => {
  const ds = await stack.destroy();
  expect(ds.summary.resourceChanges).toEqual({ delete: 6 });
  expect(await pulumiProfiles()).toEqual([]);
  for (const name of ['app', 'app-europe', 'legacy']) expect((await dig(`${name}.${ZONE}`)).status).toBe('NXDOMAIN');
  const other = await client.getProfile('other');
  expect(other.etag).toBe(otherEtag);
  expect(other.stack).toBe('other');
  expect(await dig(`other.${ZONE}`)).toEqual({ status: 'NOERROR', answers: ['127.0.0.31'] });
});

test('installed with `tmkit pulumi install`, the engine finds the plugin on PATH', async () => {
  const dir = join(work, 'plugin');
  const r = installPulumi({
    dir,
    version: (require(join(REPO, 'package.json')) as { version: string }).version,
    entry: join(REPO, 'dist/providers/pulumi/src/main.js'),
  });
  const onPath = await newStack(
    failing(() => {
      new network.Profile('found', { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'found', ttl: 99999999999 } });
    }),
    { stackName: 'path', tmkitPlugin: false, env: { PATH: `${r.dir}:${process.env.PATH}` } },
  );
  try {
    let message = '';
    try {
      await onPath.stack.preview();
    } catch (err) {
      message = String((err as Error).message);
    }
    // The plugin ran (its check answered), so the engine found it on PATH.
    expect(message).toMatch(/property dnsConfig\.ttl .*has a problem: ttl 99999999999 is out of range/);
  } finally {
    rmSync(onPath.work, { recursive: true, force: true });
  }
});
