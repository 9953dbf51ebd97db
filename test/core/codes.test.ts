/**
 * One error-code convention (issue 13): every code written in the source is UPPER_SNAKE and catalogued,
 * either as a validation rule (RULES) or in CODES, and no code is in both.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CODES } from '../../src/core/codes';
import { RULES } from '../../src/core/validate';

const ROOTS = [resolve(__dirname, '../../src'), resolve(__dirname, '../../providers')];
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'dist') return [];
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });

/** Places where a code is written: `code: 'X'`, `problem('X'`, `ApiProblem.of(412, 'X'`, error constructors (the formatter may break the line after the parenthesis). */
const CODE_SITES = [
  /\bcode: '([^']+)'/g,
  /\bproblem\(\s*'([^']+)'/g,
  /ApiProblem\.of\(\s*\d+,\s*'([^']+)'/g,
  /new (?:StoreError|ProbeFailure\([^,]+,|TmkitError\(|GeoError\(|ResourceError\()\s*'([^']+)'/g,
  /\bsuper\(\s*'([A-Z][^']*)'/g,
  /\breport\(\s*'([^']+)'/g,
  /\bissue\(\s*'(?:error|warning)',\s*'([^']+)'/g,
];

const found = new Map<string, string[]>();
for (const root of ROOTS) {
  for (const f of files(root)) {
    const src = readFileSync(f, 'utf8');
    for (const re of CODE_SITES) {
      for (const m of src.matchAll(re)) {
        const code = m[1]!;
        if (code.includes('${')) continue;
        found.set(code, [...(found.get(code) ?? []), relative(resolve(__dirname, '../..'), f)]);
      }
    }
  }
}

test('the scan finds the codes written in the source', () => {
  expect(found.size).toBeGreaterThan(100);
  expect(found.has('PRECONDITION_FAILED')).toBe(true);
  expect(found.has('PRIORITY_DUPLICATE')).toBe(true);
  for (const c of [
    'RESOURCE_EXISTS',
    'RESOURCE_NOT_OWNED',
    'RESOURCE_CHANGED',
    'RESOURCE_GONE',
    'RESOURCE_HAS_ENDPOINTS',
    'RESOURCE_PROFILE_MISSING',
  ])
    expect(found.has(c)).toBe(true);
});

test('every code is UPPER_SNAKE and catalogued in RULES or CODES', () => {
  const bad = [...found]
    .filter(([code]) => !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code) || !(code in RULES || code in CODES))
    .map(([code, where]) => `${code} (${[...new Set(where)].join(', ')})`);
  expect(bad).toEqual([]);
});

test('no code is both a validation rule and a CODES entry', () => {
  expect(Object.keys(CODES).filter((c) => c in RULES)).toEqual([]);
});
