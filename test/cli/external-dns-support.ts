/** A real `tmkit external-dns` process (the webhook provider) for the ExternalDNS tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { BIN, cleanEnv } from '../support/process';

export interface WebhookProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts `tmkit external-dns --listen 127.0.0.1:0 ARGS` and resolves once it printed its URL. */
export function spawnWebhook(args: string[], env: NodeJS.ProcessEnv = {}): Promise<WebhookProcess> {
  const child = spawn(process.execPath, [BIN, 'external-dns', '--listen', '127.0.0.1:0', ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await closed;
  };
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tmkit external-dns did not start in 30 s:\n${out}\n${err}`));
    }, 30_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /webhook on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve({ child, url: m[1]!, stderr: () => err, stop });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`tmkit external-dns exited (${code}) before listening:\n${out}\n${err}`));
    });
  });
}

/** `external-dns ARGS --once` (the binary `bin`): its exit code and log (killed after `timeoutMs`). */
export function externalDnsOnce(bin: string, args: string[], timeoutMs = 90_000): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, [...args, '--once'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, log });
    });
  });
}

/** A TCP port free now on 127.0.0.1 (for a server that must come back on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const MEDIA = 'application/external.dns.webhook+json;version=1';

/** A request as ExternalDNS's webhook client sends it (its headers), returning status, type and body. */
export async function call(
  url: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = { 'content-type': MEDIA, accept: MEDIA },
): Promise<{ status: number; type: string; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: parsed };
}
