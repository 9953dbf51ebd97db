import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { azure, external, nested, plan, profile, profileId, type Resource, same } from '../support/azurerm-plan';
import { tmkit } from './run';

/**
 * `tmkit plan --from-terraform plan.json` on plans of azurerm Traffic Manager resources: the real CLI on
 * plan JSON built from azurerm's documented schema, with no tmkit server anywhere (TMKIT_SERVER points at a
 * closed port, so any request would fail the command).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-plan-azurerm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OFFLINE = { TMKIT_SERVER: 'http://127.0.0.1:9', TMKIT_TOKEN: 'x'.repeat(32), NO_COLOR: '1' };

function planFile(name: string, resources: Resource[]): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(plan(resources), null, 2));
  return p;
}

const run = (args: string[]) => tmkit(args, { env: OFFLINE });

const P = 'azurerm_traffic_manager_profile';
const EXT = 'azurerm_traffic_manager_external_endpoint';

describe('tmkit plan --from-terraform with azurerm_traffic_manager_* resources (a preview of Azure, offline)', () => {
  test('create: a new profile and endpoints whose profile_id is known after apply, joined by the configuration', async () => {
    const shop = profile('shop', 'Weighted');
    const unknownProfile = { id: true, fqdn: true };
    const a = external('shop', 'blue', 'blue.example.com', { weight: 90 });
    const b = external('shop', 'green', 'green.example.com', { weight: 10 });
    const ref = { profile_id: [`${P}.shop.id`, `${P}.shop`] };
    const file = planFile('create.json', [
      { address: `${P}.shop`, action: 'create', after: { ...shop, id: null, fqdn: null }, unknown: unknownProfile },
      {
        address: `${EXT}.blue`,
        action: 'create',
        after: { ...a, id: null, profile_id: null },
        unknown: { id: true, profile_id: true },
        references: ref,
      },
      {
        address: `${EXT}.green`,
        action: 'create',
        after: { ...b, id: null, profile_id: null },
        unknown: { id: true, profile_id: true },
        references: ref,
      },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Preview of Azure Traffic Manager changes \(Terraform plan .*create\.json\), not of a tmkit runtime/);
    expect(r.stdout).toContain(`${EXT}.blue: profile_id is known after apply; joined to ${P}.shop, which the configuration references`);
    expect(r.stdout).toContain('  + profile shop (create)');
    expect(r.stdout).toMatch(/ {6}blue {6}90%\n {6}green {5}10%/);
    expect(r.stdout).not.toContain('Apply order');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('Plan: 1 to add, 0 to change, 0 to replace, 0 to destroy.');
    expect((await run(['plan', '--from-terraform', file, '--detailed-exitcode'])).code).toBe(2);
  });

  test('update: a weight change shows the shares before and after; markdown and JSON carry the label', async () => {
    const shop = profile('shop', 'Weighted');
    const a = external('shop', 'blue', 'blue.example.com', { weight: 3 });
    const b = external('shop', 'green', 'green.example.com', { weight: 1 });
    const file = planFile('weight.json', [
      same(`${P}.shop`, shop),
      same(`${EXT}.blue`, a),
      { address: `${EXT}.green`, action: 'update', before: b, after: { ...b, weight: 3 } },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('      ~ endpoints[green].weight: 1 -> 3');
    expect(r.stdout).toMatch(/green +25% +50% +\+25 pts/);
    const md = await run(['plan', '--from-terraform', file, '--format', 'markdown']);
    expect(md.stdout).toContain('### tmkit preview of Azure Traffic Manager — Terraform plan');
    expect(md.stdout).toContain('> [!NOTE]');
    expect(md.stdout).toContain('not of a tmkit runtime');
    const json = JSON.parse((await run(['plan', '--from-terraform', file, '--format', 'json'])).stdout);
    expect(json.azure.source).toMatch(/^Terraform plan .*weight\.json$/);
    expect(json.changes.find((c: { profile: string }) => c.profile === 'shop').action).toBe('update');
  });

  test('a plan that swaps two priorities previews the new primary, and warns that azurerm applies the swap one endpoint at a time', async () => {
    const web = profile('web', 'Priority');
    const a = external('web', 'primary', 'weu.example.com', { priority: 1 });
    const b = external('web', 'backup', 'neu.example.com', { priority: 2 });
    const file = planFile('swap.json', [
      same(`${P}.web`, web),
      { address: `${EXT}.primary`, action: 'update', before: a, after: { ...a, priority: 2 } },
      { address: `${EXT}.backup`, action: 'update', before: b, after: { ...b, priority: 1 } },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('      active: primary -> backup');
    expect(r.stdout).toContain(`takes priority 2 from ${EXT}.backup`);
    expect(r.stdout).toContain(`(resource ${EXT}.primary) [AZURE_PRIORITY_SWAP]`);
  });

  test('two endpoints sharing a priority: exit 1 naming the rule and the resource address', async () => {
    const web = profile('web', 'Priority');
    const a = external('web', 'primary', 'weu.example.com', { priority: 1 });
    const b = external('web', 'backup', 'neu.example.com', { priority: 2 });
    const file = planFile('dup.json', [
      same(`${P}.web`, web),
      same(`${EXT}.primary`, a),
      { address: `${EXT}.backup`, action: 'update', before: b, after: { ...b, priority: 1 } },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('PRIORITY_DUPLICATE');
    expect(r.stderr).toContain(`(resource ${EXT}.backup)`);
    expect(r.stderr).toContain("the planned Traffic Manager profiles break Azure's rules");
    expect(r.stderr).not.toContain('127.0.0.1:9');
  });

  test('delete: an endpoint and a whole profile', async () => {
    const web = profile('web', 'Priority');
    const old = profile('old', 'Weighted');
    const a = external('web', 'primary', 'weu.example.com', { priority: 1 });
    const b = external('web', 'backup', 'neu.example.com', { priority: 2 });
    const o = external('old', 'only', 'old.example.com', { weight: 1 });
    const file = planFile('delete.json', [
      same(`${P}.web`, web),
      same(`${EXT}.primary`, a),
      { address: `${EXT}.backup`, action: 'delete', before: b },
      { address: `${P}.old`, action: 'delete', before: old },
      { address: `${EXT}.only`, action: 'delete', before: o },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  - profile old (destroy)');
    expect(r.stdout).toContain('      - endpoints[backup]');
    expect(r.stdout).toContain('if primary fails: nowhere else; still sent to it: 100% of answers [single-point-of-failure]');
    expect(r.stdout).toContain('note: profile destroyed: every query for old gets NXDOMAIN');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('Plan: 0 to add, 1 to change, 0 to replace, 1 to destroy.');
  });

  test('replace: a new relative_name (ForceNew) with a new routing method; the endpoints follow with profile_id known after apply', async () => {
    const before = profile('web', 'Priority');
    const after = { ...profile('web', 'Weighted'), dns_config: [{ relative_name: 'web-v2', ttl: 30 }], id: null, fqdn: null };
    const a = external('web', 'primary', 'weu.example.com', { priority: 1, weight: 1 });
    const b = external('web', 'backup', 'neu.example.com', { priority: 2, weight: 1 });
    const ref = { profile_id: [`${P}.web.id`, `${P}.web`] };
    const file = planFile('replace.json', [
      { address: `${P}.web`, action: 'replace', before, after, unknown: { id: true, fqdn: true } },
      {
        address: `${EXT}.primary`,
        action: 'replace',
        before: a,
        after: { ...a, id: null, profile_id: null },
        unknown: { id: true, profile_id: true },
        references: ref,
      },
      {
        address: `${EXT}.backup`,
        action: 'replace',
        before: b,
        after: { ...b, id: null, profile_id: null },
        unknown: { id: true, profile_id: true },
        references: ref,
      },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  -/+ profile web (replace)');
    expect(r.stdout).toContain('      ~ trafficRoutingMethod: "Priority" -> "Weighted"');
    expect(r.stdout).toContain(`${EXT}.primary: profile_id is known after apply; joined to ${P}.web`);
    expect(r.stdout).toMatch(/backup +0% +50% +\+50 pts/);
    expect(r.stdout).toContain('clients still using the old name get NXDOMAIN');
  });

  test('unknowns: a nested child and an Azure Web App created in the same plan, a priority Azure assigns; said in the output', async () => {
    const parent = profile('global', 'Priority');
    const child = profile('eu', 'Performance');
    const app = {
      name: 'shop-weu',
      location: 'westeurope',
      resource_group_name: 'rg-apps',
      id: null,
      default_hostname: null,
    };
    const file = planFile('unknowns.json', [
      same(`${P}.global`, parent),
      { address: `${P}.eu`, action: 'create', after: { ...child, id: null, fqdn: null }, unknown: { id: true, fqdn: true } },
      { address: 'azurerm_linux_web_app.weu', action: 'create', after: app, unknown: { id: true, default_hostname: true } },
      {
        address: 'azurerm_traffic_manager_azure_endpoint.weu',
        action: 'create',
        after: { ...azure('eu', 'weu', 'x'), id: null, profile_id: null, target_resource_id: null },
        unknown: { id: true, profile_id: true, target_resource_id: true },
        references: {
          profile_id: [`${P}.eu.id`, `${P}.eu`],
          target_resource_id: ['azurerm_linux_web_app.weu.id', 'azurerm_linux_web_app.weu'],
        },
      },
      same(`${EXT}.onprem`, external('global', 'onprem', '203.0.113.10', { priority: 1 })),
      {
        address: 'azurerm_traffic_manager_nested_endpoint.eu',
        action: 'create',
        after: { ...nested('global', 'eu', 'x'), id: null, target_resource_id: null, endpoint_location: null },
        unknown: { id: true, target_resource_id: true, priority: true, endpoint_location: true },
        references: { profile_id: [`${P}.global.id`, `${P}.global`], target_resource_id: [`${P}.eu.id`, `${P}.eu`] },
      },
    ]);
    const r = await run(['plan', '--from-terraform', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const notes = r.stdout.slice(0, r.stdout.indexOf('Symbols'));
    expect(notes).toContain(
      'azurerm_traffic_manager_nested_endpoint.eu: target_resource_id is known after apply; joined to azurerm_traffic_manager_profile.eu',
    );
    expect(notes).toContain(
      'azurerm_traffic_manager_azure_endpoint.weu: target_resource_id is known after apply (azurerm_linux_web_app.weu); previewed as that resource',
    );
    expect(notes).toContain('previewed as shop-weu.azurewebsites.net (pass --resources');
    expect(notes).toContain(
      'azurerm_traffic_manager_nested_endpoint.eu: priority is known after apply; previewed as 2, the next free one Azure assigns',
    );
    expect(r.stdout).toContain('  + profile eu (create)');
    expect(r.stdout).toContain('  ~ profile global (update)');
    expect(r.stdout).toContain('      + endpoints[eu]: nested, → eu, priority 2, minChildEndpoints 1');
    expect(r.stdout).toContain('if onprem fails: eu/weu (253)');
    expect(r.stdout).toContain('/resourceGroups/rg-apps/providers/Microsoft.Web/sites/shop-weu');
  });

  test('sensitive custom header values are masked; a preview refuses tmkit apply, --deployed and tmkit_* resources in the same plan', async () => {
    const shop = profile('shop', 'Weighted');
    const a = external('shop', 'blue', 'blue.example.com', { weight: 1 });
    const withHeader = { ...a, custom_header: [{ name: 'x-key', value: 's3cr3t-v4lue' }] };
    const file = planFile('sensitive.json', [
      same(`${P}.shop`, shop),
      { address: `${EXT}.blue`, action: 'update', before: a, after: withHeader, afterSensitive: { custom_header: [{ value: true }] } },
    ]);
    const out = join(dir, 'azure-plan.json');
    const r = await run(['plan', '--from-terraform', file, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(sensitive value)');
    expect(r.stdout).not.toContain('s3cr3t-v4lue');
    const apply = await run(['apply', out, '--yes']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('previews changes to Azure Traffic Manager, not to a tmkit runtime');
    const deployed = await run(['plan', '--from-terraform', file, '--deployed', file]);
    expect(deployed.code).toBe(2);
    expect(deployed.stderr).toContain('drop --deployed');
    const mixed = plan([same(`${P}.shop`, shop), same('tmkit_profile.web', { name: 'web' })]);
    const mixedFile = join(dir, 'mixed.json');
    writeFileSync(mixedFile, JSON.stringify(mixed));
    const m = await run(['plan', '--from-terraform', mixedFile]);
    expect(m.code).toBe(2);
    expect(m.stderr).toContain('has both tmkit_* and azurerm_traffic_manager_* resources');
    expect(profileId('shop')).toContain('/trafficManagerProfiles/shop');
  });
});
