import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentInput, profileInput } from '../runtime/api/fixtures';
import { startApi, TOKEN, type Harness } from '../runtime/api/harness';
import { REPO, runTmkit } from '../support/process';

/** `tmkit apply FILE` (the real CLI process) against a real API server: plan, then execute the plan's steps. */
let h: Harness;
let dir: string;
beforeEach(async () => {
  h = await startApi();
  dir = mkdtempSync(join(tmpdir(), 'tmkit-apply-'));
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const args = () => ['--server', h.base, '--token', TOKEN];
const progress = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('['))
    .map((l) => l.replace(/ {2}ETag .*$/, ''));

test('examples/nested: the parent listed first is written after its child; a second apply plans no changes', async () => {
  const file = join(REPO, 'examples/nested/tmkit.out.json');
  const r = await runTmkit(['apply', file, '--yes', ...args()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Plan: 2 to add, 0 to change, 0 to replace, 0 to destroy.');
  expect(progress(r.stdout)).toEqual(['[1/2] PUT app-westeurope (create) ... ok', '[2/2] PUT app (create) ... ok']);
  expect(r.stdout).toContain('Apply complete: 2 added, 0 changed, 0 replaced, 0 destroyed');
  expect((await h.store.getProfile('app'))?.stack).toBe('nested');
  const revision = await h.store.revision();
  const again = await runTmkit(['apply', file, '--yes', ...args()]);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');
  expect(progress(again.stdout)).toEqual([]);
  expect(await h.store.revision()).toBe(revision);
});

test('the document stack owns the profiles; another stack cannot take them over', async () => {
  const doc = (stack: string) => JSON.stringify({ apiVersion: 'tmkit/v1', stack, profiles: [profileInput('owned')] });
  writeFileSync(join(dir, 'a.json'), doc('team-a'));
  writeFileSync(join(dir, 'b.json'), doc('team-b'));
  expect((await runTmkit(['apply', join(dir, 'a.json'), '--yes', ...args()])).code).toBe(0);
  const revision = await h.store.revision();
  const b = await runTmkit(['apply', join(dir, 'b.json'), '--yes', ...args()]);
  expect(b.code).toBe(1);
  expect(b.stdout).toContain('PLAN_PROFILE_OWNED_BY_OTHER_STACK');
  expect(b.stderr).toContain('cannot be applied; nothing was applied');
  expect((await h.store.getProfile('owned'))?.stack).toBe('team-a');
  expect(await h.store.revision()).toBe(revision);
});

test('an invalid document is refused before anything is written; without a terminal and without --yes nothing is written', async () => {
  writeFileSync(
    join(dir, 'bad.json'),
    JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [profileInput('ok'), parentInput('bad', 'missing')] }),
  );
  const r = await runTmkit(['apply', join(dir, 'bad.json'), '--yes', ...args()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('NESTED_TARGET_NOT_FOUND');
  expect(r.stderr).toContain('nothing was applied');
  writeFileSync(join(dir, 'good.json'), JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [profileInput('ok')] }));
  const dry = await runTmkit(['apply', join(dir, 'good.json'), ...args()]);
  expect(dry.code).toBe(1);
  expect(dry.stdout).toContain('Plan: 1 to add');
  expect(dry.stderr).toContain('pass --yes');
  expect(dry.stderr).toContain('nothing was applied');
  expect(await h.store.revision()).toBe(0);
});

test('a nested endpoint may name a profile that is already deployed by another stack, which is left alone', async () => {
  writeFileSync(join(dir, 'child.json'), JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'c', profiles: [profileInput('child')] }));
  writeFileSync(
    join(dir, 'parent.json'),
    JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'p', profiles: [parentInput('parent', 'child')] }),
  );
  expect((await runTmkit(['apply', join(dir, 'child.json'), '--yes', ...args()])).code).toBe(0);
  const r = await runTmkit(['apply', join(dir, 'parent.json'), '--yes', ...args()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(progress(r.stdout)).toEqual(['[1/1] PUT parent (create) ... ok']);
  expect((await h.store.getProfile('child'))?.stack).toBe('c');
});
