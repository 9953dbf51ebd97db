import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { CliError } from '../errors';

/**
 * Reads and parses a JSON file (`-` reads standard input), or throws a `CliError` (exit 1) that says what
 * is wrong and what to do. `what` names the file's role in messages ("document", "tmkit.json").
 */
export function readJsonFile(file: string, what: string, hint = ''): unknown {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
    throw new CliError(`cannot read ${what} ${file}: ${reason}${hint ? ` (${hint})` : ''}`);
  }
  if (/\.[cm]?[jt]sx?$/.test(file)) {
    throw new CliError(
      `${file}: this is a constructs app, not a JSON ${what}: run \`tmkit synth\` (it runs the app, validates it and writes tmkit.out/tmkit.out.json)`,
    );
  }
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new CliError(`${what} ${file} is not valid JSON: ${jsonErrorAt(json, (err as Error).message)}`);
  }
}

/**
 * JSON.parse's message with the place as `line L, column C` (1-based), the same on every Node: Node 20
 * gives `at position N` for some errors and nothing for others (`Unexpected token`), so the place comes
 * from jsonErrorOffset, and V8's own position and excerpt are dropped from the message.
 */
export function jsonErrorAt(text: string, message: string): string {
  const what = message
    .replace(/\s*(?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?/, '')
    .replace(/, "[\s\S]*is not valid JSON$/, '')
    .trim();
  const pos = jsonErrorOffset(text);
  if (pos < 0) return what;
  const before = text.slice(0, pos).split('\n');
  return `line ${before.length}, column ${before[before.length - 1]!.length + 1}: ${what}`;
}

/** The offset of the first character where `text` stops being JSON (RFC 8259); -1 when it is JSON. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new JsonStop(i);
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (c: string): void => {
    if (text[i] !== c) fail();
    i++;
  };
  const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const string = (): void => {
    expect('"');
    for (;;) {
      const c = text.charCodeAt(i);
      if (i >= text.length || c < 0x20) fail();
      i++;
      if (c === 0x22) return;
      if (c !== 0x5c) continue;
      if (text[i] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
      else if ('"\\/bfnrt'.includes(text[i] ?? 'x')) i++;
      else fail();
    }
  };
  const list = (close: string, item: () => void): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      expect(close);
      return;
    }
  };
  const value = (): void => {
    ws();
    if (text[i] === '{')
      list('}', () => {
        ws();
        string();
        ws();
        expect(':');
        value();
      });
    else if (text[i] === '[') list(']', value);
    else if (text[i] === '"') string();
    else {
      literal.lastIndex = i;
      if (literal.test(text)) {
        i = literal.lastIndex;
        return;
      }
      // `tru}`: the place is where the word stops being one, as V8 reports it.
      const word = ['true', 'false', 'null'].find((w) => w[0] === text[i]);
      for (const start = i; word !== undefined && i - start < word.length && text[i] === word[i - start]; ) i++;
      fail();
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (err) {
    return err instanceof JsonStop ? err.offset : -1;
  }
}

class JsonStop {
  constructor(readonly offset: number) {}
}

/** Writes a file via a temporary file and rename, so readers never see half a file. Creates the directory. */
export function writeFileAtomic(file: string, text: string): void {
  try {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

/** `JSON.stringify` as tmkit writes documents: 2-space indent and a trailing newline. */
export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A path for messages: relative to the working directory when inside it, else absolute. */
export function displayFile(file: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, file);
  const rel = relative(cwd, abs);
  if (rel === '') return '.';
  return !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}
