/**
 * Real validators for the DNSSEC tests: BIND's `delv` (given the zone's key as its trust anchor) and an
 * `unbound` process of the test's own (validator module, the zone's key as trust anchor, a stub zone to
 * tmkit on loopback), started on a free port and stopped by its pid.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dig, type DigResult } from '../dns/support';

/** A presented DNSKEY of a CSK/KSK (`tm.internal. 300 IN DNSKEY 257 3 13 …`). */
export type PresentedKey = string;

function fields(key: PresentedKey): { owner: string; flags: string; algorithm: string; publicKey: string } {
  const f = key.trim().split(/\s+/);
  const i = f.indexOf('DNSKEY');
  return { owner: f[0]!, flags: f[i + 1]!, algorithm: f[i + 3]!, publicKey: f.slice(i + 4).join('') };
}

/** delv's trust anchor file (BIND 9.18 `trust-anchors` with static keys). */
export function delvAnchors(keys: PresentedKey[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-delv-'));
  const file = join(dir, 'anchors.conf');
  const lines = keys.map(fields).map((k) => `  ${k.owner} static-key ${k.flags} 3 ${k.algorithm} "${k.publicKey}";`);
  writeFileSync(file, `trust-anchors {\n${lines.join('\n')}\n};\n`);
  return file;
}

export interface DelvResult {
  validated: boolean;
  negative: boolean;
  out: string;
}

/** `delv @127.0.0.1 -p PORT -a ANCHORS +root=ZONE NAME TYPE`: did it say "fully validated"? */
export function delv(port: number, anchors: string, zone: string, name: string, type: string): Promise<DelvResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'delv',
      ['@127.0.0.1', '-p', String(port), '-a', anchors, `+root=${zone}`, '+tcp', name, type],
      { timeout: 20_000 },
      (err, stdout, stderr) => {
        const out = `${stdout}${stderr}`;
        if (err && !/validated|resolution failed/.test(out)) return reject(new Error(`delv ${name} ${type}: ${err.message}\n${out}`));
        resolve({ validated: /; (negative response, )?fully validated/.test(out), negative: /negative response/.test(out), out });
      },
    );
  });
}

/** A UDP port on 127.0.0.1 that was free a moment ago (unbound needs a number; it cannot report one it chose). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
}

export interface Unbound {
  port: number;
  pid: number;
  /** `dig @unbound` with the DO bit (recursion desired, as a stub resolver asks). */
  query(name: string, type: string, extra?: string[]): Promise<DigResult>;
  stop(): Promise<void>;
  log(): string;
}

/**
 * Starts unbound as a validating resolver for `zone` only: the zone's keys as trust anchors, a stub zone to
 * tmkit at 127.0.0.1@`upstreamPort`, no root hints needed (every other name is refused by design of the
 * test, never looked up on the network), no cache carried between tests (a fresh process each time).
 * `anchorConf`: unbound.conf lines of the `server:` clause that give the trust anchor instead of `keys`
 * (`trust-anchor: "…"`, `trust-anchor-file: "…"`), as an operator writes them.
 */
export async function startUnbound(zone: string, keys: PresentedKey[], upstreamPort: number, anchorConf?: string[]): Promise<Unbound> {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-unbound-'));
  const anchorFile = join(dir, 'anchors');
  writeFileSync(anchorFile, `${keys.join('\n')}\n`);
  const anchorLines = anchorConf ?? [`trust-anchor-file: "${anchorFile}"`];
  for (let attempt = 0; ; attempt++) {
    const port = await freeUdpPort();
    const conf = join(dir, 'unbound.conf');
    writeFileSync(
      conf,
      [
        'server:',
        '  interface: 127.0.0.1',
        `  port: ${port}`,
        '  do-ip6: no',
        '  do-daemonize: no',
        '  use-syslog: no',
        `  logfile: ""`,
        '  verbosity: 1',
        '  username: ""',
        `  directory: "${dir}"`,
        '  chroot: ""',
        `  pidfile: ""`,
        '  access-control: 127.0.0.0/8 allow',
        '  module-config: "validator iterator"',
        ...anchorLines.map((l) => `  ${l}`),
        // Loopback is where tmkit listens: allow it as an upstream (unbound refuses it by default).
        '  do-not-query-localhost: no',
        '  val-log-level: 2',
        '  num-threads: 1',
        '  so-reuseport: no',
        // A private name space under test: no DS lookup above it, no aggressive NSEC across test cases.
        `  domain-insecure: "."`,
        `  insecure-lan-zones: yes`,
        '  aggressive-nsec: no',
        '  qname-minimisation: no',
        '  harden-referral-path: no',
        '  target-fetch-policy: "0 0 0 0 0"',
        '  serve-expired: no',
        '  cache-max-ttl: 1',
        '  cache-max-negative-ttl: 1',
        'remote-control:',
        '  control-enable: no',
        'stub-zone:',
        `  name: "${zone}"`,
        `  stub-addr: 127.0.0.1@${upstreamPort}`,
        '',
      ].join('\n'),
    );
    const proc: ChildProcess = spawn('unbound', ['-d', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    proc.stdout!.on('data', (c: Buffer) => {
      log += c.toString();
    });
    proc.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
    });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const ub: Unbound = {
      port,
      pid: proc.pid!,
      query: (name, type, extra = []) => dig(['@127.0.0.1', '-p', String(port), '+dnssec', '+tries=2', ...extra, name, type]),
      stop: async () => {
        if (proc.exitCode === null && proc.signalCode === null) process.kill(proc.pid!, 'SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          exited,
          new Promise((r) => {
            timer = setTimeout(r, 5000);
          }),
        ]);
        clearTimeout(timer);
        if (proc.exitCode === null && proc.signalCode === null) process.kill(proc.pid!, 'SIGKILL');
      },
      log: () => log,
    };
    // Ready once it answers (a refused or any answer from our own listener).
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) break;
      try {
        await dig(['@127.0.0.1', '-p', String(port), '+tries=1', '+timeout=1', zone, 'SOA'], 3000);
        return ub;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await ub.stop();
    if (attempt >= 3 || !/address already in use|bind/i.test(log)) throw new Error(`unbound did not start on port ${port}:\n${log}`);
  }
}
