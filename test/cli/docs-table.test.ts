/**
 * docs/cli.md's CLI table (README's, before it moved there) and `tmkit --help` say the same thing (issue 28
 * item 9): the same commands, in the same order as `tmkit --help` lists them; per command the same
 * arguments (required or optional), the same options, and the same defaults where the table gives one
 * (`--interval SECONDS` (2)). `--server`, `--token` and `--state-dir` are said once above the table for every
 * command that talks to a server, so a row need not repeat them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main';

const SERVER_OPTIONS = new Set(['--server', '--token', '--state-dir']);

interface Row {
  path: string;
  args: string[];
  description: string;
  options: string;
}

function tableRows(): Row[] {
  const md = readFileSync(join(__dirname, '../../docs/cli.md'), 'utf8');
  const rows: Row[] = [];
  for (const line of md.split('\n')) {
    const m = /^\| `tmkit ([^`]+)` \| (.*) \| (.*) \|$/.exec(line);
    if (!m) continue;
    const words = m[1]!.replace(/\\\|/g, '|').split(' ');
    const names: string[] = [];
    while (words.length > 0 && /^[a-z|-]+$/.test(words[0]!)) names.push(words.shift()!);
    // `endpoint disable|enable PROFILE ENDPOINT` is one row for two commands.
    const alternatives = names[names.length - 1]!.split('|');
    for (const leaf of alternatives)
      rows.push({ path: [...names.slice(0, -1), leaf].join(' '), args: words, description: m[2]!, options: m[3]! });
  }
  return rows;
}

/** Every command that runs something (leaves: `endpoint disable`, not `endpoint`), in `--help` order. */
function leaves(cmd: Command, prefix = ''): Array<{ path: string; cmd: Command }> {
  const out: Array<{ path: string; cmd: Command }> = [];
  for (const c of cmd.commands) {
    const path = `${prefix}${c.name()}`;
    if (c.commands.length > 0) out.push(...leaves(c, `${path} `));
    else out.push({ path, cmd: c });
  }
  return out;
}

const rows = tableRows();
const commands = leaves(buildProgram());

test('the table has a row for every command, in the order `tmkit --help` lists them, and no other', () => {
  expect(rows.map((r) => r.path)).toEqual(commands.map((c) => c.path));
});

describe.each(commands.map((c) => [c.path, c.cmd] as const))('tmkit %s', (path, cmd) => {
  const row = rows.find((r) => r.path === path)!;

  test('the same arguments, required or optional', () => {
    const help = cmd.registeredArguments.map((a) => (a.required ? a.name().toUpperCase() : `[${a.name().toUpperCase()}]`));
    expect(row.args).toEqual(help);
  });

  test('the same options', () => {
    const documented = new Set(row.options.match(/(?<![\w-])--?[a-z][a-z0-9-]*/g) ?? []);
    const options = cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
    const expected = new Set(options.filter((f) => !SERVER_OPTIONS.has(f) || documented.has(f)));
    expect([...documented].filter((f) => !expected.has(f))).toEqual([]); // in the table, not in --help
    expect([...expected].filter((f) => !documented.has(f))).toEqual([]); // in --help, not in the table
  });

  test('the same defaults where the table gives one', () => {
    const wrong: string[] = [];
    for (const o of cmd.options) {
      const d = o.defaultValue as unknown;
      if (o.long === undefined || (typeof d !== 'string' && typeof d !== 'number')) continue;
      // `--flag ARG` (default…): the first word of the parenthesis after the option's backticked form.
      const m = new RegExp(`\`(?:-\\w, )?${o.long}(?: [^\`]*)?\`(?:/\`[^\`]*\`)? \\(([^)]*)\\)`).exec(row.options);
      if (!m) {
        wrong.push(`${o.long}: the table gives no default; --help says ${String(d)}`);
        continue;
      }
      const first = m[1]!.split(/[ ,;]/)[0]!.replace(/`/g, '').replace(/:$/, '');
      if (first !== String(d)) wrong.push(`${o.long}: the table says (${m[1]}), --help ${String(d)}`);
    }
    expect(wrong).toEqual([]);
  });
});
