/**
 * Certificates made with the openssl CLI for the certificate-check tests (helpers, not tests): a test CA,
 * leaves it signs with chosen names and validity dates (`openssl ca -startdate/-enddate`, so an expired one
 * is possible without a fake clock), and self-signed ones.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cert } from './servers';

export interface Ca {
  key: string;
  cert: string;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function inDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'tmkit-certs-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const run = (dir: string, args: string[]): void => {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
};

/** A self-signed CA certificate (valid 30 days). */
export function makeCa(cn = 'tmkit test CA'): Ca {
  return inDir((dir) => {
    run(dir, ['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', `/CN=${cn}`]);
    return { key: readFileSync(join(dir, 'ca.key'), 'utf8'), cert: readFileSync(join(dir, 'ca.pem'), 'utf8') };
  });
}

/** openssl's GeneralizedTime for `ms` (YYYYMMDDHHMMSSZ). */
const stamp = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/**
 * A leaf certificate for `names` (`a.example`, `127.0.0.1`: DNS or IP subjectAltNames; the first is the CN),
 * signed by `ca`, valid from `notBefore` to `notAfter` (ms since epoch).
 */
export function signedCert(ca: Ca, names: string[], notBefore: number, notAfter: number): Cert {
  return inDir((dir) => {
    writeFileSync(join(dir, 'ca.key'), ca.key);
    writeFileSync(join(dir, 'ca.pem'), ca.cert);
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(
      join(dir, 'serial'),
      `${Math.floor(Math.random() * 1e9)
        .toString(16)
        .padStart(8, '0')}\n`,
    );
    const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    writeFileSync(
      join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = t',
        '[t]',
        'database = index.txt',
        'new_certs_dir = .',
        'serial = serial',
        'default_md = sha256',
        'policy = any',
        'x509_extensions = leaf',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        '[leaf]',
        `subjectAltName = ${san}`,
        'basicConstraints = CA:FALSE',
        '',
      ].join('\n'),
    );
    run(dir, ['req', '-new', ...EC, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=${names[0]}`]);
    run(dir, [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      'leaf.csr',
      '-out',
      'leaf.pem',
      '-startdate',
      stamp(notBefore),
      '-enddate',
      stamp(notAfter),
      '-notext',
    ]);
    return { key: readFileSync(join(dir, 'leaf.key'), 'utf8'), cert: readFileSync(join(dir, 'leaf.pem'), 'utf8'), dir };
  });
}

export const DAY = 86_400_000;
