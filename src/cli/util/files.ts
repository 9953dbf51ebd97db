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
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new CliError(`cannot read ${what} ${file}: ${reason}${hint ? ` (${hint})` : ''}`);
  }
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new CliError(`${what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
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
