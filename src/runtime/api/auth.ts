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

/** How failed token checks are throttled per source (`ApiOptions.authThrottle`). */
export interface AuthThrottleOptions {
  /** Failures a source may make in a burst (default 10). */
  burst?: number;
  /** Seconds over which a full burst is forgiven (default 10: one failure a second refills). */
  perSeconds?: number;
  /** Sources tracked at most; the least recently seen is forgotten first (default 10,000). */
  maxSources?: number;
  /** A source's failures are logged at most once per this many ms (default 60,000). */
  logEveryMs?: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** Failures since the last log line, and when that was (-Infinity: never). */
  unlogged: number;
  loggedAt: number;
}

/**
 * Failed token checks, throttled per source address with a token bucket (burst `burst`, refilled at
 * `burst / perSeconds` a second): once a source's bucket is empty, its requests that need the token are
 * answered 429 with `Retry-After` until a token is back, without checking the token at all. The map of sources is
 * bounded (least recently seen evicted), so a spray from many addresses cannot grow memory; IPv6 sources are
 * keyed by their /64, what one host usually holds. `failed` says when a source's failures are due in the log:
 * at most once per `logEveryMs`, with how many there were.
 */
export class AuthThrottle {
  private readonly burst: number;
  private readonly rate: number;
  private readonly maxSources: number;
  private readonly logEveryMs: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    options: AuthThrottleOptions = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.burst = options.burst ?? 10;
    this.rate = this.burst / (options.perSeconds ?? 10);
    this.maxSources = options.maxSources ?? 10_000;
    this.logEveryMs = options.logEveryMs ?? 60_000;
  }

  /** The key a source address is counted under: IPv4 as it is, IPv6 by its /64. */
  static sourceKey(address: string | undefined): string {
    if (!address) return '?';
    if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
    if (!address.includes(':')) return address;
    const [head = '', tail] = address.split('::');
    const left = head === '' ? [] : head.split(':');
    const right = tail === undefined || tail === '' ? [] : tail.split(':');
    const words = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
    return `${words
      .slice(0, 4)
      .map((w) => w.replace(/^0+(?=.)/, '').toLowerCase())
      .join(':')}::/64`;
  }

  private refill(key: string): Bucket | undefined {
    const b = this.buckets.get(key);
    if (!b) return undefined;
    const t = this.now();
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    return b;
  }

  /** Seconds the source must wait (for `Retry-After`), or 0 when its request may be checked. */
  retryAfter(address: string | undefined): number {
    const b = this.refill(AuthThrottle.sourceKey(address));
    if (!b || b.tokens >= 1) return 0;
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }

  /**
   * Counts a failed check; returns the failures (and 429s) to log now, this one included, or 0 while the
   * source's log line is not due.
   */
  failed(address: string | undefined): number {
    const key = AuthThrottle.sourceKey(address);
    let b = this.refill(key);
    if (b)
      this.buckets.delete(key); // re-inserted below: the map's order is least recently seen first
    else {
      b = { tokens: this.burst, at: this.now(), unlogged: 0, loggedAt: -Infinity };
      if (this.buckets.size >= this.maxSources) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    }
    this.buckets.set(key, b);
    b.tokens = Math.max(0, b.tokens - 1);
    return this.due(b);
  }

  /** Counts a request answered 429 (not checked) for the source's next log line; returns as `failed` does. */
  refused(address: string | undefined): number {
    const b = this.refill(AuthThrottle.sourceKey(address));
    return b ? this.due(b) : 0;
  }

  private due(b: Bucket): number {
    b.unlogged++;
    if (b.at - b.loggedAt < this.logEveryMs) return 0;
    const n = b.unlogged;
    b.unlogged = 0;
    b.loggedAt = b.at;
    return n;
  }

  /** Sources tracked now (bounded by `maxSources`). */
  get size(): number {
    return this.buckets.size;
  }
}
