/**
 * Key rollovers as edits of the key set's timelines (keys.ts), timed by TTLs (RFC 6781 §4.1, RFC 7583):
 *
 * - Zone-signing key (the CSK, or the ZSK with split keys), pre-publish: the new key is in the DNSKEY RRset
 *   now and signs the zone's data once every resolver can have it, DNSKEY TTL + the margin from now; the old
 *   one then stops signing. An old ZSK leaves the DNSKEY RRset once the largest TTL in the zone (+ margin)
 *   has passed, as no cached signature made with it is left. A new CSK also signs the DNSKEY RRset from the
 *   start, so either DS at the parent validates; the old CSK leaves only with `finish`, after the operator
 *   replaced the DS at the parent (the DS is the parent's data: tmkit cannot see when that is done).
 * - KSK (split keys), double-DS, by hand: `start` publishes a new KSK that signs the DNSKEY RRset next to the
 *   old one; the operator adds its DS at the parent, waits for the parent's DS TTL, removes the old DS, and
 *   runs `finish`, which takes the old KSK out of the DNSKEY RRset.
 *
 * Pure: the time and the TTLs come in; a DnssecKeyError says why a step is refused now.
 */
import { DnssecKeyError, keyState, loadKey, newKey, type KeyRole, type KeySetDocument, type StoredKey, type ZoneKey } from './keys';

export interface RolloverTiming {
  /** Now, ms since the epoch. */
  now: number;
  /** TTL of the DNSKEY RRset (seconds). */
  dnskeyTtl: number;
  /** The largest TTL of any signed RRset in the zone (seconds): how long a signature can stay cached. */
  maxTtl: number;
  /** Added to every wait (seconds): propagation to every node and every resolver. */
  marginSeconds: number;
}

export type RolloverKind = 'zone' | 'ksk';

export interface RolloverResult {
  doc: KeySetDocument;
  /** What happens when, in words (the CLI prints it; the API returns it). */
  steps: string[];
  /** The new key (start), or the keys that leave (finish). */
  keyTags: number[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

function loaded(doc: KeySetDocument): ZoneKey[] {
  return doc.keys.map((k, i) => loadKey(k, `keys[${i}]`));
}

/** Keys removed before `now` are dropped from the document (they serve nowhere any more). */
function pruned(keys: readonly ZoneKey[], now: number): ZoneKey[] {
  return keys.filter((k) => k.remove > now);
}

/** Starts a rollover of the zone-signing key (CSK or ZSK) or of the KSK. */
export function startRollover(doc: KeySetDocument, kind: RolloverKind, t: RolloverTiming): RolloverResult {
  const keys = pruned(loaded(doc), t.now);
  const split = keys.some((k) => k.role === 'ksk');
  if (kind === 'ksk' && !split)
    throw new DnssecKeyError(
      'this zone signs with one combined key (CSK): roll it with `tmkit dnssec rollover` (no --ksk); ' +
        'a KSK rollover needs split keys (serve --dnssec-keys split)',
    );
  const role: KeyRole = kind === 'ksk' ? 'ksk' : split ? 'zsk' : 'csk';
  // One rollover at a time per role: not while a new key waits to sign, an old one waits for --finish, or an
  // old ZSK is still published.
  const pending = keys.filter((k) => {
    if (k.role !== role) return false;
    const st = keyState(k, t.now);
    return st === 'published' || (st === 'retired' && (k.remove === Number.POSITIVE_INFINITY || k.role === 'zsk'));
  });
  if (pending.length > 0) {
    const k = pending[0]!;
    const st = keyState(k, t.now);
    throw new DnssecKeyError(
      st === 'published'
        ? `a ${role.toUpperCase()} rollover is under way: key ${k.keyTag} signs from ${iso(k.activate)}; start the next one after that`
        : k.remove === Number.POSITIVE_INFINITY
          ? `key ${k.keyTag} (${role.toUpperCase()}) still waits for its DS to leave the parent: finish that rollover first (tmkit dnssec rollover --finish)`
          : `key ${k.keyTag} (${role.toUpperCase()}) is still published until ${iso(k.remove)} (signatures ` +
            `made with it can be cached until then); roll again after that`,
    );
  }
  const current = keys.filter((k) => k.role === role && keyState(k, t.now) === 'active');
  const taken = new Set(keys.map((k) => k.keyTag));
  const algorithm = (current[0] ?? keys[0]!).algorithm;
  const fresh = newKey(role, algorithm, t.now, taken);
  const freshTag = loadKey(fresh, 'new key').keyTag;
  const stored: StoredKey[] = keys.map((k) => ({ ...k.stored }));
  const byTag = (tag: number): StoredKey => stored[keys.findIndex((k) => k.keyTag === tag)]!;
  const steps: string[] = [];
  if (role === 'ksk') {
    for (const k of current) byTag(k.keyTag).retire = iso(t.now);
    steps.push(
      `now: KSK ${freshTag} is published and signs the DNSKEY RRset next to KSK ${current.map((k) => k.keyTag).join(', ')}`,
      `you: add the DS of key ${freshTag} at the parent (tmkit dnssec ds), wait for the parent's DS ` +
        `TTL, remove the old DS, then run tmkit dnssec rollover --finish`,
    );
  } else {
    const activate = t.now + (t.dnskeyTtl + t.marginSeconds) * 1000;
    fresh.activate = iso(activate);
    for (const k of current) {
      const s = byTag(k.keyTag);
      s.retire = iso(activate);
      if (role === 'zsk') s.remove = iso(activate + (t.maxTtl + t.marginSeconds) * 1000);
    }
    steps.push(
      `now: ${role.toUpperCase()} ${freshTag} is published in the DNSKEY RRset${role === 'csk' ? ' and signs it next to the current CSK' : ''}`,
      `${iso(activate)}: ${role.toUpperCase()} ${freshTag} signs the zone (DNSKEY TTL ${t.dnskeyTtl} ` +
        `s + ${t.marginSeconds} s), replacing ${current.map((k) => k.keyTag).join(', ')}`,
      role === 'zsk'
        ? `${iso(activate + (t.maxTtl + t.marginSeconds) * 1000)}: ZSK ` +
            `${current.map((k) => k.keyTag).join(', ')} leaves the DNSKEY RRset (largest TTL ${t.maxTtl} s ` +
            `+ ${t.marginSeconds} s)`
        : `you: add the DS of key ${freshTag} at the parent (tmkit dnssec ds), wait for the parent's DS ` +
            `TTL, remove the old DS, then run tmkit dnssec rollover --finish`,
    );
  }
  return { doc: { ...doc, keys: [...stored, fresh] }, steps, keyTags: [freshTag] };
}

/** Takes the superseded CSK or KSK out of the DNSKEY RRset once the parent has the new DS only. */
export function finishRollover(doc: KeySetDocument, t: RolloverTiming): RolloverResult {
  const keys = pruned(loaded(doc), t.now);
  const leaving = keys.filter((k) => k.role !== 'zsk' && k.retire !== Number.POSITIVE_INFINITY && k.remove === Number.POSITIVE_INFINITY);
  if (leaving.length === 0) throw new DnssecKeyError('no CSK or KSK waits for --finish: start a rollover first (tmkit dnssec rollover)');
  const successors = keys.filter((k) => k.role !== 'zsk' && k.retire === Number.POSITIVE_INFINITY);
  const early = successors.filter((k) => k.activate > t.now);
  if (early.length > 0)
    throw new DnssecKeyError(
      `key ${early[0]!.keyTag} only signs from ${iso(early[0]!.activate)}: finish after that (and after the parent has its DS only)`,
    );
  const stored: StoredKey[] = keys.map((k) => ({ ...k.stored }));
  const steps: string[] = [];
  for (const k of leaving) {
    // A CSK's data signatures can be cached until the largest TTL has passed since it stopped signing.
    const at = k.role === 'csk' ? Math.max(t.now, k.retire + (t.maxTtl + t.marginSeconds) * 1000) : t.now;
    stored[keys.indexOf(k)]!.remove = iso(at);
    steps.push(
      `${at === t.now ? 'now' : iso(at)}: ${k.role.toUpperCase()} ${k.keyTag} leaves the DNSKEY RRset; make sure the parent no longer has its DS`,
    );
  }
  return { doc: { ...doc, keys: stored }, steps, keyTags: leaving.map((k) => k.keyTag) };
}
