/**
 * The CLI's counting rule (docs/cli.md "Messages"): counts agree with their noun, `1 attempt`, `4 attempts`,
 * never `4 attempt(s)` (issue 40 item 7). Every message is made with `count()` from src/core/words.ts, so
 * no string in src/ (and in the dashboard's ui/src) may carry a `(s)` plural: the scan reads the string
 * and template literals of every source file with the TypeScript parser (comments and code such as
 * `pick(s)` are not strings), and `http(s)` is the one allowed use of the letters.
 */
import { readdirSync, statSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO, tmkit } from './run';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'dist') return [];
    return statSync(p).isDirectory() ? sources(p) : /\.tsx?$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
  });
}

/** `endpoint(s)`, `error(s)`, `match(es)`: a noun with its plural ending in parentheses. */
const PAREN_PLURAL = /\b[A-Za-z]+\((?:s|es)\)/g;
const ALLOWED = new Set(['http(s)', 'HTTP(S)']);

/** `file:line: text` for every string or template piece of `file` (its text) that holds a `(s)` plural. */
function parenPlurals(file: string, text = readFileSync(file, 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const hits: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
    ) {
      const bad = [...node.text.matchAll(PAREN_PLURAL)].map((m) => m[0]).filter((w) => !ALLOWED.has(w));
      if (bad.length > 0) {
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        hits.push(`${relative(REPO, file)}:${line}: ${bad.join(', ')}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return hits;
}

test('no string in src/ or ui/src says "(s)": counts use count() from src/core/words.ts', () => {
  const files = [...sources(join(REPO, 'src')), ...sources(join(REPO, 'ui/src'))];
  expect(files.length).toBeGreaterThan(100);
  expect(files.flatMap((f) => parenPlurals(f))).toEqual([]);
});

test('the scan finds what it is for, and leaves comments, code and http(s) alone', () => {
  const text = [
    '// 2 endpoint(s) in a comment',
    'const a = f(s);',
    "const b = 'an http(s) URL';",
    'const c = `after ${n} attempt(s): ${why}`;',
    "const d = 'match(es)';",
  ].join('\n');
  expect(parenPlurals(join(REPO, 'src/x.ts'), text)).toEqual(['src/x.ts:4: attempt(s)', 'src/x.ts:5: match(es)']);
});

test('a server that cannot be reached: "after 4 attempts", the noun agreeing with the count', async () => {
  // A loopback port that was free a moment ago: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const r = await tmkit(['list', '--server', `http://127.0.0.1:${port}`, '--token', 'x'.repeat(16)], {
    env: { TMKIT_SERVER: '', TMKIT_TOKEN: '', TMKIT_STATE_DIR: '' },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`cannot reach the tmkit server at http://127.0.0.1:${port} after 4 attempts: `);
  expect(r.stderr).not.toContain('(s)');
}, 60_000);
