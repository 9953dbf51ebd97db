/**
 * DNS Cookies (RFC 7873) with interoperable Server Cookies (RFC 9018): the COOKIE option's payload, the
 * version 1 Server Cookie (SipHash-2-4 over the Client Cookie, the cookie's own header and the client's
 * address), the server secret and its rotation, and the secret's file in the state directory.
 *
 * A Server Cookie (16 bytes, RFC 9018 §4):
 *
 *     Version (1) = 1 | Reserved (3) = 0 | Timestamp (4, seconds, serial number arithmetic) | Hash (8)
 *     Hash = SipHash-2-4(Server Secret, Client Cookie | Version | Reserved | Timestamp | Client-IP)
 *
 * Client-IP is the 4 bytes of an IPv4 address or the 16 of an IPv6 one; an IPv4-mapped IPv6 address (what a
 * dual-stack socket reports for an IPv4 client) counts as the IPv4 address. The Reserved bytes a client
 * sends are hashed as sent (RFC 9018 Appendix A.3); those this server makes are zero.
 *
 * A cookie is accepted from 1 hour in the past to 5 minutes in the future (§4.3); one older than half an
 * hour is still valid, but the answer should carry a fresh one ('renew'). Every server of an anycast set
 * that shares the secret accepts the cookies of the others.
 *
 * Hot path: {@link CookieJar.make} and {@link CookieJar.check} hash with 32-bit integer arithmetic (no
 * BigInt) into the jar's own scratch buffers, so one jar serves one thread; nothing here is module state.
 * Time comes in as a parameter (the runtime's clock is src/runtime/clock.ts).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FNV_OFFSET, fnvString } from '../../core/hash32';
import { parseIpBytes, type IpSyntax } from '../../core/net/ip';

/** The EDNS option code of COOKIE (RFC 7873 §4). */
export const EDNS_OPTION_COOKIE = 10;
export const CLIENT_COOKIE_LENGTH = 8;
/** The length of an RFC 9018 Server Cookie (RFC 7873 allows 8 to 32 bytes; this server makes and checks 16). */
export const SERVER_COOKIE_LENGTH = 16;
export const SERVER_COOKIE_VERSION = 1;
/** A cookie older than this is valid but should be replaced in the answer (RFC 9018 §4.3). */
export const COOKIE_RENEW_AFTER_SECONDS = 30 * 60;
/** A cookie older than this is invalid. */
export const COOKIE_MAX_AGE_SECONDS = 60 * 60;
/** A cookie from further in the future than this is invalid (clock skew between the servers of a set). */
export const COOKIE_MAX_FUTURE_SECONDS = 5 * 60;
export const COOKIE_SECRET_LENGTH = 16;
/** The secret's file in the state directory. */
export const COOKIE_SECRET_FILE = 'dns-cookie-secret.json';

// ---------------------------------------------------------------------------------------------------
// SipHash-2-4 (Aumasson & Bernstein), 64-bit words as (hi, lo) pairs of 32-bit integers

/** The key as four 32-bit words: k0 low, k0 high, k1 low, k1 high (each 64-bit half little-endian). */
function keyWords(key: Uint8Array): Int32Array {
  if (key.length !== 16) throw new RangeError(`a SipHash key has 16 bytes, not ${key.length}`);
  const w = new Int32Array(4);
  for (let i = 0; i < 4; i++) w[i] = key[4 * i]! | (key[4 * i + 1]! << 8) | (key[4 * i + 2]! << 16) | (key[4 * i + 3]! << 24);
  return w;
}

/** Little-endian 32-bit word of `b` at `i`. */
const le32 = (b: Uint8Array, i: number): number => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);

/**
 * SipHash-2-4 of `msg[0, len)` under the key words `k`, written as 8 little-endian bytes to `out[at, at + 8)`.
 * One SipRound body serves the compression (2 rounds per 8-byte word, the last word carrying the length)
 * and the finalization (4 rounds).
 */
function sipHashInto(k: Int32Array, msg: Uint8Array, len: number, out: Uint8Array, at: number): void {
  const k0l = k[0]!;
  const k0h = k[1]!;
  const k1l = k[2]!;
  const k1h = k[3]!;
  let v0l = k0l ^ 0x70736575;
  let v0h = k0h ^ 0x736f6d65;
  let v1l = k1l ^ 0x6e646f6d;
  let v1h = k1h ^ 0x646f7261;
  let v2l = k0l ^ 0x6e657261;
  let v2h = k0h ^ 0x6c796765;
  let v3l = k1l ^ 0x79746573;
  let v3h = k1h ^ 0x74656462;
  const full = len >>> 3;
  let s = 0;
  let t = 0;
  let u = 0;
  // Word `w` for w < full is a message word, w === full the last (tail bytes and length), w === full + 1 the finalization.
  for (let w = 0; w <= full + 1; w++) {
    let ml = 0;
    let mh = 0;
    let rounds = 2;
    if (w < full) {
      ml = le32(msg, 8 * w);
      mh = le32(msg, 8 * w + 4);
    } else if (w === full) {
      const base = 8 * full;
      const tail = len & 7;
      for (let i = tail - 1; i >= 4; i--) mh = (mh << 8) | msg[base + i]!;
      for (let i = Math.min(tail, 4) - 1; i >= 0; i--) ml = (ml << 8) | msg[base + i]!;
      mh |= (len & 0xff) << 24;
    } else {
      v2l ^= 0xff;
      rounds = 4;
    }
    v3l ^= ml;
    v3h ^= mh;
    for (let r = 0; r < rounds; r++) {
      // v0 += v1; v1 <<<= 13; v1 ^= v0; v0 <<<= 32
      s = (v0l + v1l) | 0;
      v0h = (v0h + v1h + (s >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
      v0l = s;
      t = (v1h << 13) | (v1l >>> 19);
      v1l = ((v1l << 13) | (v1h >>> 19)) ^ v0l;
      v1h = t ^ v0h;
      u = v0l;
      v0l = v0h;
      v0h = u;
      // v2 += v3; v3 <<<= 16; v3 ^= v2
      s = (v2l + v3l) | 0;
      v2h = (v2h + v3h + (s >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
      v2l = s;
      t = (v3h << 16) | (v3l >>> 16);
      v3l = ((v3l << 16) | (v3h >>> 16)) ^ v2l;
      v3h = t ^ v2h;
      // v0 += v3; v3 <<<= 21; v3 ^= v0
      s = (v0l + v3l) | 0;
      v0h = (v0h + v3h + (s >>> 0 < v0l >>> 0 ? 1 : 0)) | 0;
      v0l = s;
      t = (v3h << 21) | (v3l >>> 11);
      v3l = ((v3l << 21) | (v3h >>> 11)) ^ v0l;
      v3h = t ^ v0h;
      // v2 += v1; v1 <<<= 17; v1 ^= v2; v2 <<<= 32
      s = (v2l + v1l) | 0;
      v2h = (v2h + v1h + (s >>> 0 < v2l >>> 0 ? 1 : 0)) | 0;
      v2l = s;
      t = (v1h << 17) | (v1l >>> 15);
      v1l = ((v1l << 17) | (v1h >>> 15)) ^ v2l;
      v1h = t ^ v2h;
      u = v2l;
      v2l = v2h;
      v2h = u;
    }
    v0l ^= ml;
    v0h ^= mh;
  }
  const lo = v0l ^ v1l ^ v2l ^ v3l;
  const hi = v0h ^ v1h ^ v2h ^ v3h;
  out[at] = lo;
  out[at + 1] = lo >>> 8;
  out[at + 2] = lo >>> 16;
  out[at + 3] = lo >>> 24;
  out[at + 4] = hi;
  out[at + 5] = hi >>> 8;
  out[at + 6] = hi >>> 16;
  out[at + 7] = hi >>> 24;
}

/** SipHash-2-4 of `msg` under a 16-byte `key`: the 64-bit result as 8 little-endian bytes. */
export function siphash24(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const out = new Uint8Array(8);
  sipHashInto(keyWords(key), msg, msg.length, out, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The COOKIE option (RFC 7873 §4, §5.2.2)

/** A well-formed COOKIE option. Both are views of the option's bytes, not copies. */
export interface CookieOption {
  client: Uint8Array;
  /** 8 to 32 bytes; absent when the client has no Server Cookie for this server yet. */
  server?: Uint8Array;
}

/** Why a COOKIE option is malformed: the server answers FORMERR (RFC 7873 §5.2.2). */
export interface MalformedCookieOption {
  formerr: string;
}

/**
 * The payload of a COOKIE option: an 8-byte Client Cookie, then an optional 8–32-byte Server Cookie.
 * Any other length (under 8, 9 to 15, over 40) is malformed.
 */
export function parseCookieOption(data: Uint8Array): CookieOption | MalformedCookieOption {
  const n = data.length;
  if (n < CLIENT_COOKIE_LENGTH) return { formerr: `COOKIE option of ${n} bytes: shorter than the 8-byte Client Cookie` };
  if (n > 40) return { formerr: `COOKIE option of ${n} bytes: longer than 40 (8-byte Client Cookie, Server Cookie of at most 32)` };
  if (n === CLIENT_COOKIE_LENGTH) return { client: data.subarray(0, CLIENT_COOKIE_LENGTH) };
  if (n < 16) return { formerr: `COOKIE option of ${n} bytes: a Server Cookie of ${n - 8} bytes (it has 8 to 32)` };
  return { client: data.subarray(0, CLIENT_COOKIE_LENGTH), server: data.subarray(CLIENT_COOKIE_LENGTH) };
}

/** Whether {@link parseCookieOption} found the option malformed. */
export const isMalformedCookieOption = (o: CookieOption | MalformedCookieOption): o is MalformedCookieOption => 'formerr' in o;

// ---------------------------------------------------------------------------------------------------
// Server Cookies

/**
 * What {@link CookieJar.check} says of a Server Cookie: 'valid'; 'renew' (valid, but older than half an
 * hour: answer with a fresh one from {@link CookieJar.make}); 'invalid' (wrong length or version, outside
 * the time window, or a hash that neither secret made).
 */
export type CookieVerdict = 'valid' | 'renew' | 'invalid';

/** Slots of {@link CookieJar}'s memo of the clients' last cookies (a power of two). */
const MEMO_SLOTS = 1024;

/** A client address's memo slot: FNV-1a of its characters (core/hash32.ts). */
const memoSlot = (address: string): number => fnvString(FNV_OFFSET, address) & (MEMO_SLOTS - 1);

/** Client addresses as a socket reports them: IPv4-mapped IPv6 is IPv4; a `%zone` suffix is ignored. */
const CLIENT_IP_SYNTAX: IpSyntax = Object.freeze({ unmap: true, zone: true });

/**
 * The server secret (and the one before it, while cookies made with it may still be in use) and the
 * making and checking of version 1 Server Cookies. New cookies use the current secret; a cookie made with
 * either secret verifies. After a rotation, keep the previous secret for at least {@link COOKIE_MAX_AGE_SECONDS}
 * (RFC 9018 §5: every server of the set should learn the new secret before any uses it, and drop the old one
 * only after its cookies expired).
 */
export class CookieJar {
  private currentKey: Int32Array;
  private previousKey: Int32Array | undefined;
  /** Client Cookie | Version | Reserved | Timestamp | Client-IP: at most 8 + 8 + 16 bytes. */
  private readonly input = new Uint8Array(32);
  private readonly hash = new Uint8Array(8);
  /**
   * The last Server Cookie made or found valid for a client address (slots by a hash of the address, newest
   * wins): its address, its Client Cookie and the 16 bytes. A resolver sends the same cookies query after
   * query; while they match byte for byte nothing is parsed or hashed again (making one is a pure function of
   * the secrets, the Client Cookie, the address and the second; checking one of the secrets, the cookies and
   * the address, its age aside, which is checked every time). Cleared when the secrets change.
   */
  private readonly memoAddress: Array<string | undefined> = new Array(MEMO_SLOTS).fill(undefined);
  private readonly memoClient = new Uint8Array(MEMO_SLOTS * CLIENT_COOKIE_LENGTH);
  private readonly memoServer = new Uint8Array(MEMO_SLOTS * SERVER_COOKIE_LENGTH);

  constructor(current: Uint8Array, previous?: Uint8Array) {
    this.currentKey = keyWords(current);
    this.previousKey = previous === undefined ? undefined : keyWords(previous);
  }

  /** A jar over the secrets {@link loadOrCreateCookieSecret} or {@link rotateCookieSecret} returned. */
  static fromSecrets(secrets: Pick<CookieSecrets, 'current' | 'previous'>): CookieJar {
    return new CookieJar(secrets.current, secrets.previous);
  }

  /** Makes `next` the current secret and the current one the previous (the one before is forgotten). */
  rotate(next: Uint8Array): void {
    const key = keyWords(next);
    this.previousKey = this.currentKey;
    this.currentKey = key;
    this.memoAddress.fill(undefined);
  }

  /** Whether cookies of a previous secret are still accepted. */
  get hasPrevious(): boolean {
    return this.previousKey !== undefined;
  }

  /**
   * A fresh 16-byte Server Cookie for this client, stamped `nowSeconds` (Unix time; taken modulo 2^32).
   * Throws a RangeError if the Client Cookie is not 8 bytes or the address does not parse.
   */
  make(clientCookie: Uint8Array, clientIp: string, nowSeconds: number): Uint8Array {
    const out = new Uint8Array(SERVER_COOKIE_LENGTH);
    this.makeInto(out, 0, clientCookie, clientIp, nowSeconds);
    return out;
  }

  /** {@link make}, written into `out` at `offset` (no allocation when the client's last one is still current). */
  makeInto(out: Uint8Array, offset: number, clientCookie: Uint8Array, clientIp: string, nowSeconds: number): void {
    if (clientCookie.length !== CLIENT_COOKIE_LENGTH) throw new RangeError(`a Client Cookie has 8 bytes, not ${clientCookie.length}`);
    const ts = Math.floor(nowSeconds) >>> 0;
    const slot = memoSlot(clientIp);
    const m = slot * SERVER_COOKIE_LENGTH;
    const memo = this.memoServer;
    if (
      this.remembers(slot, clientIp, clientCookie) &&
      memo[m] === SERVER_COOKIE_VERSION &&
      ((memo[m + 4]! << 24) | (memo[m + 5]! << 16) | (memo[m + 6]! << 8) | memo[m + 7]!) >>> 0 === ts
    ) {
      for (let i = 0; i < SERVER_COOKIE_LENGTH; i++) out[offset + i] = memo[m + i]!;
      return;
    }
    const ip = parseIpBytes(clientIp, CLIENT_IP_SYNTAX);
    if (ip === undefined) throw new RangeError(`not an IP address: ${JSON.stringify(clientIp)}`);
    out.fill(0, offset, offset + 4);
    out[offset] = SERVER_COOKIE_VERSION;
    out[offset + 4] = ts >>> 24;
    out[offset + 5] = ts >>> 16;
    out[offset + 6] = ts >>> 8;
    out[offset + 7] = ts;
    const len = this.fillInput(clientCookie, out.subarray(offset, offset + 8), ip.bytes);
    sipHashInto(this.currentKey, this.input, len, out, offset + 8);
    this.remember(slot, clientIp, clientCookie, out.subarray(offset, offset + SERVER_COOKIE_LENGTH));
  }

  /** Whether `slot` holds a cookie of this client: its address and its Client Cookie. */
  private remembers(slot: number, clientIp: string, clientCookie: Uint8Array): boolean {
    if (this.memoAddress[slot] !== clientIp) return false;
    const c = this.memoClient;
    const at = slot * CLIENT_COOKIE_LENGTH;
    for (let i = 0; i < CLIENT_COOKIE_LENGTH; i++) if (c[at + i] !== clientCookie[i]) return false;
    return true;
  }

  private remember(slot: number, clientIp: string, clientCookie: Uint8Array, serverCookie: Uint8Array): void {
    this.memoAddress[slot] = clientIp;
    this.memoClient.set(clientCookie, slot * CLIENT_COOKIE_LENGTH);
    this.memoServer.set(serverCookie, slot * SERVER_COOKIE_LENGTH);
  }

  /** Checks a Server Cookie the client sent with its Client Cookie, from `clientIp`, at `nowSeconds`. */
  check(clientCookie: Uint8Array, serverCookie: Uint8Array, clientIp: string, nowSeconds: number): CookieVerdict {
    if (clientCookie.length !== CLIENT_COOKIE_LENGTH || serverCookie.length !== SERVER_COOKIE_LENGTH) return 'invalid';
    if (serverCookie[0] !== SERVER_COOKIE_VERSION) return 'invalid';
    const ts = ((serverCookie[4]! << 24) | (serverCookie[5]! << 16) | (serverCookie[6]! << 8) | serverCookie[7]!) >>> 0;
    // RFC 1982 serial number arithmetic: the difference as a signed 32-bit number.
    const age = ((Math.floor(nowSeconds) >>> 0) - ts) | 0;
    if (age > COOKIE_MAX_AGE_SECONDS || age < -COOKIE_MAX_FUTURE_SECONDS) return 'invalid';
    const verdict = age > COOKIE_RENEW_AFTER_SECONDS ? 'renew' : 'valid';
    // The client's last cookie, made or checked under these secrets: byte for byte the same, the same hash.
    const slot = memoSlot(clientIp);
    if (this.remembers(slot, clientIp, clientCookie)) {
      const memo = this.memoServer;
      const m = slot * SERVER_COOKIE_LENGTH;
      let diff = 0;
      for (let i = 0; i < SERVER_COOKIE_LENGTH; i++) diff |= memo[m + i]! ^ serverCookie[i]!;
      if (diff === 0) return verdict;
    }
    const ip = parseIpBytes(clientIp, CLIENT_IP_SYNTAX);
    if (ip === undefined) return 'invalid';
    const len = this.fillInput(clientCookie, serverCookie, ip.bytes);
    if (this.hashMatches(this.currentKey, len, serverCookie)) {
      // Kept only under the current secret: what make() hands out must be the current secret's.
      this.remember(slot, clientIp, clientCookie, serverCookie);
      return verdict;
    }
    return this.previousKey !== undefined && this.hashMatches(this.previousKey, len, serverCookie) ? verdict : 'invalid';
  }

  /** Writes the hash input to the scratch buffer; returns its length. `header` is the Server Cookie's first 8 bytes. */
  private fillInput(clientCookie: Uint8Array, header: Uint8Array, ip: Uint8Array): number {
    const input = this.input;
    for (let i = 0; i < 8; i++) {
      input[i] = clientCookie[i]!;
      input[8 + i] = header[i]!;
    }
    input.set(ip, 16);
    return 16 + ip.length;
  }

  /** Whether the hash under `key` equals the cookie's Hash field (every byte compared, whatever differs first). */
  private hashMatches(key: Int32Array, len: number, serverCookie: Uint8Array): boolean {
    const hash = this.hash;
    sipHashInto(key, this.input, len, hash, 0);
    let diff = 0;
    for (let i = 0; i < 8; i++) diff |= hash[i]! ^ serverCookie[8 + i]!;
    return diff === 0;
  }
}

// ---------------------------------------------------------------------------------------------------
// The secret's file: <state dir>/dns-cookie-secret.json, owner-only

/** The server secrets as kept in the state directory. */
export interface CookieSecrets {
  current: Uint8Array;
  previous?: Uint8Array;
  /** When the current secret was made (ISO 8601). */
  createdAt: string;
}

interface CookieSecretDocument {
  current: string;
  previous?: string;
  createdAt: string;
}

export class CookieSecretError extends Error {
  override name = 'CookieSecretError';
}

const HEX_SECRET = /^[0-9a-f]{32}$/i;

function secretFromHex(path: string, field: string, value: unknown): Uint8Array {
  if (typeof value !== 'string' || !HEX_SECRET.test(value)) {
    throw new CookieSecretError(
      `${path}: "${field}" is not a 16-byte secret in hex (32 hex digits); move the file away to start with a new secret`,
    );
  }
  return new Uint8Array(Buffer.from(value, 'hex'));
}

const toHex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

function toDocument(s: CookieSecrets): CookieSecretDocument {
  return s.previous === undefined
    ? { current: toHex(s.current), createdAt: s.createdAt }
    : { current: toHex(s.current), previous: toHex(s.previous), createdAt: s.createdAt };
}

/**
 * The secrets as their JSON text holds them (the state dir's file, the etcd key of a cluster: one format).
 * `where` names the place in the errors; the errors never quote the secret.
 */
export function parseCookieSecrets(where: string, text: string): CookieSecrets {
  let doc: Partial<CookieSecretDocument>;
  try {
    doc = JSON.parse(text) as Partial<CookieSecretDocument>;
  } catch (err) {
    throw new CookieSecretError(
      `${where}: the DNS cookie secret is not JSON (${(err as Error).message}); move the file away to start with a new secret`,
    );
  }
  if (doc === null || typeof doc !== 'object') throw new CookieSecretError(`${where}: the DNS cookie secret is not a JSON object`);
  const current = secretFromHex(where, 'current', doc.current);
  const createdAt = typeof doc.createdAt === 'string' ? doc.createdAt : '';
  return doc.previous === undefined
    ? { current, createdAt }
    : { current, previous: secretFromHex(where, 'previous', doc.previous), createdAt };
}

/** The JSON text of the secrets (what {@link parseCookieSecrets} reads). */
export function cookieSecretsText(s: CookieSecrets): string {
  return `${JSON.stringify(toDocument(s), null, 2)}\n`;
}

/** The secrets in `path`, or undefined if there is no such file. A copy readable by others is made owner-only. */
function readSecretFile(path: string): CookieSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CookieSecretError(
      `${path}: cannot read the DNS cookie secret (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const secrets = parseCookieSecrets(path, text);
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return secrets;
}

/** Writes `secrets` to a private temporary file beside `path` and returns the temporary file's name. */
function writeTemp(path: string, secrets: CookieSecrets): string {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, cookieSecretsText(secrets), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  return tmp;
}

/** Replaces `path` atomically with `secrets` (mode 0600). */
function replaceSecretFile(path: string, secrets: CookieSecrets): void {
  const tmp = writeTemp(path, secrets);
  try {
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Creates `path` with `secrets` unless it exists; returns false if another writer created it first. */
function createSecretFile(path: string, secrets: CookieSecrets): boolean {
  const tmp = writeTemp(path, secrets);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** A new random current secret made at `nowMs`, with `previous` (the one it replaces) still accepted. */
export const newCookieSecrets = (nowMs: number, previous?: Uint8Array): CookieSecrets => {
  const current = new Uint8Array(randomBytes(COOKIE_SECRET_LENGTH));
  const createdAt = new Date(nowMs).toISOString();
  return previous === undefined ? { current, createdAt } : { current, previous, createdAt };
};

/**
 * The server secrets of `<stateDir>/dns-cookie-secret.json`; when there is no file, a new random secret,
 * written there first (mode 0600; `nowMs` is its creation time). Two processes starting together agree on
 * one secret: the file is created by a hard link, which fails if the other was first, and then is read.
 * Load it in one process (the primary) and hand the bytes to DNS workers.
 */
export function loadOrCreateCookieSecret(stateDir: string, nowMs: number): CookieSecrets {
  const path = join(stateDir, COOKIE_SECRET_FILE);
  const existing = readSecretFile(path);
  if (existing !== undefined) return existing;
  const made = newCookieSecrets(nowMs);
  if (createSecretFile(path, made)) return made;
  const winner = readSecretFile(path);
  if (winner === undefined) throw new CookieSecretError(`${path}: the DNS cookie secret vanished while it was being created`);
  return winner;
}

/**
 * Rotates the secret in `<stateDir>/dns-cookie-secret.json`: the current one becomes the previous, a new
 * random one the current (created now if there was none). Returns what the file now holds.
 */
export function rotateCookieSecret(stateDir: string, nowMs: number): CookieSecrets {
  const path = join(stateDir, COOKIE_SECRET_FILE);
  const old = readSecretFile(path);
  const next = newCookieSecrets(nowMs, old?.current);
  replaceSecretFile(path, next);
  return next;
}

/** The secrets of `<stateDir>/dns-cookie-secret.json`, or undefined when there is none. */
export function readCookieSecretFile(stateDir: string): CookieSecrets | undefined {
  return readSecretFile(join(stateDir, COOKIE_SECRET_FILE));
}

/** Replaces `<stateDir>/dns-cookie-secret.json` atomically with `secrets` (mode 0600): a cluster node's private copy. */
export function writeCookieSecretFile(stateDir: string, secrets: CookieSecrets): void {
  replaceSecretFile(join(stateDir, COOKIE_SECRET_FILE), secrets);
}
