import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyOrder } from '../../../src/cli/commands/apply';
import { normalizeProfile } from '../../../src/core/model/normalize';
import { parentInput, profileInput } from '../api/fixtures';
import { startApi, TOKEN, type Harness } from '../api/harness';
import { REPO, runTmkit } from './process';

/** `tmkit apply FILE --yes` (the real CLI) against a real API server. */
let h: Harness;
let dir: string;
beforeEach(async () => { h = await startApi(); dir = mkdtempSync(join(tmpdir(), 'tmkit-apply-')); });
afterEach(async () => { await h.close(); rmSync(dir, { recursive: true, force: true }); });

const args = () => ['--server', h.base, '--token', TOKEN];

test.each([
  ['parent listed first', ['top', 'mid', 'leaf'], ['leaf', 'mid', 'top']],
  ['already in order', ['leaf', 'mid', 'top'], ['leaf', 'mid', 'top']],
])('applyOrder puts children before parents (%s)', (_n, order, expected) => {
  const all = { top: parentInput('top', 'MID'), mid: parentInput('mid', 'leaf'), leaf: profileInput('leaf') } as const;
  const profiles = order.map((n) => normalizeProfile(all[n as keyof typeof all]));
  expect(applyOrder(profiles).map((p) => p.name)).toEqual(expected);
});

test('examples/nested: the parent listed first is written after its child; a second apply changes nothing', async () => {
  const file = join(REPO, 'examples/nested/tmkit.out.json');
  const r = await runTmkit(['apply', file, '--yes', ...args()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('+'));
  expect(lines.map((l) => l.split(/\s+/)[2])).toEqual(['app-westeurope', 'app']);
  expect((await h.store.getProfile('app'))?.stack).toBe('default');
  const again = await runTmkit(['apply', file, '--yes', ...args()]);
  expect(again.stdout).toContain('applied 2 profiles (0 changed)');
});

test('the document stack owns the profiles; another stack cannot take them over', async () => {
  const doc = (stack: string) => JSON.stringify({ apiVersion: 'tmkit/v1', stack, profiles: [profileInput('owned')] });
  writeFileSync(join(dir, 'a.json'), doc('team-a'));
  writeFileSync(join(dir, 'b.json'), doc('team-b'));
  expect((await runTmkit(['apply', join(dir, 'a.json'), '--yes', ...args()])).code).toBe(0);
  const b = await runTmkit(['apply', join(dir, 'b.json'), '--yes', ...args()]);
  expect(b.code).toBe(1);
  expect(b.stderr).toContain("owned by stack 'team-a'");
  expect(b.stderr).toContain('STACK_CONFLICT');
  expect((await h.store.getProfile('owned'))?.stack).toBe('team-a');
});

test('an invalid document is refused before anything is written; without --yes nothing is written', async () => {
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [profileInput('ok'), parentInput('bad', 'missing')] }));
  const r = await runTmkit(['apply', join(dir, 'bad.json'), '--yes', ...args()]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('NESTED_TARGET_NOT_FOUND');
  writeFileSync(join(dir, 'good.json'), JSON.stringify({ apiVersion: 'tmkit/v1', profiles: [profileInput('ok')] }));
  const dry = await runTmkit(['apply', join(dir, 'good.json'), ...args()]);
  expect(dry.code).toBe(1);
  expect(dry.stdout).toContain('re-run with --yes');
  expect(await h.store.revision()).toBe(0);
});

test('a nested endpoint may name a profile that is already deployed', async () => {
  writeFileSync(join(dir, 'child.json'), JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'c', profiles: [profileInput('child')] }));
  writeFileSync(join(dir, 'parent.json'), JSON.stringify({ apiVersion: 'tmkit/v1', stack: 'p', profiles: [parentInput('parent', 'child')] }));
  expect((await runTmkit(['apply', join(dir, 'child.json'), '--yes', ...args()])).code).toBe(0);
  const r = await runTmkit(['apply', join(dir, 'parent.json'), '--yes', ...args()]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
});
