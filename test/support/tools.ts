/** The third-party programs the end-to-end tests drive, built by the scripts/install-*.sh scripts. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './process';

/** The bin dir that `scripts/SCRIPT --check` prints in its last line (`export PATH=<dir>:$PATH`), or a clear error. */
export function checkedBin(script: string, what: string, tests: string, builds: string, howLong: string, envVar?: string): string {
  let out: string;
  try {
    out = execFileSync('bash', [join(REPO, 'scripts', script), '--check'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '');
    throw new Error(
      `${what} is not available, so ${tests} cannot run.\nRun \`bash scripts/${script}\` (it builds ${builds} from Go modules, about ${howLong}; .ci/run does)${envVar ? `, or set ${envVar}` : ''}.\n${stderr}`,
    );
  }
  const last = out.trim().split('\n').pop() ?? '';
  const m = /^export PATH=(.+):\$PATH$/.exec(last);
  if (!m) throw new Error(`scripts/${script} --check printed an unexpected last line: ${JSON.stringify(last)}`);
  return m[1]!;
}

/** The ExternalDNS binary (scripts/install-external-dns.sh). */
export function externalDnsBin(): string {
  return join(
    checkedBin('install-external-dns.sh', 'ExternalDNS', 'the ExternalDNS tests', 'ExternalDNS v0.23', '12 min cold'),
    'external-dns',
  );
}
