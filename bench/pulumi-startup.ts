/**
 * Start-up of the Pulumi provider plugin: spawn → the port line on stdout (what the engine waits for), for
 * the shipped launcher (the lean gRPC layer) and, for comparison, a plugin on the SDK's stock
 * `@pulumi/pulumi/provider` main(). Median and p90 of N runs (default 20). Needs `npm run build` first.
 *   npm run bench:pulumi-startup [-- N]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnToPort } from '../test/providers/pulumi/spawn';

const REPO = join(__dirname, '..');

async function measure(label: string, cmd: string, args: string[], n: number): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await spawnToPort(cmd, args);
    times.push(r.ms);
  }
  times.sort((a, b) => a - b);
  const q = (p: number): number => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  console.log(`${label.padEnd(34)} median ${q(0.5).toFixed(0)} ms  p90 ${q(0.9).toFixed(0)} ms  min ${times[0]!.toFixed(0)} ms  (n=${n})`);
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 20);
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-pulumi-startup-'));
  try {
    const stock = join(dir, 'stock.js');
    writeFileSync(
      stock,
      `require(${JSON.stringify(join(REPO, 'node_modules/@pulumi/pulumi/provider'))}).main({ version: '0.0.0', async create() { return { id: 'x' }; } }, process.argv.slice(2));\n`,
    );
    const stockFull = join(dir, 'stock-full.js');
    writeFileSync(
      stockFull,
      `require(${JSON.stringify(join(REPO, 'node_modules/@pulumi/pulumi'))});\n` +
        `require(${JSON.stringify(join(REPO, 'node_modules/@pulumi/pulumi/provider'))}).main({ version: '0.0.0', async create() { return { id: 'x' }; } }, process.argv.slice(2));\n`,
    );
    await measure('node -e 0 (floor)', process.execPath, ['-e', 'console.log(1)'], n);
    await measure('pulumi-resource-tmkit (lean)', join(REPO, 'providers/pulumi/bin/pulumi-resource-tmkit'), ['127.0.0.1:1'], n);
    await measure('stock @pulumi/pulumi/provider main', process.execPath, [stock, '127.0.0.1:1'], n);
    await measure('stock, with require(@pulumi/pulumi)', process.execPath, [stockFull, '127.0.0.1:1'], n);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
