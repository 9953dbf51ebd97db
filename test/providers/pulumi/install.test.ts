/**
 * `tmkit pulumi install`: the wrapper layout, idempotence, the wrapper really starts the plugin, the command's
 * last line, and the real Pulumi CLI installing the plugin from the directory offline.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPulumi } from '../../../providers/pulumi/src/install';
import { tmkit } from '../../cli/run';
import { REPO, findPulumiCli } from './harness';
import { spawnToPort } from './spawn';

const ENTRY = join(REPO, 'dist/providers/pulumi/src/main.js');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-install-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('one executable wrapper with the absolute node and entry, no PulumiPlugin.yaml; the PATH export', () => {
  const r = installPulumi({ dir: join(dir, 'plugins'), version: '1.2.3', entry: ENTRY });
  expect(r.executable).toBe(join(dir, 'plugins/pulumi-resource-tmkit'));
  expect(readdirSync(join(dir, 'plugins'))).toEqual(['pulumi-resource-tmkit']);
  expect(statSync(r.executable).mode & 0o777).toBe(0o755);
  expect(readFileSync(r.executable, 'utf8')).toBe(
    `#!/bin/sh\n# pulumi-resource-tmkit 1.2.3: the tmkit Pulumi provider, run with the Node.js that installed it (tmkit pulumi install).\nexec '${process.execPath}' '${ENTRY}' "$@"\n`,
  );
  expect(r.exportLine).toBe(`export PATH=${join(dir, 'plugins')}:$PATH`);
  expect(r.pluginInstall).toBe(`pulumi plugin install resource tmkit 1.2.3 --file ${join(dir, 'plugins')}`);
  expect(r.written).toEqual([r.executable]);
});

test('reinstall rewrites nothing; a bad version or a missing build is refused with what to do', () => {
  const a = installPulumi({ dir, version: VERSION, entry: ENTRY });
  const bytes = readFileSync(a.executable);
  const b = installPulumi({ dir, version: VERSION, entry: ENTRY });
  expect(b.written).toEqual([]);
  expect(readFileSync(b.executable).equals(bytes)).toBe(true);
  expect(() => installPulumi({ dir, version: 'v1', entry: ENTRY })).toThrow(/version "v1" is not a semantic version/);
  expect(() => installPulumi({ dir, version: VERSION, entry: join(dir, 'nope.js') })).toThrow(
    /does not exist; build the package first \(npm run build\)/,
  );
});

test('the wrapper starts the plugin: its port is the only stdout line', async () => {
  const r = installPulumi({ dir, version: VERSION, entry: ENTRY });
  const s = await spawnToPort(r.executable, ['127.0.0.1:1']);
  expect(s.stdout).toBe(`${s.port}\n`);
  expect(s.port).toBeGreaterThan(0);
});

test('`tmkit pulumi install --dir`: the export is the last stdout line; a second run says unchanged', async () => {
  const first = await tmkit(['pulumi', 'install', '--dir', join(dir, 'p')]);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  expect(first.stdout.trimEnd().split('\n').pop()).toBe(`export PATH=${join(dir, 'p')}:$PATH`);
  expect(first.stdout).toContain(`pulumi plugin install resource tmkit ${VERSION} --file ${join(dir, 'p')}`);
  const again = await tmkit(['pulumi', 'install', '--dir', join(dir, 'p')]);
  expect(again.stdout).toContain('(unchanged)');
});

test('the real Pulumi CLI installs the plugin from the directory, offline', () => {
  const cli = findPulumiCli();
  const r = installPulumi({ dir: join(dir, 'p'), version: VERSION, entry: ENTRY });
  const env = { ...process.env, PULUMI_HOME: join(dir, 'home'), PULUMI_SKIP_UPDATE_CHECK: 'true' };
  execFileSync(cli, ['plugin', 'install', 'resource', 'tmkit', VERSION, '--file', r.dir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ls = execFileSync(cli, ['plugin', 'ls', '--json'], { env, encoding: 'utf8' });
  expect((JSON.parse(ls) as Array<{ name: string; kind: string; version: string }>).map((p) => [p.name, p.kind, p.version])).toEqual([
    ['tmkit', 'resource', VERSION],
  ]);
});
