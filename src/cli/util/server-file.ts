/**
 * `<state-dir>/server.json`: where a running `tmkit serve` can be reached on loopback, so the commands that
 * talk to it find a server on a non-default `--api` port the way they find its token (docs/cli.md). Serve
 * writes it atomically once its API listens and removes it at a clean stop; a file left by a serve that
 * died (SIGKILL, a crash) names a process that is gone and is not used.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isLoopback } from '../../client';
import { isAlive, processStart } from '../../runtime/store/lock';

export const SERVER_FILE = 'server.json';

/** What serve writes: its API's loopback URL, and the process (pid and start time) it belongs to. */
interface ServerFile {
  url: string;
  pid: number;
  start: string;
  startedAt: string;
}

/**
 * The URL a local client reaches an API listening on `address:port` at: `0.0.0.0` and `::` (every address)
 * by their loopback address; undefined when the API listens on no loopback address (nothing to write).
 */
export function loopbackApiUrl(address: string, port: number): string | undefined {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
  if (!isLoopback(host)) return undefined;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Writes `<stateDir>/server.json` for this process (a temporary file renamed into place: never seen half written). */
export function writeServerFile(stateDir: string, url: string): void {
  const file = join(stateDir, SERVER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  const content: ServerFile = { url, pid: process.pid, start: processStart(process.pid), startedAt: new Date().toISOString() };
  writeFileSync(tmp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes `<stateDir>/server.json` when this process wrote it (at a clean stop). */
export function removeServerFile(stateDir: string): void {
  const file = join(stateDir, SERVER_FILE);
  try {
    const { pid } = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerFile>;
    if (pid === process.pid) unlinkSync(file);
  } catch {
    // gone already, or not ours
  }
}

/** What the state dir says about the running server: its URL, or why none is taken from it. */
export interface StateDirServer {
  /** The absolute path of the file looked at. */
  file: string;
  url?: string;
  /** Why a file that is there was not taken (not tmkit's, or not a loopback URL). */
  ignored?: string;
}

/**
 * The URL in `<stateDir>/server.json` when a `tmkit serve` that is still running wrote it and it is a
 * loopback http:// URL. A missing file, or one whose process is gone, gives nothing; any other file
 * (unreadable, not tmkit's, a host that is not loopback) gives nothing and the reason in `ignored`, since a
 * URL from a file is only trusted where the token file would be sent anyway.
 */
export function serverFromStateDir(stateDir: string): StateDirServer {
  const file = resolve(stateDir, SERVER_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { file };
  }
  let content: Partial<ServerFile>;
  try {
    content = JSON.parse(text) as Partial<ServerFile>;
  } catch {
    return { file, ignored: 'not JSON' };
  }
  const { url, pid, start } = content ?? {};
  if (typeof url !== 'string' || typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0)
    return { file, ignored: 'no "url" and "pid"' };
  if (!isAlive({ pid, start: typeof start === 'string' ? start : '', driver: 'unknown' })) return { file };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { file, ignored: `${url} is not a URL` };
  }
  if (parsed.protocol !== 'http:' || !isLoopback(parsed.hostname) || parsed.port === '')
    return { file, ignored: `${url} is not an http:// URL of a loopback address with a port` };
  return { url: `http://${parsed.host}`, file };
}
