/**
 * A real etcd (Debian's etcd-server, /usr/bin/etcd or $TMKIT_TEST_ETCD) for tests and benchmarks, on loopback
 * ports of its own. etcd cannot bind port 0, so free ports are picked here and the start is retried when one
 * was taken meanwhile (EADDRINUSE). `stop()` / `start()` again keep the data dir: a restarted etcd has the
 * same data and revision, as after an outage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

export const ETCD_BIN = process.env.TMKIT_TEST_ETCD ?? '/usr/bin/etcd';

export function requireEtcd(): void {
  if (!existsSync(ETCD_BIN)) {
    throw new Error(
      `etcd is not installed at ${ETCD_BIN}: install Debian's etcd-server (apt-get install etcd-server; .ci/run does) or set TMKIT_TEST_ETCD`,
    );
  }
}

export interface EtcdOptions {
  /** Client listen addresses besides 127.0.0.1 (for nodes in network namespaces). */
  extraClientHosts?: string[];
  /** Extra etcd flags (e.g. ['--auto-compaction-retention', '1']). */
  args?: string[];
  /** `https` for a TLS etcd (give its certificate flags in `args`, and `healthCheck` for the readiness probe). */
  scheme?: 'http' | 'https';
  /** Client certificate and CA for the readiness probe of a TLS etcd. */
  healthCheck?: { ca: string; cert: string; key: string };
}

export class EtcdServer {
  readonly dataDir: string;
  clientPort = 0;
  peerPort = 0;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  log = '';

  constructor(private readonly o: EtcdOptions = {}) {
    requireEtcd();
    this.dataDir = mkdtempSync(join(tmpdir(), 'tmkit-etcd-'));
  }

  /** `http://127.0.0.1:PORT`. */
  get url(): string {
    return `${this.o.scheme ?? 'http'}://127.0.0.1:${this.clientPort}`;
  }

  /** `etcd://127.0.0.1:PORT` (what `tmkit serve --store` takes), with an optional key prefix. */
  storeUrl(prefix?: string): string {
    return `etcd://127.0.0.1:${this.clientPort}${prefix !== undefined ? `/${prefix.replace(/^\/+/, '')}` : ''}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts etcd (on the same ports and data as before after a stop) and waits until it answers /health. */
  async start(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.clientPort === 0 || attempt > 0) {
        this.clientPort = await freePort();
        this.peerPort = await freePort();
      }
      try {
        await this.spawnOnce();
        return;
      } catch (err) {
        if (attempt < 5 && /address already in use/i.test(String((err as Error).message))) continue;
        throw err;
      }
    }
  }

  private async spawnOnce(): Promise<void> {
    const scheme = this.o.scheme ?? 'http';
    const client = [
      `${scheme}://127.0.0.1:${this.clientPort}`,
      ...(this.o.extraClientHosts ?? []).map((h) => `${scheme}://${h}:${this.clientPort}`),
    ];
    const peer = `http://127.0.0.1:${this.peerPort}`;
    this.log = '';
    const child = spawn(
      ETCD_BIN,
      [
        '--name',
        'tmkit-test',
        '--data-dir',
        this.dataDir,
        '--listen-client-urls',
        client.join(','),
        '--advertise-client-urls',
        client[0]!,
        '--listen-peer-urls',
        peer,
        '--initial-advertise-peer-urls',
        peer,
        '--initial-cluster',
        `tmkit-test=${peer}`,
        '--initial-cluster-state',
        'new',
        '--log-level',
        'error',
        '--logger',
        'zap',
        ...(this.o.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.log = (this.log + d).slice(-20_000);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.log = (this.log + d).slice(-20_000);
    });
    let dead = false;
    this.exited = new Promise((r) =>
      child.on('exit', () => {
        dead = true;
        r();
      }),
    );
    const end = Date.now() + 30_000;
    for (;;) {
      if (dead) throw new Error(`etcd exited during start: ${this.log.slice(-2000)}`);
      try {
        if (await this.healthy()) return;
      } catch {
        /* not up yet */
      }
      if (Date.now() > end) {
        child.kill('SIGKILL');
        throw new Error(`etcd did not become healthy in 30 s: ${this.log.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async healthy(): Promise<boolean> {
    const h = this.o.healthCheck;
    if (!h) {
      const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) });
      return ((await res.json()) as { health?: string }).health === 'true';
    }
    const https = await import('node:https');
    const { readFileSync } = await import('node:fs');
    return new Promise((resolve, reject) => {
      const req = https.get(
        `${this.url}/health`,
        { ca: readFileSync(h.ca), cert: readFileSync(h.cert), key: readFileSync(h.key), timeout: 1000 },
        (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (d: string) => {
              body += d;
            })
            .on('end', () => resolve(/"health":"true"/.test(body)));
        },
      );
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
    });
  }

  /** Stops etcd (SIGKILL by default: an outage, not a clean shutdown); the data dir stays. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill(signal);
    await this.exited;
    this.child = undefined;
  }

  /** Restarts on the same ports (an outage and its end). */
  async restart(): Promise<void> {
    await this.stop();
    await this.spawnOnce();
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Starts one etcd for a test file. */
export async function startEtcd(o: EtcdOptions = {}): Promise<EtcdServer> {
  const e = new EtcdServer(o);
  await e.start();
  return e;
}
