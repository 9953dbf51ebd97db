/**
 * Routing assertions in HCL (issue 41 item 2), end to end with the real terraform and tofu (helpers' CLIS), the
 * tmkit provider and a real `tmkit serve`: provider::tmkit::resolve and ::worst_case_failover
 * - on the tmkit_profile resource itself, in outputs, a check block and an output precondition, before the
 *   profile exists (its id and fqdn unknown) and after; the check warns and the precondition fails the plan
 *   when the routing or the failover time moves under them;
 * - in `terraform test` / `tofu test`: a passing file, and one whose expectation is wrong failing with its message;
 * - on an object of the resource's attributes (no resource at all), with the core's rules: an invalid profile,
 *   a misspelt attribute, a bad client and an unknown `down` endpoint are errors at that argument.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmkitClient } from '../../../src/client';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';
import { CLIS, terraform, type TfResult } from './helpers';

jest.setTimeout(300_000);

const HEAD = 'terraform {\n  required_providers {\n    tmkit = { source = "tmkit/tmkit" }\n  }\n}\nprovider "tmkit" {}\n';
const flat = (r: TfResult): string => `${r.stdout}\n${r.stderr}`.replace(/[│╷╵]/g, '').replace(/\s+/g, ' ');

/** A Priority profile: weu first, neu second; 10 × (2 + 1) + 5 + TTL 30 = 65 s. */
const profile = (weu: number, neu: number, interval = 10): string => `
variable "max_failover" {
  type    = number
  default = 120
}
resource "tmkit_profile" "web" {
  name                   = "fnweb"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "fnweb"
    ttl           = 30
  }
  monitor_config {
    protocol                     = "HTTP"
    port                         = 80
    path                         = "/"
    interval_in_seconds          = ${interval}
    timeout_in_seconds           = 5
    tolerated_number_of_failures = 2
  }
  endpoint {
    name     = "weu"
    target   = "192.0.2.1"
    priority = ${weu}
  }
  endpoint {
    name     = "neu"
    target   = "192.0.2.2"
    priority = ${neu}
  }
}
output "primary" {
  value = provider::tmkit::resolve(tmkit_profile.web, "81.2.69.142")
}
output "weu_down" {
  value = provider::tmkit::resolve(tmkit_profile.web, "81.2.69.142", "weu")
}
output "failover_seconds" {
  value = provider::tmkit::worst_case_failover(tmkit_profile.web)
  precondition {
    condition     = provider::tmkit::worst_case_failover(tmkit_profile.web) <= var.max_failover
    error_message = "fnweb fails over in more than \${var.max_failover} s."
  }
}
check "web_routing" {
  assert {
    condition     = provider::tmkit::resolve(tmkit_profile.web, "81.2.69.142") == ["weu"]
    error_message = "fnweb no longer sends clients to weu first."
  }
}
`;

const TEST_PASS = `
run "primary_and_failover" {
  command = plan
  assert {
    condition     = output.primary == ["weu"]
    error_message = "primary: got \${jsonencode(output.primary)}"
  }
  assert {
    condition     = provider::tmkit::resolve(tmkit_profile.web, "2001:db8::/32", "weu") == ["neu"]
    error_message = "weu down: got \${jsonencode(provider::tmkit::resolve(tmkit_profile.web, "2001:db8::/32", "weu"))}"
  }
  assert {
    condition     = provider::tmkit::worst_case_failover(tmkit_profile.web) <= 65
    error_message = "failover too slow"
  }
}
`;

const TEST_FAIL = `
run "wrong_expectation" {
  command = plan
  assert {
    condition     = provider::tmkit::resolve(tmkit_profile.web, "81.2.69.142") == ["neu"]
    error_message = "expected neu first, got \${jsonencode(provider::tmkit::resolve(tmkit_profile.web, "81.2.69.142"))}"
  }
}
`;

/** Profiles as objects of tmkit_profile's attributes, no resource: every routing method the functions take offline. */
const OBJECTS = `
locals {
  weighted = {
    name                   = "canary"
    traffic_routing_method = "Weighted"
    endpoint = [
      { name = "blue", target = "192.0.2.1", weight = 9 },
      { name = "green", target = "192.0.2.2", weight = 1 },
      { name = "off", target = "192.0.2.3", weight = 1, enabled = false },
    ]
  }
  subnet = {
    name                   = "office"
    traffic_routing_method = "Subnet"
    endpoint = [
      { name = "lan", target = "192.0.2.1", subnet = [{ first = "10.0.0.0", scope = 8 }] },
      { name = "dc", target = "192.0.2.2", subnet = [{ first = "192.168.0.0", last = "192.168.255.255" }] },
    ]
  }
  multi = {
    name                   = "multi"
    traffic_routing_method = "MultiValue"
    max_return             = 2
    endpoint = [
      { name = "a", target = "192.0.2.1" },
      { name = "b", target = "192.0.2.2" },
    ]
  }
  always = {
    name                   = "always"
    traffic_routing_method = "Priority"
    dns_config             = { relative_name = "always", ttl = 60 }
    endpoint               = [{ name = "a", target = "192.0.2.1", always_serve_enabled = true }]
  }
}
locals {
  kid = {
    name                   = "kid"
    traffic_routing_method = "Priority"
    endpoint               = [{ name = "c1", target = "192.0.2.11" }, { name = "c2", target = "192.0.2.12" }]
  }
  top = {
    name                   = "top"
    traffic_routing_method = "Priority"
    endpoint = [
      { name = "kids", type = "NestedEndpoints", target_resource_id = "/tmkit/stacks/terraform/trafficManagerProfiles/kid" },
      { name = "backup", target = "192.0.2.2" },
    ]
  }
}
output "nested" { value = provider::tmkit::resolve([local.top, local.kid], "198.51.100.7", "kid/c1") }
output "weighted" { value = provider::tmkit::resolve(local.weighted, "198.51.100.7") }
output "subnet_lan" { value = provider::tmkit::resolve(local.subnet, "10.1.2.0/24") }
output "subnet_other" { value = provider::tmkit::resolve(local.subnet, "198.51.100.7") }
output "multi" { value = provider::tmkit::resolve(local.multi, "198.51.100.7") }
output "multi_all_down" { value = provider::tmkit::resolve(local.multi, "198.51.100.7", "a", "b") }
output "default_failover" { value = provider::tmkit::worst_case_failover(local.multi) }
output "always_failover" { value = provider::tmkit::worst_case_failover(local.always) == null }
`;

const ERRORS = `
locals {
  dup = {
    name                   = "dup"
    traffic_routing_method = "Priority"
    endpoint = [
      { name = "a", target = "192.0.2.1", priority = 1 },
      { name = "b", target = "192.0.2.2", priority = 1 },
    ]
  }
  one = { name = "one", traffic_routing_method = "Priority", endpoint = [{ name = "a", target = "192.0.2.1" }] }
}
output "dup" { value = provider::tmkit::resolve(local.dup, "192.0.2.9") }
output "typo" { value = provider::tmkit::worst_case_failover(merge(local.one, { traffic_routing_methd = "Priority" })) }
output "client" { value = provider::tmkit::resolve(local.one, "10.1.2.3/8") }
output "down" { value = provider::tmkit::resolve(local.one, "10.1.2.3", "b") }
`;

describe.each(CLIS)('$name: provider::tmkit functions', (cli) => {
  let root: string;
  let serve: ServeProcess;
  let client: TmkitClient;
  let token: string;
  let rc: string;

  const workspace = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir);
    const env: NodeJS.ProcessEnv = {
      TF_CLI_CONFIG_FILE: rc,
      TF_DATA_DIR: join(dir, '.terraform'),
      TMKIT_SERVER: serve.api,
      TMKIT_TOKEN: token,
    };
    const tf = (...args: string[]): Promise<TfResult> => terraform([...args, '-no-color'], dir, env, cli.bin);
    return {
      dir,
      tf,
      write: (hcl: string, file = 'main.tf'): void => {
        if (file.includes('/')) mkdirSync(join(dir, file.slice(0, file.lastIndexOf('/'))), { recursive: true });
        writeFileSync(join(dir, file), file === 'main.tf' ? HEAD + hcl : hcl);
      },
      ok: async (...args: string[]): Promise<TfResult> => {
        const r = await tf(...args);
        if (r.code !== 0) throw new Error(`${cli.name} ${args[0]} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
        return r;
      },
    };
  };
  const outputs = async (w: ReturnType<typeof workspace>): Promise<Record<string, unknown>> => {
    const r = await w.ok('output', '-json');
    return Object.fromEntries(Object.entries(JSON.parse(r.stdout) as Record<string, { value: unknown }>).map(([k, v]) => [k, v.value]));
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), `tmkit-tf-fn-${cli.name}-`));
    serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
    token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
    client = new TmkitClient({ server: serve.api, token, env: {} });
    const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
    if (inst.code !== 0) throw new Error(`tmkit terraform install exited ${inst.code}: ${inst.stderr}`);
    rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout.trim().split('\n').pop()!)![1]!;
  });
  afterAll(async () => {
    await client?.close();
    serve?.child.kill('SIGTERM');
    await serve?.closed;
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('on the tmkit_profile resource: outputs, a check block and a precondition, before and after apply; test files', async () => {
    const w = workspace('resource');
    w.write(profile(1, 2));
    await w.ok('init', '-input=false');

    // Before the profile exists: its id and fqdn are unknown, which the functions do not read.
    const planned = flat(await w.ok('plan', '-input=false'));
    expect(planned).toMatch(/\+ failover_seconds = 65/);
    expect(planned).toMatch(/\+ primary = \[ \+ "weu", \]/);
    expect(planned).toMatch(/\+ weu_down = \[ \+ "neu", \]/);
    expect(planned).not.toContain('Check block assertion');

    await w.ok('apply', '-auto-approve', '-input=false');
    expect(await outputs(w)).toEqual({ primary: ['weu'], weu_down: ['neu'], failover_seconds: 65 });

    // terraform test / tofu test: a passing file, then one whose expectation is wrong.
    w.write(TEST_PASS, 'tests/routing.tftest.hcl');
    const passed = flat(await w.ok('test'));
    expect(passed).toMatch(/run "primary_and_failover"\.\.\. pass/);
    expect(passed).toMatch(/Success! 1 passed, 0 failed/);
    w.write(TEST_FAIL, 'tests/wrong.tftest.hcl');
    const failed = await w.tf('test', '-filter=tests/wrong.tftest.hcl');
    expect(failed.code).toBe(1);
    expect(flat(failed)).toMatch(/run "wrong_expectation"\.\.\. fail/);
    expect(flat(failed)).toContain('expected neu first, got ["weu"]');
    expect(flat(failed)).toMatch(/0 passed, 1 failed/);
    rmSync(join(w.dir, 'tests'), { recursive: true });

    // The routing changes under the check (neu now first): the plan warns with the check's message.
    w.write(profile(2, 1));
    const moved = await w.ok('plan', '-input=false');
    expect(flat(moved)).toContain('Warning: Check block assertion failed');
    expect(flat(moved)).toContain('fnweb no longer sends clients to weu first.');
    expect(flat(moved)).toMatch(/~ primary = \[ (~ "weu" -> "neu"|- "weu", \+ "neu"),? \]/);

    // The failover time grows past the bound (30 × 3 + 5 + 30 = 125 s > 120): the precondition fails the plan.
    w.write(profile(1, 2, 30));
    const slow = await w.tf('plan', '-input=false');
    expect(slow.code).toBe(1);
    expect(flat(slow)).toContain('Error: Module output value precondition failed');
    expect(flat(slow)).toContain('fnweb fails over in more than 120 s.');
    const bound = flat(await w.ok('plan', '-input=false', '-var', 'max_failover=125'));
    expect(bound).toMatch(/~ failover_seconds = 65 -> 125/);

    w.write(profile(1, 2));
    await w.ok('destroy', '-auto-approve', '-input=false');
  });

  test('a nested tree of tmkit_profile resources, at its first plan: the list [parent, child]', async () => {
    const w = workspace('nested');
    w.write(`
resource "tmkit_profile" "eu" {
  name                   = "fneu"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "fneu"
  }
  endpoint {
    name   = "weu"
    target = "192.0.2.1"
  }
  endpoint {
    name   = "neu"
    target = "192.0.2.2"
  }
}
resource "tmkit_profile" "top" {
  name                   = "fntop"
  traffic_routing_method = "Priority"
  dns_config {
    relative_name = "fntop"
  }
  endpoint {
    name               = "eu"
    type               = "NestedEndpoints"
    target_resource_id = tmkit_profile.eu.id
  }
  endpoint {
    name   = "us"
    target = "192.0.2.9"
  }
}
output "first" { value = provider::tmkit::resolve([tmkit_profile.top, tmkit_profile.eu], "198.51.100.7") }
output "weu_down" { value = provider::tmkit::resolve([tmkit_profile.top, tmkit_profile.eu], "198.51.100.7", "fneu/weu") }
output "eu_down" { value = provider::tmkit::resolve([tmkit_profile.top, tmkit_profile.eu], "198.51.100.7", "fneu/weu", "fneu/neu") }
output "failover" { value = provider::tmkit::worst_case_failover([tmkit_profile.top, tmkit_profile.eu]) }
`);
    await w.ok('init', '-input=false');
    const said = flat(await w.ok('plan', '-input=false'));
    expect(said).toMatch(/\+ first = \[ \+ "fneu\/weu", \]/);
    expect(said).toMatch(/\+ weu_down = \[ \+ "fneu\/neu", \]/);
    expect(said).toMatch(/\+ eu_down = \[ \+ "us", \]/);
    expect(said).toMatch(/\+ failover = 160/); // 30 × (3 + 1) + 10 + TTL 30, the defaults
  });

  test('on objects of the same attributes, offline: a nested tree, Weighted, Subnet (ECS prefix), MultiValue, down endpoints, no probe', async () => {
    const w = workspace('objects');
    w.write(OBJECTS);
    await w.ok('init', '-input=false');
    await w.ok('apply', '-auto-approve', '-input=false');
    expect(await outputs(w)).toEqual({
      nested: ['kid/c2'], // the child's second endpoint, named by its path
      weighted: ['blue', 'green'],
      subnet_lan: ['lan'],
      subnet_other: [], // in no range: NODATA
      multi: ['a', 'b'],
      multi_all_down: ['a', 'b'], // all degraded: answered as if all were online (Azure's rule)
      default_failover: 30 * (3 + 1) + 10 + 30,
      always_failover: true,
    });
  });

  test("errors name the argument and the core's rule", async () => {
    const w = workspace('errors');
    w.write(ERRORS);
    await w.ok('init', '-input=false');
    const r = await w.tf('plan', '-input=false');
    expect(r.code).toBe(1);
    const said = flat(r);
    expect(said.match(/Error: Invalid function argument/g)).toHaveLength(4);
    expect(said).toContain(
      'Invalid value for "profile" parameter: endpoint "b": priority: priority 1 is also used by endpoint "a"; priorities are unique within a profile',
    );
    expect(said).toContain('[tmkit rule PRIORITY_DUPLICATE]');
    expect(said).toContain(
      'Invalid value for "profile" parameter: "traffic_routing_methd" is not an attribute of tmkit_profile (did you mean "traffic_routing_method"?)',
    );
    expect(said).toContain(
      'Invalid value for "client" parameter: client "10.1.2.3/8" is not an IP address or a CIDR prefix: host bits are set after /8 (did you mean 10.0.0.0/8?)',
    );
    expect(said).toContain('Invalid value for "down" parameter: "b" is not an endpoint of profile one (it has a; did you mean "a"?)');
  });
});
