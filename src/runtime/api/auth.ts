import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TmkitError } from '../../core/diagnostics';

export const TOKEN_FILE = 'token';

export interface TokenSource {
  token: string;
  /** `env` (TMKIT_TOKEN), `file` (existing `<state-dir>/token`) or `generated` (written now). */
  origin: 'env' | 'file' | 'generated';
  /** The token file, when the token lives in one. */
  path?: string;
}

/**
 * The API token (docs/cli.md): `TMKIT_TOKEN` when set; else `<state-dir>/token`, generated (256 random bits,
 * base64url) with mode 0600 on first start. An existing file readable by others is tightened to 0600.
 */
export function loadOrCreateToken(stateDir: string, env: NodeJS.ProcessEnv = process.env): TokenSource {
  const fromEnv = envToken(env);
  if (fromEnv) return { token: fromEnv, origin: 'env' };
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, TOKEN_FILE);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token !== '') {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return { token, origin: 'file', path };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token, origin: 'generated', path };
}

/** The shortest API token `TMKIT_TOKEN` may set (a generated one is 43 characters). */
export const MIN_TOKEN_LENGTH = 16;

/**
 * `TMKIT_TOKEN` (trimmed; undefined when unset or blank), or a `TOKEN_TOO_SHORT` error when it is shorter
 * than MIN_TOKEN_LENGTH: a token anyone could guess would guard the whole management API.
 */
export function envToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const token = env.TMKIT_TOKEN?.trim();
  if (!token) return undefined;
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new TmkitError(
      'TOKEN_TOO_SHORT',
      `TMKIT_TOKEN is ${token.length} character${token.length === 1 ? '' : 's'} long; the API token needs at least ${MIN_TOKEN_LENGTH} ` +
        '(make one with `openssl rand -base64 32`, or unset TMKIT_TOKEN and tmkit serve generates one in <state-dir>/token)',
    );
  }
  return token;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Checks an `Authorization` header against the token in constant time: both sides are hashed first, so
 * neither the token's length nor its prefix leaks through timing.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const presented = m ? m[1]! : '';
  const ok = timingSafeEqual(digest(presented), digest(token));
  return ok && m !== null;
}
