/**
 * `serve --decision-log FILE` (runtime/decision-log-file.ts): records go to the file as NDJSON in the order
 * they were added, each once, and at the size limit the file is rotated (FILE.1 … FILE.3, the oldest dropped)
 * without losing or repeating a record. Real files in a temporary directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { DecisionRecord } from '../../src/core/api';
import { DecisionLogFile } from '../../src/runtime/decision-log-file';
import { DecisionRing } from '../../src/runtime/dns';

function record(i: number): DecisionRecord {
  return {
    t: new Date(1_800_000_000_000 + i).toISOString(),
    client: '192.0.2.1',
    source: '192.0.2.1',
    proto: 'udp',
    qname: `n${String(i).padStart(4, '0')}.tm.internal`,
    qtype: 'A',
    rcode: 'NOERROR',
    endpoints: ['web/a'],
    revision: 1,
    serial: 1,
    steps: [],
  };
}

test('every record once, in order, across rotations; three old files kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-decision-log-'));
  try {
    const ring = new DecisionRing(1_000);
    const dns = { decisionsAfter: (mark: number) => ({ records: ring.after(mark), mark: ring.added }) };
    const file = join(dir, 'd.ndjson');
    const line = Buffer.byteLength(`${JSON.stringify(record(0))}\n`);
    // Room for about 50 lines a file: 400 records make 8 files' worth, of which the newest 4 stay.
    const log = new DecisionLogFile(file, dns, pino({ level: 'silent' }), line * 50 + 10, 60_000);
    for (let i = 0; i < 400; i++) {
      ring.add(record(i));
      if (i % 25 === 24) log.flush();
    }
    await log.close();
    expect(existsSync(`${file}.4`)).toBe(false);
    const read = (f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => Number(/"qname":"n(\d+)\./.exec(l)![1]));
    const kept = [`${file}.3`, `${file}.2`, `${file}.1`, file].flatMap(read);
    // The newest records, each once, in order, with no gap.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => 400 - kept.length + k));
    expect(kept.length).toBeGreaterThanOrEqual(150);
    for (const f of [`${file}.3`, `${file}.2`, `${file}.1`]) expect(read(f).length).toBe(50);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the ring hands out only what was added since the mark, and no more than it holds', () => {
  const ring = new DecisionRing(10);
  for (let i = 0; i < 4; i++) ring.add(record(i));
  expect(ring.after(0).map((r) => r.qname)).toEqual(['n0000.tm.internal', 'n0001.tm.internal', 'n0002.tm.internal', 'n0003.tm.internal']);
  expect(ring.after(3).map((r) => r.qname)).toEqual(['n0003.tm.internal']);
  for (let i = 4; i < 30; i++) ring.add(record(i));
  expect(ring.after(4).map((r) => r.qname)).toEqual(
    Array.from({ length: 10 }, (_, k) => `n${String(20 + k).padStart(4, '0')}.tm.internal`),
  );
  expect(ring.after(30)).toEqual([]);
});
