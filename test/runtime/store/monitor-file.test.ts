/**
 * The local monitor-state file of the etcd store (src/runtime/store/monitor-file.ts): a save appends one
 * line; the log is compacted into the base file once it outgrows it; a restart reads base + log; a torn
 * last line and the earlier whole-state file are read, not refused.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MonitorStateFile } from '../../../src/runtime/store/monitor-file';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tmkit-monitor-file-'));
  file = join(dir, 'monitor-state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = (f: string): number =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l !== '').length;

test('a save appends what changed to the log; a restart reads the same state', async () => {
  const a = new MonitorStateFile(file);
  expect(a.load()).toBeUndefined();
  await a.save({ endpoints: { 'p/1': { v: 1 }, 'p/2': { v: 1 } }, meta: { m: 1 } });
  await a.save({ endpoints: { 'p/2': null, 'q/1': { v: 2 } } });
  expect(lines(`${file}.log`)).toBe(2);
  const want = { endpoints: { 'p/1': { v: 1 }, 'q/1': { v: 2 } }, meta: { m: 1 } };
  expect(a.load()).toEqual(want);
  expect(new MonitorStateFile(file).load()).toEqual(want);
});

test('the log is compacted into the base file once it outgrows it, and nothing is lost across it', async () => {
  const a = new MonitorStateFile(file, 2_000);
  const want: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    const key = `p${i % 37}/e${i % 5}`;
    await a.save({ endpoints: { [key]: { i } }, meta: { last: i } });
    want[key] = { i };
    // Never larger than the threshold (or the base file) plus one line.
    expect(statSync(`${file}.log`).size).toBeLessThanOrEqual(Math.max(2_000, statSync(file, { throwIfNoEntry: false })?.size ?? 0) + 200);
  }
  expect(statSync(file).size).toBeGreaterThan(0); // it did compact
  expect(new MonitorStateFile(file).load()).toEqual({ endpoints: want, meta: { last: 199 } });
});

test('a torn last log line (a crash mid-append) is skipped; the earlier whole-state file is read as the meta', async () => {
  const legacy = { savedAt: 1, verdicts: { 'p/1': 'Degraded' }, fingerprints: { 'p/1': 'x' }, history: [] };
  writeFileSync(file, JSON.stringify(legacy));
  const a = new MonitorStateFile(file);
  expect(a.load()).toEqual({ endpoints: {}, meta: legacy });
  await a.save({ endpoints: { 'p/1': { verdict: 'Degraded' } } });
  appendFileSync(`${file}.log`, '{"endpoints":{"p/2":');
  expect(new MonitorStateFile(file).load()).toEqual({ endpoints: { 'p/1': { verdict: 'Degraded' } }, meta: legacy });
});

test('saves issued at once are applied in call order', async () => {
  const a = new MonitorStateFile(file, 100);
  await Promise.all(Array.from({ length: 50 }, (_, i) => a.save({ endpoints: { 'p/1': { i } } })));
  expect(new MonitorStateFile(file).load()).toEqual({ endpoints: { 'p/1': { i: 49 } } });
});
