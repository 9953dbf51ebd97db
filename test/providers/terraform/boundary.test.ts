/**
 * Design §2: providers import core and client, never runtime internals (or the CLI). The Terraform
 * provider's sources may import each other, src/core, src/client, src/geo (its functions place client
 * addresses), node:* and the protocol libraries.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const DIR = join(ROOT, 'providers/terraform/src');
const ALLOWED_DIRS = [
  DIR,
  join(ROOT, 'providers/terraform/proto'),
  join(ROOT, 'src/core'),
  join(ROOT, 'src/client'),
  join(ROOT, 'src/geo'),
];
const ALLOWED_PACKAGES = ['@grpc/grpc-js', '@msgpack/msgpack', 'protobufjs', 'protobufjs/light'];
const IMPORT =
  /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test.each(files(DIR).map((f) => [relative(DIR, f), f]))(
  '%s imports only core, client, geo, its own modules and the protocol libraries',
  (_n, file) => {
    const bad: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('node:') || ALLOWED_PACKAGES.includes(spec)) continue;
      if (!spec.startsWith('.')) {
        bad.push(`${spec} (package not allowed here)`);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (!ALLOWED_DIRS.some((d) => target === d || target.startsWith(`${d}/`)))
        bad.push(`${spec} (outside core/client/geo/providers/terraform)`);
    }
    expect(bad).toEqual([]);
  },
);
