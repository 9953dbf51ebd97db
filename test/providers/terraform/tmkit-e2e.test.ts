/**
 * End to end with the real terraform (1.11.4 here), and again with OpenTofu's tofu (1.10; helpers' CLIS), and the tmkit provider against a real `tmkit serve`
 * (DNS and API on 127.0.0.1:0), following examples/terraform: install, init, plan, apply, dig answers, a
 * second plan with no changes, one weight edited (a one-attribute in-place update), relative_name changed (a
 * replace), import, drift made with the tmkit CLI, a stale apply refused (RESOURCE_CHANGED, the refresh hint), a broken configuration (the rule's message at its line),
 * a cross-endpoint conflict at plan time naming both endpoints, `tmkit plan --from-terraform`, destroy
 * (NXDOMAIN). Another stack's profile exists throughout and is never touched.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { dig, runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { CLIS, REPO, terraform, type TfResult } from './helpers';

jest.setTimeout(240_000);

const TARGETS = ['192.0.2.11', '192.0.2.12', '198.51.100.21', '198.51.100.22'];
const OTHER = {
  apiVersion: 'tmkit/v1',
  stack: 'ops',
  profiles: [
    {
      name: 'ops-web',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'ops-web' },
      endpoints: [{ name: 'a', type: 'externalEndpoints', target: '203.0.113.5' }],
    },
  ],
};

describe.each(CLIS)('$name e2e with the tmkit provider and a real tmkit serve', (cli) => {
  let root: string;
  let work: string;
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;
  let client: TmkitClient;
  let otherEtag: string;
  const tf = (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], work, env, cli.bin);
  const ok = (r: TfResult): TfResult => {
    if (r.code !== 0) throw new Error(`terraform exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
    return r;
  };
  const mainTf = (): string => readFileSync(join(work, 'main.tf'), 'utf8');
  const edit = (from: string | RegExp, to: string): void => {
    const text = mainTf();
    const next = text.replace(from, to);
    if (next === text) throw new Error(`main.tf has no ${String(from)}`);
    writeFileSync(join(work, 'main.tf'), next);
  };
  const answers = async (name: string): Promise<string[]> => dig(serve.dns, name);

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tmkit-tf-tmkit-e2e-'));
    work = join(root, 'work');
    mkdirSync(work);
    serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
    const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
    client = new TmkitClient({ server: serve.api, token, env: {} });
    const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
    expect(inst.code).toBe(0);
    const rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout.trim().split('\n').pop()!)![1]!;
    env = { TF_CLI_CONFIG_FILE: rc, TF_DATA_DIR: join(work, '.terraform'), TMKIT_SERVER: serve.api, TMKIT_TOKEN: token };
    writeFileSync(join(root, 'other.json'), JSON.stringify(OTHER));
    const other = await runTmkit(['apply', join(root, 'other.json'), '--yes'], { env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: token } });
    expect(other.code).toBe(0);
    otherEtag = (await client.getProfile('ops-web')).etag;
    copyFileSync(join(REPO, 'examples/terraform/main.tf'), join(work, 'main.tf'));
  });
  afterAll(async () => {
    // The other stack's profile was never written by any step.
    const other = await client.getProfile('ops-web');
    await client.close();
    serve.child.kill('SIGTERM');
    await serve.closed;
    rmSync(root, { recursive: true, force: true });
    expect(other.etag).toBe(otherEtag);
    expect(other.stack).toBe('ops');
  });

  test("init installs tmkit/tmkit from the mirror; plan shows azurerm's defaults and computed ids known after apply", async () => {
    ok(await tf('init', '-input=false'));
    const r = ok(await tf('plan', '-input=false'));
    expect(r.stdout).toContain('Plan: 9 to add, 0 to change, 0 to destroy.');
    expect(r.stdout).toContain('+ id                     = "/tmkit/stacks/terraform/trafficManagerProfiles/app"'); // a function of stack and name
    expect(r.stdout).toMatch(/\+ fqdn += \(known after apply\)/);
    expect(r.stdout).toMatch(/\+ profile_status += "Enabled"/);
    expect(r.stdout).toMatch(/\+ traffic_view_enabled += false/);
    expect(r.stdout).toMatch(/\+ enabled += true/);
    expect(r.stdout).toMatch(/\+ priority += \(known after apply\)/);
  });

  test('apply creates the profiles; dig answers a leaf target; a second plan says No changes', async () => {
    const r = ok(await tf('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Apply complete! Resources: 9 added, 0 changed, 0 destroyed.');
    expect(r.stdout).toContain('fqdn = "app.tm.internal"');
    const stored = await client.listProfiles({ stack: 'terraform' });
    expect(stored.profiles.map((p) => p.name).sort()).toEqual(['app', 'app-eu', 'app-us']);
    expect(
      stored.profiles
        .find((p) => p.name === 'app')!
        .profile.endpoints.map((e) => [e.name, e.type, e.targetResourceId, e.endpointLocation])
        .sort(),
    ).toEqual([
      ['eu', 'nestedEndpoints', '/tmkit/stacks/terraform/trafficManagerProfiles/app-eu', 'westeurope'],
      ['us', 'nestedEndpoints', '/tmkit/stacks/terraform/trafficManagerProfiles/app-us', 'eastus'],
    ]);
    for (let i = 0; i < 4; i++) {
      const a = await answers('app.tm.internal');
      expect(a).toHaveLength(1);
      expect(TARGETS).toContain(a[0]);
    }
    expect(await answers('app-eu.tm.internal')).toEqual([expect.stringMatching(/^192\.0\.2\.1[12]$/)]);
    const again = await tf('plan', '-input=false', '-detailed-exitcode');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  test('one weight edited: a one-attribute in-place update', async () => {
    edit('"eu-1" = { target = "192.0.2.11", weight = 3 }', '"eu-1" = { target = "192.0.2.11", weight = 5 }');
    const plan = ok(await tf('plan', '-input=false'));
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect(plan.stdout).toMatch(/~ weight += 3 -> 5/);
    expect(plan.stdout.match(/^ {6}[~+-] /gm)).toHaveLength(1); // one attribute changes
    ok(await tf('apply', '-auto-approve', '-input=false'));
    expect((await client.getEndpoint('app-eu', 'eu-1')).endpoint.weight).toBe(5);
  });

  test('monitor_config.degraded_latency_ms (issue 31): one attribute added in place to both regional profiles, stored, then no changes', async () => {
    edit(
      '    tolerated_number_of_failures = 3\n    expected_status_code_ranges  = ["200-299"]\n',
      '    tolerated_number_of_failures = 3\n    expected_status_code_ranges  = ["200-299"]\n    degraded_latency_ms          = 800\n',
    );
    const plan = ok(await tf('plan', '-input=false'));
    expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
    expect(plan.stdout.match(/\+ degraded_latency_ms += 800/g)).toHaveLength(2);
    ok(await tf('apply', '-auto-approve', '-input=false'));
    const stored = (await client.listProfiles({ stack: 'terraform' })).profiles.filter(
      (p) => p.profile.monitorConfig.degradedLatencyMs === 800,
    );
    expect(stored.map((p) => p.name).sort()).toEqual(['app-eu', 'app-us']);
    expect(ok(await tf('plan', '-input=false')).stdout).toContain('No changes.');
  });

  test('drift made with the tmkit CLI shows in the plan and is planned away', async () => {
    const stack = await client.listProfiles({ stack: 'terraform' });
    const doc = { apiVersion: 'tmkit/v1', stack: 'terraform', profiles: stack.profiles.map((p) => p.profile) };
    doc.profiles.find((p) => p.name === 'app-us')!.endpoints.find((e) => e.name === 'us-2')!.weight = 7;
    writeFileSync(join(root, 'drift.json'), JSON.stringify(doc));
    const applied = await runTmkit(['apply', join(root, 'drift.json'), '--yes'], {
      env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: env.TMKIT_TOKEN! },
    });
    expect(applied.code).toBe(0);
    const plan = await tf('plan', '-input=false', '-detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/tmkit_external_endpoint\.server\["us-2"\] will be updated in-place[\s\S]*~ weight += 7 -> 1/);
    ok(await tf('apply', '-auto-approve', '-input=false'));
    expect((await client.getEndpoint('app-us', 'us-2')).endpoint.weight).toBe(1);
  });

  test('a change made after Terraform last read: apply -refresh=false is refused with what changed and the refresh hint, nothing written; a refreshing apply undoes it', async () => {
    edit('"eu-1" = { target = "192.0.2.11", weight = 5 }', '"eu-1" = { target = "192.0.2.11", weight = 6 }');
    await client.patchEndpoint('app-eu', 'eu-1', { weight: 8 });
    const stale = await tf('apply', '-auto-approve', '-input=false', '-refresh=false');
    expect(stale.code).toBe(1);
    const said = stale.stderr.replace(/│/g, '').replace(/\s+/g, ' ');
    expect(said).toContain(
      "Error: endpoint 'app-eu/eu-1' was changed by someone else since it was last read (weight 5 → 8); nothing was written",
    );
    expect(said).toContain(
      'Run `terraform refresh` to take the change into the state (the next `terraform plan` then shows what it would undo), then `terraform apply`. (RESOURCE_CHANGED)',
    );
    expect((await client.getEndpoint('app-eu', 'eu-1')).endpoint.weight).toBe(8);
    ok(await tf('apply', '-auto-approve', '-input=false'));
    expect((await client.getEndpoint('app-eu', 'eu-1')).endpoint.weight).toBe(6);
  });

  test('import: an endpoint removed from the state is imported by id and plans no changes', async () => {
    ok(await tf('state', 'rm', 'tmkit_external_endpoint.server["eu-2"]'));
    const r = ok(
      await tf(
        'import',
        '-input=false',
        'tmkit_external_endpoint.server["eu-2"]',
        '/tmkit/stacks/terraform/trafficManagerProfiles/app-eu/ExternalEndpoints/eu-2',
      ),
    );
    expect(r.stdout).toContain('Import successful!');
    ok(await tf('state', 'rm', 'tmkit_profile.app'));
    ok(await tf('import', '-input=false', 'tmkit_profile.app', '/tmkit/stacks/terraform/trafficManagerProfiles/app'));
    const plan = await tf('plan', '-input=false', '-detailed-exitcode');
    expect(plan.stdout).toContain('No changes.');
    const wrongKind = await tf(
      'import',
      '-input=false',
      'tmkit_nested_endpoint.region["eu"]',
      '/tmkit/stacks/terraform/trafficManagerProfiles/app-eu/ExternalEndpoints/eu-1',
    );
    expect(wrongKind.code).toBe(1);
  });

  test("a broken configuration fails at its line with the rule's message", async () => {
    const good = mainTf();
    edit(
      '    ttl           = 30\n  }\n\n  monitor_config {\n    protocol                     = "HTTP"',
      '    ttl           = -5\n  }\n\n  monitor_config {\n    protocol                     = "HTTP"',
    );
    const line =
      mainTf()
        .split('\n')
        .findIndex((l) => l.includes('ttl           = -5')) + 1;
    const r = await tf('plan', '-input=false');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ttl -5 is out of range/);
    expect(r.stderr).toContain(`on main.tf line ${line}, in resource "tmkit_profile" "region"`);
    writeFileSync(join(work, 'main.tf'), good);
  });

  test('a cross-endpoint conflict is found at plan time, naming both endpoints and how to fix it', async () => {
    const good = mainTf();
    writeFileSync(
      join(work, 'main.tf'),
      `${good}\nresource "tmkit_external_endpoint" "dup" {\n  name       = "eu-3"\n  profile_id = tmkit_profile.region["eu"].id\n  target     = "192.0.2.13"\n  priority   = 1\n}\n`,
    );
    const holder = (await client.getProfile('app-eu')).profile.endpoints.find((e) => e.priority === 1)!.name;
    const r = await tf('plan', '-input=false');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`endpoint "eu-3" of profile "app-eu": priority 1 is also used by endpoint "${holder}"`);
    expect(r.stderr).toMatch(/on main\.tf line \d+, in resource "tmkit_external_endpoint" "dup":\n\s+\d+:\s+priority\s+= 1/);
    expect(r.stderr).toMatch(/move one of them to a free priority first/);
    writeFileSync(join(work, 'main.tf'), good);
  });

  test('a profile name another stack owns is refused at plan time', async () => {
    const good = mainTf();
    writeFileSync(
      join(work, 'main.tf'),
      `${good}\nresource "tmkit_profile" "theirs" {\n  name                   = "ops-web"\n  traffic_routing_method = "Priority"\n  dns_config {\n    relative_name = "ops-web-2"\n  }\n}\n`,
    );
    const r = await tf('plan', '-input=false');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/profile "ops-web" is owned by stack "ops", not "terraform"/);
    writeFileSync(join(work, 'main.tf'), good);
  });

  test("tmkit plan --from-terraform renders tmkit's plan and routing preview of the planned values", async () => {
    edit('"us-1" = { target = "198.51.100.21", weight = 1 }', '"us-1" = { target = "198.51.100.21", weight = 4 }');
    ok(await tf('plan', '-input=false', '-out', join(root, 'tfplan')));
    const show = ok(await terraform(['show', '-json', join(root, 'tfplan')], work, env, cli.bin));
    writeFileSync(join(root, 'plan.json'), show.stdout);
    const r = await runTmkit(['plan', '--from-terraform', join(root, 'plan.json'), '--format', 'markdown'], {
      env: { TMKIT_SERVER: serve.api, TMKIT_TOKEN: env.TMKIT_TOKEN! },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<!-- tmkit-plan -->');
    expect(r.stdout).toMatch(/0 to add, 1 to change, 0 to replace, 0 to destroy/);
    expect(r.stdout).toContain('us-1 weight 1 → 4');
    expect(r.stdout).toMatch(/`us-1` \| 50% \| 80%/);
    edit('"us-1" = { target = "198.51.100.21", weight = 4 }', '"us-1" = { target = "198.51.100.21", weight = 1 }');
  });

  test('relative_name changed: the profile is replaced (and its endpoints with it, as with azurerm); the new name answers, the old one is NXDOMAIN', async () => {
    edit(/dns_config \{\n {4}relative_name = "app"\n/, 'dns_config {\n    relative_name = "shop"\n');
    const plan = ok(await tf('plan', '-input=false'));
    expect(plan.stdout).toMatch(/tmkit_profile\.app must be replaced/);
    expect(plan.stdout).toMatch(/~ relative_name = "app" -> "shop" # forces replacement/);
    const r = ok(await tf('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('fqdn = "shop.tm.internal"');
    expect(TARGETS).toContain((await answers('shop.tm.internal'))[0]);
    expect(await answers('app.tm.internal')).toEqual([]);
    expect((await tf('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
  });

  test("destroy removes everything it manages: NXDOMAIN, and the other stack's profile stays", async () => {
    const r = ok(await tf('destroy', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Destroy complete! Resources: 9 destroyed.');
    expect((await client.listProfiles({ stack: 'terraform' })).profiles).toEqual([]);
    const nx = await new Promise<string>((resolve) => {
      const child = require('node:child_process').spawn('dig', [
        `@${serve.dns.address}`,
        '-p',
        String(serve.dns.port),
        'shop.tm.internal',
        'A',
        '+time=2',
        '+tries=1',
      ]);
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d;
      });
      child.on('close', () => resolve(out));
    });
    expect(nx).toMatch(/status: NXDOMAIN/);
    expect(await answers('ops-web.tm.internal')).toEqual(['203.0.113.5']);
  });
  test('examples/terraform/from-azurerm: the azurerm configuration, renamed as its README says, applies unchanged', async () => {
    const dir = join(REPO, 'examples/terraform/from-azurerm');
    const renamed = readFileSync(join(dir, 'azurerm.tf'), 'utf8')
      .replace(/azurerm_traffic_manager_(profile|external_endpoint|azure_endpoint|nested_endpoint)/g, 'tmkit_$1')
      .split('\n')
      .filter((l) => !l.includes('resource_group_name'))
      .join('\n');
    const blocks = (text: string): string[] =>
      text
        .split(/\n(?=resource |output )/)
        .filter((b) => /^(resource "tmkit_|output )/.test(b))
        .map((b) => b.trim());
    expect(blocks(readFileSync(join(dir, 'main.tf'), 'utf8'))).toEqual(blocks(renamed));
    const azure = join(root, 'azurerm');
    mkdirSync(azure);
    copyFileSync(join(dir, 'main.tf'), join(azure, 'main.tf'));
    const run = (...args: string[]): Promise<TfResult> =>
      terraform([...args, '-no-color'], azure, { ...env, TF_DATA_DIR: join(azure, '.terraform') }, cli.bin);
    ok(await run('init', '-input=false'));
    const r = ok(await run('apply', '-auto-approve', '-input=false'));
    expect(r.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
    expect(await answers('web.tm.internal')).toEqual(['primary.example.com.']);
    expect((await run('plan', '-input=false', '-detailed-exitcode')).code).toBe(0);
    ok(await run('destroy', '-auto-approve', '-input=false'));
  });
});
