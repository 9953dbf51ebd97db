/**
 * The zone's DNSSEC keys: generating them (node:crypto), the stored key set document, and which key does
 * what at a given time. A key carries its timeline (RFC 7583 terms: published, active, retired, removed) as
 * absolute times, so every node that holds the same key set (cluster mode: one etcd key) serves the same
 * DNSKEY RRset and signs with the same key at the same moment, whatever its own clock read at the rollover.
 *
 *   role | published (in DNSKEY)   | signs the zone's data      | signs the DNSKEY RRset
 *   -----+-------------------------+----------------------------+-----------------------
 *   csk  | publish ≤ t < remove    | activate ≤ t < retire      | while published
 *   zsk  | publish ≤ t < remove    | activate ≤ t < retire      | never
 *   ksk  | publish ≤ t < remove    | never                      | while published
 *
 * Exactly one key signs the zone's data at any time: the active CSK/ZSK activated last.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { ALGORITHM, ALGORITHM_NAMES, FLAGS_SEP, FLAGS_ZSK, canonicalName, dnskeyRdata, dsRdata, keyTag, type Algorithm } from './records';

export type KeyRole = 'csk' | 'ksk' | 'zsk';

/** One key as stored: the private key and its timeline (ISO 8601 times). */
export interface StoredKey {
  role: KeyRole;
  algorithm: Algorithm;
  /** PKCS#8 DER, base64. */
  privateKey: string;
  created: string;
  /** In the DNSKEY RRset from this time. */
  publish: string;
  /** Signs (the zone's data for csk/zsk; for a ksk the same as publish) from this time. */
  activate: string;
  /** Stops signing the zone's data (csk/zsk), or superseded by a new KSK (ksk). */
  retire?: string;
  /** Leaves the DNSKEY RRset. */
  remove?: string;
}

/** What the key store holds: `tmkit serve --dnssec` writes it once and `tmkit dnssec rollover` changes it. */
export interface KeySetDocument {
  format: 1;
  /** The zone the keys sign (lower case, no trailing dot). */
  zone: string;
  keys: StoredKey[];
}

/** A stored key made usable: its KeyObject, DNSKEY RDATA and key tag, and its times in ms. */
export interface ZoneKey {
  readonly stored: StoredKey;
  readonly role: KeyRole;
  readonly algorithm: Algorithm;
  readonly flags: number;
  readonly keyTag: number;
  readonly dnskey: Buffer;
  readonly privateKey: KeyObject;
  readonly publish: number;
  readonly activate: number;
  readonly retire: number;
  readonly remove: number;
}

/** What `tmkit serve --dnssec-algorithm` and `--dnssec-keys` choose. */
export interface KeyPolicy {
  algorithm: Algorithm;
  /** One combined signing key (default), or a KSK and a ZSK. */
  split: boolean;
}

export class DnssecKeyError extends Error {
  readonly code = 'DNSSEC_KEYS';
}

/** A key pair of `algorithm`: PKCS#8 DER of the private key. */
function generatePrivateKey(algorithm: Algorithm): Buffer {
  const { privateKey } =
    algorithm === ALGORITHM.ED25519 ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return privateKey.export({ format: 'der', type: 'pkcs8' });
}

/** The DNSKEY public key field: P-256 x | y (RFC 6605 §4), or the 32-octet Ed25519 key (RFC 8080 §3). */
function publicKeyField(privateKey: KeyObject, algorithm: Algorithm): Buffer {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const x = Buffer.from(jwk.x ?? '', 'base64url');
  if (algorithm === ALGORITHM.ED25519) return x;
  return Buffer.concat([x, Buffer.from(jwk.y ?? '', 'base64url')]);
}

const INF = Number.POSITIVE_INFINITY;

function time(v: string | undefined, what: string): number {
  if (v === undefined) return INF;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new DnssecKeyError(`${what}: ${JSON.stringify(v)} is not an ISO 8601 time`);
  return t;
}

/** A stored key made usable; throws DnssecKeyError naming what is wrong with it. */
export function loadKey(k: StoredKey, where: string): ZoneKey {
  if (k.role !== 'csk' && k.role !== 'ksk' && k.role !== 'zsk')
    throw new DnssecKeyError(`${where}: role ${JSON.stringify(k.role)} is not csk, ksk or zsk`);
  if (k.algorithm !== ALGORITHM.ECDSAP256SHA256 && k.algorithm !== ALGORITHM.ED25519)
    throw new DnssecKeyError(`${where}: algorithm ${JSON.stringify(k.algorithm)} is not 13 or 15`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: Buffer.from(k.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  } catch (err) {
    throw new DnssecKeyError(`${where}: the private key cannot be read (${(err as Error).message})`);
  }
  const expected = k.algorithm === ALGORITHM.ED25519 ? 'ed25519' : 'ec';
  if (privateKey.asymmetricKeyType !== expected || (expected === 'ec' && privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1')) {
    throw new DnssecKeyError(
      `${where}: the private key is not ${expected === 'ec' ? 'a P-256 key' : 'an Ed25519 key'} (algorithm ${k.algorithm})`,
    );
  }
  const flags = k.role === 'zsk' ? FLAGS_ZSK : FLAGS_SEP;
  const dnskey = dnskeyRdata(flags, k.algorithm, publicKeyField(privateKey, k.algorithm));
  return {
    stored: k,
    role: k.role,
    algorithm: k.algorithm,
    flags,
    keyTag: keyTag(dnskey),
    dnskey,
    privateKey,
    publish: time(k.publish, `${where}.publish`),
    activate: time(k.activate, `${where}.activate`),
    retire: time(k.retire, `${where}.retire`),
    remove: time(k.remove, `${where}.remove`),
  };
}

/** Checks a key set document as read from a store and makes its keys usable. */
export function loadKeySet(doc: unknown, where: string): { doc: KeySetDocument; keys: ZoneKey[] } {
  const d = doc as Partial<KeySetDocument> | null;
  if (
    typeof d !== 'object' ||
    d === null ||
    d.format !== 1 ||
    typeof d.zone !== 'string' ||
    !Array.isArray(d.keys) ||
    d.keys.length === 0
  ) {
    throw new DnssecKeyError(`${where}: not a tmkit DNSSEC key set (expected {"format": 1, "zone", "keys": [...]})`);
  }
  return { doc: d as KeySetDocument, keys: d.keys.map((k, i) => loadKey(k, `${where}: keys[${i}]`)) };
}

/** A new key of `role`, published and active from `at` (ms), whose key tag differs from every tag in `taken`. */
export function newKey(role: KeyRole, algorithm: Algorithm, at: number, taken: ReadonlySet<number> = new Set()): StoredKey {
  for (;;) {
    const iso = new Date(at).toISOString();
    const k: StoredKey = {
      role,
      algorithm,
      privateKey: generatePrivateKey(algorithm).toString('base64'),
      created: iso,
      publish: iso,
      activate: iso,
    };
    // Distinct key tags keep every RRSIG pointing at exactly one DNSKEY (RFC 4034 §5.3.1 allows clashes; validators cope, but slower).
    if (!taken.has(loadKey(k, 'new key').keyTag)) return k;
  }
}

/** The first key set of a zone: a CSK, or a KSK and a ZSK, active from `at`. */
export function newKeySet(zone: string, policy: KeyPolicy, at: number): KeySetDocument {
  if (!policy.split) return { format: 1, zone, keys: [newKey('csk', policy.algorithm, at)] };
  const ksk = newKey('ksk', policy.algorithm, at);
  return { format: 1, zone, keys: [ksk, newKey('zsk', policy.algorithm, at, new Set([loadKey(ksk, 'ksk').keyTag]))] };
}

/** Which keys serve at one moment. */
export interface ActiveKeys {
  /** The DNSKEY RRset, in stored order. */
  published: ZoneKey[];
  /** Signs every RRset but DNSKEY. */
  zoneSigner: ZoneKey;
  /** Sign the DNSKEY RRset (every published CSK and KSK). */
  keySigners: ZoneKey[];
  /** The next time (ms) any of this changes; Infinity when nothing is scheduled. */
  nextChange: number;
}

export type KeyState = 'published' | 'active' | 'retired' | 'removed';

/** A key's state at `t` (RFC 7583 §3.1 names, shortened: "published" means not yet signing data). */
export function keyState(k: ZoneKey, t: number): KeyState {
  if (k.remove <= t) return 'removed';
  if (k.retire <= t) return 'retired';
  if (k.activate <= t) return 'active';
  return 'published';
}

export function activeKeys(keys: readonly ZoneKey[], t: number): ActiveKeys {
  const published = keys.filter((k) => k.publish <= t && t < k.remove);
  const signing = published.filter((k) => k.role !== 'ksk' && k.activate <= t && t < k.retire);
  // No active zone key can only come from a hand-edited key set: sign with the newest published one rather than not at all.
  const candidates = signing.length > 0 ? signing : published.filter((k) => k.role !== 'ksk');
  const zoneSigner = candidates.reduce<ZoneKey | undefined>(
    (best, k) => (best === undefined || k.activate > best.activate ? k : best),
    undefined,
  );
  if (zoneSigner === undefined) throw new DnssecKeyError('the key set has no published CSK or ZSK: nothing can sign the zone');
  const keySigners = published.filter((k) => k.role !== 'zsk');
  if (keySigners.length === 0) throw new DnssecKeyError('the key set has no published CSK or KSK: nothing can sign the DNSKEY RRset');
  let nextChange = INF;
  for (const k of keys) for (const v of [k.publish, k.activate, k.retire, k.remove]) if (v > t && v < nextChange) nextChange = v;
  return { published, zoneSigner, keySigners, nextChange };
}

/** The signature over `data` (RFC 6605 §4: r | s, 64 octets; RFC 8080 §4: 64 octets). */
export function signData(key: ZoneKey, data: Buffer): Buffer {
  return key.algorithm === ALGORITHM.ED25519
    ? sign(null, data, key.privateKey)
    : sign('sha256', data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
}

/** The SHA-256 DS RDATA of a key for its zone (RFC 4509). */
export function dsOf(zone: string, key: ZoneKey): Buffer {
  const digest = createHash('sha256').update(canonicalName(zone)).update(key.dnskey).digest();
  return dsRdata(key.keyTag, key.algorithm, digest);
}

/** `tm.internal. IN DS 12345 13 2 ABCD…` (the form a registrar or parent zone file takes). */
export function dsText(zone: string, key: ZoneKey): string {
  const ds = dsOf(zone, key);
  return `${zone}. IN DS ${key.keyTag} ${key.algorithm} 2 ${ds.subarray(4).toString('hex').toUpperCase()}`;
}

/** `tm.internal. 300 IN DNSKEY 257 3 13 base64…` (a trust anchor for unbound, delv or a zone file). */
export function dnskeyText(zone: string, key: ZoneKey, ttl: number): string {
  return `${zone}. ${ttl} IN DNSKEY ${key.flags} 3 ${key.algorithm} ${key.dnskey.subarray(4).toString('base64')}`;
}

export function algorithmName(a: Algorithm): string {
  return ALGORITHM_NAMES[a];
}
