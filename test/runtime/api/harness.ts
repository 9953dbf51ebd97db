import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { ApiServer, type ApiOptions } from '../../../src/runtime/api';
import { RuntimeMetrics } from '../../../src/runtime/metrics';
import { SqliteStore } from '../../../src/runtime/store';

export const TOKEN = 'test-token-5f2c9a';

export interface Harness {
  base: string;
  api: ApiServer;
  /** The options the server was built with (to start a second server over the same store). */
  options: ApiOptions;
  store: SqliteStore;
  logs: string[];
  dir: string;
  close(): Promise<void>;
}

/** A real API server on 127.0.0.1:0 over a real SQLite store in a temp dir, logs captured. */
export async function startApi(extra: Partial<ApiOptions> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-api-'));
  const store = SqliteStore.open({ stateDir: dir });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const options: ApiOptions = {
    store,
    token: TOKEN,
    metrics: new RuntimeMetrics(),
    logger: pino({ level: 'debug' }, sink),
    ...extra,
  };
  const api = new ApiServer(options);
  const addr = await api.listen('127.0.0.1', 0);
  return {
    base: `http://127.0.0.1:${addr.port}`,
    api,
    options,
    store,
    logs,
    dir,
    async close() {
      await api.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (the text when it is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: the body of whatever route was called; each test reads the fields it asserts on
  body: any;
  text: string;
}

/** A raw HTTP call (no client library logic), authorised with TOKEN unless `auth` says otherwise. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  const auth = opts.auth === undefined ? `Bearer ${TOKEN}` : opts.auth;
  if (auth !== null) headers.authorization = auth;
  let body: string | Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.statusCode, headers: res.headers, body: parsed, text };
}
