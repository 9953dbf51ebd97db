/**
 * Start-up of the Terraform provider process: ms from spawn to the handshake line on stdout (Node's own
 * start included), median and p90 over N spawns (default 20), with AutoMTLS on as Terraform always asks.
 * Compares with Node's bare start (spawn → exit of `node -e 0`). Needs `npm run build` first.
 *
 *   npm run bench:terraform-start [-- N]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCert } from '../providers/terraform/src/cert';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../providers/terraform/src/plugin';

const ENTRY = join(__dirname, '../dist/providers/terraform/bin/terraform-provider-tmkit.js');
const N = Number(process.argv[2] ?? 20);

function once(args: string[], env: NodeJS.ProcessEnv, until: 'handshake' | 'exit'): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const done = (): void => resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    child.on('error', reject);
    if (until === 'exit') child.on('exit', done);
    else {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          done();
          child.kill('SIGKILL');
        }
      });
      child.on('exit', (code) => {
        if (!out.includes('\n')) reject(new Error(`provider exited ${code} before the handshake`));
      });
    }
  });
}

const stats = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, min ${s[0]!.toFixed(1)} ms (n=${s.length})`;
};

async function main(): Promise<void> {
  // A cache directory of this run's own: the first spawn writes the code cache (see providers/terraform/src/bin/loader.ts).
  const cacheDir = mkdtempSync(join(tmpdir(), 'tmkit-tf-start-'));
  const env = {
    ...process.env,
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    PLUGIN_CLIENT_CERT: generateCert().certPem,
    TMKIT_CACHE_DIR: cacheDir,
  };
  const noCache = { ...env, TMKIT_NO_CODE_CACHE: '1' };
  const bare: number[] = [];
  const cached: number[] = [];
  const uncached: number[] = [];
  await once([ENTRY], env, 'handshake'); // warm the file cache, write the code cache
  for (let i = 0; i < N; i++) {
    bare.push(await once(['-e', '0'], process.env, 'exit'));
    cached.push(await once([ENTRY], env, 'handshake'));
    uncached.push(await once([ENTRY], noCache, 'handshake'));
  }
  rmSync(cacheDir, { recursive: true, force: true });
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1]!;
  process.stdout.write(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  );
  process.stdout.write(`node -e 0 (spawn → exit):                       ${stats(bare)}\n`);
  process.stdout.write(
    `terraform-provider-tmkit, code cache (→ handshake): ${stats(cached)}  = ${(median(cached) / median(bare)).toFixed(2)}× node\n`,
  );
  process.stdout.write(
    `terraform-provider-tmkit, first start (no cache):   ${stats(uncached)}  = ${(median(uncached) / median(bare)).toFixed(2)}× node\n`,
  );
}

void main();
