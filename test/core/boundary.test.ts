/**
 * Design §2: src/core is pure. No node:* or third-party imports, no imports from outside core, no clock,
 * randomness or timers. The core tsconfig (no Node types) catches Node globals at compile time; this
 * test catches the rest.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const CORE = resolve(__dirname, '../../src/core');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const FORBIDDEN_CALLS = [
  /\bDate\.now\s*\(/,
  /\bnew Date\s*\(\s*\)/,
  /\bMath\.random\s*\(/,
  /\bsetTimeout\s*\(/,
  /\bsetInterval\s*\(/,
  /\bprocess\./,
  /\bperformance\.now\s*\(/,
];

const coreFiles = files(CORE);

test('core has source files to check', () => {
  expect(coreFiles.length).toBeGreaterThan(3);
});

test.each(coreFiles.map((f) => [relative(CORE, f), f]))('%s imports only from inside src/core', (_name, file) => {
  const src = readFileSync(file, 'utf8');
  const bad: string[] = [];
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.')) {
      bad.push(`${spec} (not a relative import)`);
      continue;
    }
    const target = resolve(dirname(file), spec);
    if (!target.startsWith(CORE)) bad.push(`${spec} (outside src/core)`);
  }
  for (const re of FORBIDDEN_CALLS) if (re.test(src)) bad.push(`uses ${re.source} (inject a Clock/Rng instead)`);
  expect(bad).toEqual([]);
});

test('the boundary check itself catches violations', () => {
  const sample = "import { x } from 'node:fs';\nconst y = require('../../runtime/x');";
  const specs = [...sample.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]);
  expect(specs).toEqual(['node:fs', '../../runtime/x']);
});
