/**
 * End to end with the real terraform and tofu (helpers' CLIS), the tmkit provider and a real `tmkit serve`:
 * - inline `endpoint` blocks on tmkit_profile: one resource, one write per apply, drift planned away, rule
 *   warnings at the block's attribute, and a separate endpoint resource on such a profile refused;
 * - creates whose answer is lost (a real TCP proxy drops it after the server wrote): the apply converges, and
 *   a create that finds its own object (state lost) adopts it, while other content is still RESOURCE_EXISTS;
 * - the provider's messages: swapped priorities name the other endpoint, rule warnings (WEIGHT_IGNORED) reach
 *   `plan` at their attribute, a missing token is one error on the provider block before any request, and an
 *   unreachable server names the provider's `server` setting.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { losingProxy, type LosingProxy } from '../lost-response-proxy';
import { CLIS, terraform, type TfResult } from './helpers';

jest.setTimeout(240_000);

const HEAD = 'terraform {\n  required_providers {\n    tmkit = { source = "tmkit/tmkit" }\n  }\n}\nprovider "tmkit" {}\n';
const flat = (r: TfResult): string => `${r.stdout}\n${r.stderr}`.replace(/[│╷╵]/g, '').replace(/\s+/g, ' ');
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe.each(CLIS)('$name: inline endpoints, lost answers, provider messages', (cli) => {
  let root: string;
  let serve: ServeProcess;
  let client: TmkitClient;
  let token: string;
  let rc: string;

  /** A working directory with `main.tf`, and terraform run there against `server` (default: tmkit serve). */
  const workspace = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    let env: NodeJS.ProcessEnv = {
      TF_CLI_CONFIG_FILE: rc,
      TF_DATA_DIR: join(dir, '.terraform'),
      TMKIT_SERVER: serve.api,
      TMKIT_TOKEN: token,
    };
    const tf = (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], dir, env, cli.bin);
    return {
      dir,
      tf,
      write: (hcl: string): string => {
        const text = HEAD + hcl;
        writeFileSync(join(dir, 'main.tf'), text);
        return text;
      },
      env: (e: NodeJS.ProcessEnv): void => {
        env = { ...env, ...e };
      },
      ok: async (...args: string[]): Promise<TfResult> => {
        const r = await tf(...args);
        if (r.code !== 0) throw new Error(`${cli.name} ${args[0]} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        return r;
      },
    };
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), `tmkit-tf-more-${cli.name}-`));
    serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
    token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
    client = new TmkitClient({ server: serve.api, token, env: {} });
    const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
    expect(inst.code).toBe(0);
    rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout.trim().split('\n').pop()!)![1]!;
  });
  afterAll(async () => {
    await client.close();
    serve.child.kill('SIGTERM');
    await serve.closed;
    rmSync(root, { recursive: true, force: true });
  });

  describe('inline endpoint blocks', () => {
    const profile = (blocks: string, method = 'Weighted'): string => `
resource "tmkit_profile" "web" {
  name                   = "inline-web"
  traffic_routing_method = "${method}"
  dns_config {
    relative_name = "inline-web"
  }
  monitor_config {
    protocol = "TCP"
    port     = 9
  }
${blocks}}
`;
    const block = (name: string, target: string, extra = ''): string =>
      `  endpoint {\n    name   = "${name}"\n    target = "${target}"\n    always_serve_enabled = true\n${extra}  }\n`;
    const three = block('a', '192.0.2.1', '    weight = 3\n') + block('b', '192.0.2.2') + block('c', '192.0.2.3');
    let w: ReturnType<typeof workspace>;
    beforeAll(() => {
      w = workspace('inline');
    });

    test('one resource for the whole profile: plan, one PUT on apply, DNS answers, then no changes', async () => {
      w.write(profile(three));
      await w.ok('init', '-input=false');
      const plan = await w.ok('plan', '-input=false');
      expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
      expect(plan.stdout).toMatch(
        /\+ endpoint \{[\s\S]*\+ name += "a"[\s\S]*\+ priority += 1[\s\S]*\+ type += "ExternalEndpoints"[\s\S]*\+ weight += 3/,
      );
      const before = (await client.healthz()).revision!;
      const r = await w.ok('apply', '-auto-approve', '-input=false');
      expect(r.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
      expect((await client.healthz()).revision).toBe(before + 1); // one write for the profile and its three endpoints
      const stored = await client.getProfile('inline-web');
      expect(stored.stack).toBe('terraform');
      expect(stored.profile.endpoints.map((e) => [e.name, e.target, e.weight, e.priority])).toEqual([
        ['a', '192.0.2.1', 3, 1],
        ['b', '192.0.2.2', 1, 2],
        ['c', '192.0.2.3', 1, 3],
      ]);
      expect((await dig(serve.dns, 'inline-web.tm.internal')).length).toBe(1);
      const again = await w.tf('plan', '-input=false', '-detailed-exitcode');
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('No changes.');
    });

    test('one weight edited: an in-place update of the profile, one PUT', async () => {
      w.write(profile(three.replace('weight = 3', 'weight = 7')));
      const plan = await w.ok('plan', '-input=false');
      expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
      expect(plan.stdout).toMatch(/~ weight += 3 -> 7/);
      const before = (await client.healthz()).revision!;
      await w.ok('apply', '-auto-approve', '-input=false');
      expect((await client.healthz()).revision).toBe(before + 1);
      expect((await client.getEndpoint('inline-web', 'a')).endpoint.weight).toBe(7);
    });

    test('an endpoint added outside Terraform is drift: the plan removes it, as the profile owns all its endpoints', async () => {
      await client.putEndpoint(
        'inline-web',
        { name: 'stray', type: 'externalEndpoints', target: '192.0.2.9', alwaysServe: 'Enabled' },
        { stack: 'terraform' },
      );
      const plan = await w.tf('plan', '-input=false', '-detailed-exitcode');
      expect(plan.code).toBe(2);
      expect(plan.stdout).toMatch(/- endpoint \{[\s\S]*- name += "stray"/);
      await w.ok('apply', '-auto-approve', '-input=false');
      expect((await client.getProfile('inline-web')).profile.endpoints.map((e) => e.name)).toEqual(['a', 'b', 'c']);
    });

    test('a separate endpoint resource on a profile with endpoint blocks is refused at plan time, on both', async () => {
      const text = w.write(`${profile(three.replace('weight = 3', 'weight = 7'))}
resource "tmkit_external_endpoint" "extra" {
  name       = "extra"
  profile_id = tmkit_profile.web.id
  target     = "192.0.2.4"
}
`);
      const r = await w.tf('plan', '-input=false');
      expect(r.code).toBe(1);
      const said = flat(r);
      expect(said).toContain('Error: endpoint "extra" is a separate resource of profile "inline-web", which has endpoint blocks');
      expect(said).toContain('either as `endpoint` blocks inside its tmkit_profile');
      expect(said).toContain(`on main.tf line ${lineOf(text, 'profile_id = tmkit_profile.web.id')}`);
    });

    test("a rule warning (WEIGHT_IGNORED) is a warning at the block's attribute; destroy removes the profile", async () => {
      const text = w.write(profile(three.replace('weight = 3', 'weight = 7'), 'Priority'));
      const r = await w.ok('plan', '-input=false');
      const said = flat(r);
      expect(said).toContain('Warning: endpoint "a": weight is ignored by Priority routing (only Weighted uses it)');
      expect(said).toContain(`on main.tf line ${lineOf(text, 'weight = 7')}`);
      expect(said).toContain('(tmkit rule WEIGHT_IGNORED)');
      const d = await w.ok('destroy', '-auto-approve', '-input=false');
      expect(d.stdout).toContain('Destroy complete! Resources: 1 destroyed.');
      expect(await client.findProfile('inline-web')).toBeUndefined();
    });
  });

  describe('creates whose answer is lost', () => {
    let proxy: LosingProxy | undefined;
    afterEach(async () => {
      await proxy?.close();
      proxy = undefined;
    });
    const config = (target: string): string => `
resource "tmkit_profile" "p" {
  name                   = "lost"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "lost"
  }
}
resource "tmkit_external_endpoint" "e" {
  for_each   = { one = "192.0.2.11", two = "${target}" }
  name       = each.key
  profile_id = tmkit_profile.p.id
  target     = each.value
}
`;
    let w: ReturnType<typeof workspace>;
    beforeAll(() => {
      w = workspace('lost');
    });

    test("the answers to the profile's and an endpoint's create are lost after the server wrote them: the apply converges, once", async () => {
      proxy = await losingProxy(
        serve.api,
        (method, path) => method === 'PUT' && /^\/v1\/profiles\/lost(\/endpoints\/two)?\?/.test(path),
        2,
      );
      w.env({ TMKIT_SERVER: proxy.url });
      w.write(config('192.0.2.12'));
      await w.ok('init', '-input=false');
      const r = await w.ok('apply', '-auto-approve', '-input=false');
      expect(proxy.lost).toEqual([
        expect.stringMatching(/^PUT \/v1\/profiles\/lost\?/),
        expect.stringMatching(/^PUT \/v1\/profiles\/lost\/endpoints\/two\?/),
      ]);
      expect(r.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
      expect((await client.getProfile('lost')).profile.endpoints.map((e) => e.name).sort()).toEqual(['one', 'two']);
      const again = await w.tf('plan', '-input=false', '-detailed-exitcode');
      expect(again.code).toBe(0);
    });

    test('a create that finds its own object (its state lost) adopts it; other content is still RESOURCE_EXISTS (another stack: test/client/resources.test.ts)', async () => {
      w.env({ TMKIT_SERVER: serve.api });
      await w.ok('state', 'rm', 'tmkit_external_endpoint.e["two"]');
      const plan = await w.ok('plan', '-input=false');
      expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
      const etag = (await client.getEndpoint('lost', 'two')).etag;
      const r = await w.ok('apply', '-auto-approve', '-input=false');
      expect(r.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
      expect((await client.getEndpoint('lost', 'two')).etag).toBe(etag); // adopted, nothing written
      await w.ok('state', 'rm', 'tmkit_external_endpoint.e["two"]');
      w.write(config('192.0.2.13'));
      const other = await w.tf('plan', '-input=false');
      expect(other.code).toBe(1);
      expect(flat(other)).toContain('Error: endpoint "two" of profile "lost" already exists');
      expect(flat(other)).toContain('(RESOURCE_EXISTS)');
      await w.ok(
        'import',
        '-input=false',
        'tmkit_external_endpoint.e["two"]',
        '/tmkit/stacks/terraform/trafficManagerProfiles/lost/ExternalEndpoints/two',
      );
      w.write(config('192.0.2.12'));
      await w.ok('destroy', '-auto-approve', '-input=false');
    });
  });

  describe('messages', () => {
    let w: ReturnType<typeof workspace>;
    beforeAll(() => {
      w = workspace('messages');
    });
    const config = (p1: number, p2: number, weight = 1): string => `
resource "tmkit_profile" "p" {
  name                   = "msg"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "msg"
  }
}
resource "tmkit_external_endpoint" "primary" {
  name       = "primary"
  profile_id = tmkit_profile.p.id
  target     = "192.0.2.21"
  priority   = ${p1}
  weight     = ${weight}
}
resource "tmkit_external_endpoint" "secondary" {
  name       = "secondary"
  profile_id = tmkit_profile.p.id
  target     = "192.0.2.22"
  priority   = ${p2}
}
`;

    test("swapped priorities: each endpoint's error names the other one, at its priority", async () => {
      w.write(config(1, 2));
      await w.ok('init', '-input=false');
      await w.ok('apply', '-auto-approve', '-input=false');
      const text = w.write(config(2, 1));
      const r = await w.tf('plan', '-input=false');
      expect(r.code).toBe(1);
      const said = flat(r);
      expect(said).toContain('Error: endpoint "primary" of profile "msg": priority 2 is also used by endpoint "secondary"');
      expect(said).toContain('Error: endpoint "secondary" of profile "msg": priority 1 is also used by endpoint "primary"');
      expect(said).not.toContain('endpoint "primary" of profile "msg": priority 2 is also used by endpoint "primary"');
      expect(said).toContain(`on main.tf line ${lineOf(text, 'priority   = 2')}, in resource "tmkit_external_endpoint" "primary"`);
    });

    test('a rule warning reaches the plan as a warning at its attribute (WEIGHT_IGNORED)', async () => {
      const text = w.write(config(1, 2, 5));
      const r = await w.ok('plan', '-input=false');
      const said = flat(r);
      expect(said).toContain('Warning: endpoint "primary" of profile "msg": weight is ignored by Priority routing (only Weighted uses it)');
      expect(said).toContain(`on main.tf line ${lineOf(text, 'weight     = 5')}, in resource "tmkit_external_endpoint" "primary"`);
    });

    test('no token: one error on the provider block, naming token, TMKIT_TOKEN and where the token file was looked for, before any request', async () => {
      const requests = async (): Promise<number> =>
        [...(await client.metrics()).matchAll(/^tmkit_api_requests_total\{.*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
      const r1 = await requests();
      const seen = await requests();
      const own = seen - r1; // what one metrics read adds by itself
      w.env({ TMKIT_TOKEN: undefined, TMKIT_STATE_DIR: join(root, 'no-such-state') });
      const r = await w.tf('plan', '-input=false');
      w.env({ TMKIT_TOKEN: token, TMKIT_STATE_DIR: undefined });
      expect(r.code).toBe(1);
      const said = flat(r);
      expect(said.match(/Error:/g)).toHaveLength(1);
      expect(said).toContain(`Error: no API token for the tmkit server at ${serve.api}`);
      expect(said).toContain('Set token in the provider "tmkit" block');
      expect(said).toContain('or TMKIT_TOKEN');
      expect(said).toContain(`looked for ${join(root, 'no-such-state', 'token')}`);
      expect(said).toMatch(/in provider "tmkit"/);
      expect(await requests()).toBe(seen + own); // no request from the provider
    });

    test("an unreachable server: the hint names the provider's server setting, not --server", async () => {
      w.env({ TMKIT_SERVER: 'http://127.0.0.1:1' });
      const r = await w.tf('plan', '-input=false');
      w.env({ TMKIT_SERVER: serve.api });
      expect(r.code).toBe(1);
      const said = flat(r);
      expect(said).toContain('cannot reach the tmkit server at http://127.0.0.1:1');
      expect(said).toContain('Set server in the provider "tmkit" block, or TMKIT_SERVER');
      expect(said).not.toContain('--server');
      w.write(config(1, 2));
      await w.ok('destroy', '-auto-approve', '-input=false');
    });
  });
});
