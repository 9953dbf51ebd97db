/**
 * In a `tmkit init` app, `tmkit plan` and `tmkit apply` without a FILE use the document `tmkit synth` writes
 * there (`"output"` of tmkit.json, `tmkit.out/tmkit.out.json`) and say so on stderr; init's "Next:" ends
 * with the apply line (issue 40 item 7). The test runs init's "Next:" lines as a shell script against a real
 * serve whose state dir is where init ran (the README's quick start: serve in the clone, the app beside it).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, spawnServe, type ServeProcess } from '../support/process';
import { oneLine, tmkit } from './run';

jest.setTimeout(180_000);

const noServerEnv = { TMKIT_SERVER: '', TMKIT_TOKEN: '', TMKIT_STATE_DIR: '' };
let dir: string;
let serve: ServeProcess | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-app-doc-'));
});
afterAll(async () => {
  if (serve && serve.child.exitCode === null) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test("init's Next: lines, run as they are, synthesize, plan and apply the app; plan and apply name the document", async () => {
  serve = await spawnServe(join(dir, '.tmkit'));
  const app = join(dir, 'shop');
  mkdirSync(app);
  // A package.json that has tmkit already: init packs nothing (its tarballs are init.test.ts's).
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'shop', private: true, devDependencies: { tmkit: '*' } }));
  const init = await tmkit(['init', 'shop'], { cwd: dir, env: noServerEnv });
  expect(init.code).toBe(0);
  const next = init.stdout
    .slice(init.stdout.indexOf('Next:\n') + 'Next:\n'.length)
    .trimEnd()
    .split('\n');
  expect(next.map((l) => l.replace(/\s+#.*$/, '').trim())).toEqual([
    'cd shop',
    'npx tmkit synth',
    'export TMKIT_STATE_DIR=../.tmkit',
    'npx tmkit plan',
    'npx tmkit apply',
  ]);
  expect(next.at(-1)).toMatch(/^ {2}npx tmkit apply +# deploys it there \(stack "shop"/);

  // The lines as a script: `npx tmkit` is this build; apply gets --yes, as with no terminal it must.
  const script = next
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .map((l) => l.replace(/^npx tmkit /, `node ${JSON.stringify(BIN)} `))
    .map((l) => (/ apply$/.test(l) ? `${l} --yes` : l))
    .join(' && ');
  const r = spawnSync('bash', ['-c', script], { cwd: dir, env: { ...process.env, ...noServerEnv }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stderr).toContain(
    'tmkit: planning tmkit.out/tmkit.out.json, the document `tmkit synth` writes here (tmkit.json); pass a FILE to plan another\n',
  );
  expect(r.stderr).toContain(
    'tmkit: applying tmkit.out/tmkit.out.json, the document `tmkit synth` writes here (tmkit.json); pass a FILE to apply another\n',
  );
  expect(r.stdout).toContain('Plan: 1 to add, 0 to change, 0 to replace, 0 to destroy.');
  expect(r.stdout).toContain(`Apply complete: 1 added, 0 changed, 0 replaced, 0 destroyed (stack "shop" on ${serve.api}).`);

  // Planned again: nothing to do.
  const again = await tmkit(['plan'], { cwd: app, env: { ...noServerEnv, TMKIT_STATE_DIR: join(dir, '.tmkit') } });
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
  // A FILE still wins, and is not announced.
  const named = await tmkit(['plan', 'tmkit.out/tmkit.out.json', '--state-dir', join(dir, '.tmkit')], { cwd: app, env: noServerEnv });
  expect(named.stderr).toBe('');
  expect(named.stdout).toContain('No changes.');
});

test('before the first synth: exit 1, run tmkit synth; outside an app: a usage error', async () => {
  const app = join(dir, 'fresh');
  mkdirSync(app);
  writeFileSync(join(app, 'tmkit.json'), JSON.stringify({ app: 'main.ts', output: 'out' }));
  for (const cmd of ['plan', 'apply']) {
    const r = await tmkit([cmd], { cwd: app, env: noServerEnv });
    expect(oneLine(r.stderr)).toBe(
      `tmkit: ${cmd}: out/tmkit.out.json does not exist yet: run \`tmkit synth\` first ` +
        `(without a FILE, ${cmd} uses the document it writes, "output" of tmkit.json)`,
    );
    expect(r.code).toBe(1);
  }
  const outside = join(dir, 'elsewhere');
  mkdirSync(outside);
  const plan = await tmkit(['plan'], { cwd: outside, env: noServerEnv });
  expect(oneLine(plan.stderr)).toMatch(
    /^tmkit: plan: give a document file or --from-terraform plan\.json; without one, plan uses the document/,
  );
  expect(plan.code).toBe(2);
  const apply = await tmkit(['apply', '--yes'], { cwd: outside, env: noServerEnv });
  expect(oneLine(apply.stderr)).toMatch(/^tmkit: apply: give a plan or document file; without one, apply uses the document/);
  expect(apply.code).toBe(2);
});
