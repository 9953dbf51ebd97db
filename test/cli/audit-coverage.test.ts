/**
 * `tmkit audit` covers every traffic-changing command and API write (issue 40 item 3), against a real
 * `tmkit serve`: apply (create, update), destroy, endpoint disable/enable, pushed health (changes only, not
 * each identical push), overrides, webhooks, a DNSSEC rollover, a cookie rotation, node drain/undrain, each
 * through the real CLI, and profile/endpoint/pushed-health/probe-failure writes as raw API calls. Each entry says who
 * (`--who`, by default the OS user: $USER, else os.userInfo; `api` for an API caller without a name), what
 * (target, the change old → new), when, and why where the command takes a reason.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { AuditEntry } from '../../src/core/api';
import { runTmkit, spawnServe, type ServeProcess } from '../support/process';

jest.setTimeout(180_000);

let dir: string;
let proc: ServeProcess | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-audit-'));
});
afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  proc = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function doc(ttl: number): string {
  return JSON.stringify({
    apiVersion: 'tmkit/v1',
    stack: 'default',
    profiles: [
      {
        name: 'web',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'web', ttl },
        monitorConfig: { protocol: 'HTTP', port: 9, path: '/healthz', intervalInSeconds: 30, toleratedNumberOfFailures: 3 },
        endpoints: [
          { name: 'primary', type: 'externalEndpoints', target: '127.0.0.51' },
          { name: 'backup', type: 'externalEndpoints', target: '127.0.0.52' },
        ],
      },
    ],
  });
}

test('every traffic-changing command and API write is in tmkit audit --json, with who, what and when; --who defaults to the OS user', async () => {
  const state = join(dir, 'state');
  proc = await spawnServe(state, ['--dnssec', '--webhook-allow-private']);
  const api = proc.api;
  const USER = 'jo.auditor';
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runTmkit(args, { cwd: dir, env: { TMKIT_SERVER: api, TMKIT_STATE_DIR: state, USER, ...env } });
  const ok = async (args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> => {
    const r = await cli(args, env);
    if (r.code !== 0) throw new Error(`tmkit ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  const token = readFileSync(join(state, 'token'), 'utf8').trim();
  const raw = async (method: 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<number> => {
    const r = await request(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    await r.body.text();
    return r.statusCode;
  };
  const audit = async (): Promise<AuditEntry[]> =>
    (JSON.parse(await ok(['audit', '--json', '--limit', '500'])) as { entries: AuditEntry[] }).entries.slice().reverse();

  const started = Date.now();
  // apply: create, then update (--who given), nothing when nothing changes.
  writeFileSync(join(dir, 'doc.json'), doc(30));
  await ok(['apply', 'doc.json', '--yes']);
  writeFileSync(join(dir, 'doc.json'), doc(60));
  await ok(['apply', 'doc.json', '--yes', '--who', 'alice@ops']);
  await ok(['apply', 'doc.json', '--yes']);
  // endpoint maintenance, with a reason.
  await ok(['endpoint', 'disable', 'web', 'backup', '--reason', 'patching']);
  await ok(['endpoint', 'disable', 'web', 'backup']); // already Disabled: no change, no entry
  await ok(['endpoint', 'enable', 'web', 'backup']);
  // pushed health: a pusher repeating itself leaves one entry per change.
  await ok(['endpoint', 'health', 'web', 'primary', 'online', '--for', '5m', '--reason', 'deploy ok']);
  await ok(['endpoint', 'health', 'web', 'primary', 'online', '--for', '5m', '--reason', 'deploy ok']);
  await ok(['endpoint', 'health', 'web', 'primary', 'online', '--for', '5m']);
  await ok(['endpoint', 'health', 'web', 'primary', 'degraded', '--for', '5m', '--reason', 'alert']);
  await ok(['endpoint', 'health', 'web', 'primary', '--clear']);
  // an override (its who used to default to `cli`).
  const ov = JSON.parse(await ok(['override', 'down', 'web', 'primary', '--for', '5m', '--force', '--reason', 'drill', '--json'])) as {
    id: string;
    who: string;
  };
  expect(ov.who).toBe(USER);
  await ok(['override', 'clear', ov.id]);
  // webhooks, DNSSEC, cookies, node.
  const hook = JSON.parse(await ok(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'transition', '--json'])) as { id: string };
  await ok(['webhooks', 'remove', hook.id]);
  await ok(['dnssec', 'rollover']);
  await ok(['cookies', 'rotate']);
  await ok(['node', 'drain', '--reason', 'rack move']);
  await ok(['node', 'undrain']);
  // raw API writes: a name given as ?who=, and none (recorded as `api`).
  const profile = JSON.parse(doc(30)).profiles[0] as { name: string; dnsConfig: { relativeName: string } };
  expect(
    await raw('PUT', '/v1/profiles/shop?who=deploy-bot&reason=new%20shop', {
      ...profile,
      name: 'shop',
      dnsConfig: { relativeName: 'shop', ttl: 30 },
    }),
  ).toBe(201);
  expect(await raw('PATCH', '/v1/profiles/shop/endpoints/backup', { endpointStatus: 'Disabled' })).toBe(200);
  expect(await raw('PUT', '/v1/profiles/shop/endpoints/primary/health', { status: 'Degraded', ttlSeconds: 60, reason: 'pager' })).toBe(200);
  expect(await raw('PUT', '/v1/profiles/shop/endpoints/primary/health', { status: 'Degraded', ttlSeconds: 60, reason: 'pager' })).toBe(200);
  expect(await raw('PUT', '/v1/profiles/shop/endpoints/primary/probe-failure', { forSeconds: 60, who: 'drill-bot' })).toBe(200);
  expect(await raw('DELETE', '/v1/profiles/shop/endpoints/primary/probe-failure?who=drill-bot')).toBe(200);
  expect(await raw('DELETE', '/v1/profiles/shop?who=deploy-bot')).toBe(200);
  // destroy: the last profile goes.
  await ok(['destroy', '--yes']);
  const ended = Date.now();

  const entries = await audit();
  for (const e of entries) {
    expect(Date.parse(e.at)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(e.at)).toBeLessThanOrEqual(ended + 1000);
  }
  const seen = entries.map((e) => `${e.who} ${e.action} ${e.target}${e.reason ? `: ${e.reason}` : ''}`);
  expect(seen).toEqual([
    `${USER} profile.create web`,
    'alice@ops profile.update web',
    `${USER} endpoint.disable web/backup: patching`,
    `${USER} endpoint.enable web/backup`,
    `${USER} health.push web/primary: deploy ok`,
    `${USER} health.push web/primary: alert`,
    `${USER} health.clear web/primary`,
    `${USER} override.create web/primary: drill`,
    `${USER} override.clear web/primary`,
    `${USER} webhook.add ${hook.id}`,
    `${USER} webhook.remove ${hook.id}`,
    `${USER} dnssec.rollover zone`,
    `${USER} cookies.rotate dns cookies`,
    `${USER} node.drain this server: rack move`,
    `${USER} node.undrain this server`,
    'deploy-bot profile.create shop: new shop',
    'api endpoint.disable shop/backup',
    'api health.push shop/primary: pager',
    'drill-bot probe-failure.inject shop/primary',
    'drill-bot probe-failure.clear shop/primary',
    'deploy-bot profile.delete shop',
    `${USER} profile.delete web`,
  ]);
  // What changed, old → new.
  const find = (action: string, target: string): AuditEntry => entries.find((e) => e.action === action && e.target === target)!;
  expect(find('profile.create', 'web').details).toMatchObject({ stack: 'default', changes: ['created with endpoints primary, backup'] });
  expect(find('profile.update', 'web').details!.changes).toEqual([
    expect.stringMatching(/^dnsConfig \{.*"ttl":30.*\} → \{.*"ttl":60.*\}$/),
  ]);
  expect(find('endpoint.disable', 'web/backup').details!.changes).toEqual(['endpoint backup: endpointStatus Enabled → Disabled']);
  expect(find('endpoint.enable', 'web/backup').details!.changes).toEqual(['endpoint backup: endpointStatus Disabled → Enabled']);
  expect(entries.filter((e) => e.action === 'health.push' && e.target === 'web/primary').map((e) => e.details!.changes)).toEqual([
    ['pushed (none) → Online'],
    ['pushed Online → Degraded'],
  ]);
  expect(find('health.clear', 'web/primary').details!.changes).toEqual(['pushed Degraded → (none)']);
  expect(find('profile.delete', 'web').details!.changes).toEqual(['deleted (endpoints primary, backup)']);

  // The text listing shows the same, newest first.
  const text = (await ok(['audit', '--limit', '3'])).split('\n').filter((l) => l !== '');
  expect(text).toHaveLength(3);
  expect(text[0]).toMatch(new RegExp(`^\\S+Z  ${USER.replace('.', '\\.')} +profile.delete +web$`));
  expect(text[1]).toMatch(/^\S+Z {2}deploy-bot +profile\.delete +shop$/);
  expect(text[2]).toMatch(/^\S+Z {2}drill-bot +probe-failure\.clear +shop\/primary$/);

  // Without $USER the OS account names the operator.
  const me = userInfo().username;
  const drained = await cli(['node', 'drain', '--json'], { USER: '', USERNAME: '' });
  expect(drained.code).toBe(0);
  expect((await audit()).at(-1)).toMatchObject({ action: 'node.drain', who: me });
  // --help says where the default comes from, never this machine's name.
  const help = await cli(['endpoint', 'disable', '--help']);
  expect(help.stdout).toContain('--who <name>');
  expect(help.stdout).toContain('$USER');
});
