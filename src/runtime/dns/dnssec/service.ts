/**
 * DNSSEC in `tmkit serve --dnssec`: the key set (loaded from its store, or created on first start), its
 * changes (rollovers through the API; in cluster mode also another node's, read from etcd every few seconds),
 * and the report `GET /v1/dnssec` and `tmkit dnssec ds` show. Signing itself happens where DNS answers (the
 * responder's ZoneSigner, in this process or in each DNS worker): this only hands the key set on.
 */
import type { Logger } from 'pino';
import type { DnssecKeyReport, DnssecReport } from '../../../core/api';
import {
  DnssecKeyError,
  algorithmName,
  dnskeyText,
  dsText,
  keyState,
  loadKeySet,
  newKeySet,
  type KeyPolicy,
  type KeySetDocument,
  type ZoneKey,
} from './keys';
import type { DnssecKeyStore } from './key-store';
import { finishRollover, startRollover, type RolloverKind, type RolloverResult } from './rollover';
import { SIGNING_DEFAULTS, type SignerStats } from './signer';
import { systemClock } from '../../clock';

export interface DnssecServiceOptions {
  zone: string;
  policy: KeyPolicy;
  store: DnssecKeyStore;
  logger: Logger;
  /** TTL of the DNSKEY RRset (the zone's SOA/NS TTL). Default 300. */
  dnskeyTtl?: number;
  /** Added to every rollover wait (seconds). Default 120: covers the poll interval of every node. */
  marginSeconds?: number;
  /** Read the store this often for other nodes' changes (cluster mode); 0: never. */
  pollMs?: number;
  now?: () => number;
}

export class DnssecService {
  private current: KeySetDocument;
  private loadedKeys: ZoneKey[];
  private readonly listeners = new Set<(doc: KeySetDocument) => void>();
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  private constructor(
    private readonly options: DnssecServiceOptions,
    doc: KeySetDocument,
    keys: ZoneKey[],
  ) {
    this.current = doc;
    this.loadedKeys = keys;
    this.now = options.now ?? systemClock.now;
    if (options.pollMs !== undefined && options.pollMs > 0) {
      this.pollTimer = setInterval(() => void this.poll(), options.pollMs);
      this.pollTimer.unref();
    }
  }

  /**
   * Loads the key set, or creates it (a CSK, or a KSK and a ZSK, of the policy's algorithm) when the store has
   * none. Throws DnssecKeyError when the stored keys are for another zone, algorithm or key mode.
   */
  static async open(o: DnssecServiceOptions): Promise<DnssecService> {
    const now = (o.now ?? systemClock.now)();
    let doc = await o.store.load();
    let created = false;
    if (doc === undefined) {
      const fresh = newKeySet(o.zone, o.policy, now);
      doc = await o.store.createIfAbsent(fresh);
      created = doc === fresh;
    }
    const { keys } = loadKeySet(doc, o.store.where);
    check(doc, keys, o);
    o.logger.info(
      { keyStore: o.store.where, created, keyTags: keys.map((k) => k.keyTag) },
      created ? 'DNSSEC keys generated' : 'DNSSEC keys loaded',
    );
    return new DnssecService(o, doc, keys);
  }

  /** The key set DNS signs with now. */
  get doc(): KeySetDocument {
    return this.current;
  }

  get keys(): readonly ZoneKey[] {
    return this.loadedKeys;
  }

  /** Called with every new key set (a rollover here or on another node). */
  onChange(fn: (doc: KeySetDocument) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.listeners.clear();
  }

  report(stats?: SignerStats): DnssecReport {
    const t = this.now();
    const zone = this.options.zone;
    const ttl = this.options.dnskeyTtl ?? 300;
    const keys: DnssecKeyReport[] = this.loadedKeys.map((k) => {
      const s = k.stored;
      const r: DnssecKeyReport = {
        keyTag: k.keyTag,
        role: k.role,
        algorithm: k.algorithm,
        flags: k.flags,
        state: keyState(k, t),
        publish: s.publish,
        activate: s.activate,
        dnskey: dnskeyText(zone, k, ttl),
      };
      if (s.retire !== undefined) r.retire = s.retire;
      if (s.remove !== undefined) r.remove = s.remove;
      if (k.role !== 'zsk') r.ds = dsText(zone, k);
      return r;
    });
    const algorithm = this.loadedKeys[0]!.algorithm;
    return {
      zone,
      enabled: true,
      algorithm,
      algorithmName: algorithmName(algorithm),
      keyMode: this.loadedKeys.some((k) => k.role === 'ksk') ? 'split' : 'csk',
      keyStore: this.options.store.where,
      keys,
      ds: keys.filter((k) => k.ds !== undefined && k.state !== 'removed' && Date.parse(k.publish) <= t).map((k) => k.ds!),
      denial: 'compact (RFC 9824)',
      validitySeconds: SIGNING_DEFAULTS.validitySeconds,
      refreshSeconds: SIGNING_DEFAULTS.refreshSeconds,
      backdateSeconds: SIGNING_DEFAULTS.backdateSeconds,
      ...(stats
        ? {
            signatures: {
              made: stats.signatures,
              refreshed: stats.refreshed,
              cacheHits: stats.cacheHits,
              cached: stats.cached,
              nextRefresh: new Date(stats.nextRefresh).toISOString(),
            },
          }
        : {}),
    };
  }

  /**
   * Starts a rollover (`kind`: the zone-signing key or the KSK), or finishes one (`finish`), as one
   * compare-and-swap on the store: planned on the stored key set, retried when another node changed it.
   * `maxTtl`: the largest TTL in the zone now (seconds).
   */
  async rollover(kind: RolloverKind, finish: boolean, maxTtl: number): Promise<RolloverResult> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const stored = (await this.options.store.load()) ?? this.current;
      const timing = {
        now: this.now(),
        dnskeyTtl: this.options.dnskeyTtl ?? 300,
        maxTtl: Math.max(maxTtl, this.options.dnskeyTtl ?? 300),
        marginSeconds: this.options.marginSeconds ?? 120,
      };
      const result = finish ? finishRollover(stored, timing) : startRollover(stored, kind, timing);
      if (await this.options.store.replace(stored, result.doc)) {
        this.options.logger.info({ kind, finish, keyTags: result.keyTags, steps: result.steps }, 'DNSSEC rollover');
        this.adopt(result.doc);
        return result;
      }
    }
    throw new DnssecKeyError(`${this.options.store.where} kept changing under this rollover (other nodes writing); retry`);
  }

  /** Cluster mode: another node's rollover, read from the store. */
  private async poll(): Promise<void> {
    try {
      const doc = await this.options.store.load();
      if (doc !== undefined && JSON.stringify(doc) !== JSON.stringify(this.current)) this.adopt(doc);
    } catch (err) {
      this.options.logger.debug({ err }, 'could not read the DNSSEC keys; keeping the ones in use');
    }
  }

  private adopt(doc: KeySetDocument): void {
    try {
      const { keys } = loadKeySet(doc, this.options.store.where);
      check(doc, keys, this.options);
      this.current = doc;
      this.loadedKeys = keys;
    } catch (err) {
      this.options.logger.error({ err }, 'the stored DNSSEC keys are unusable; keeping the ones in use');
      return;
    }
    for (const fn of this.listeners) fn(doc);
  }
}

/** The stored keys must be for this zone, algorithm and key mode (no algorithm rollover, no mode change). */
function check(doc: KeySetDocument, keys: readonly ZoneKey[], o: DnssecServiceOptions): void {
  const zone = o.zone.replace(/\.$/, '').toLowerCase();
  if (doc.zone !== zone) {
    throw new DnssecKeyError(
      `${o.store.where} holds the DNSSEC keys of ${doc.zone}, not ${zone}: serve --zone ${doc.zone}, or move the keys away to start ${zone} with new ones`,
    );
  }
  const algorithms = [...new Set(keys.map((k) => k.algorithm))];
  if (algorithms.length !== 1 || algorithms[0] !== o.policy.algorithm) {
    throw new DnssecKeyError(
      `${o.store.where} holds algorithm ${algorithms.join('+')} keys, not ${o.policy.algorithm}: pass ` +
        `--dnssec-algorithm ${algorithms[0]} (tmkit does no algorithm rollover; new keys mean a new DS ` +
        `at the parent)`,
    );
  }
  const split = keys.some((k) => k.role === 'ksk');
  if (split !== o.policy.split) {
    throw new DnssecKeyError(
      `${o.store.where} holds ${split ? 'a KSK and a ZSK' : 'one combined key (CSK)'}: pass ` +
        `--dnssec-keys ${split ? 'split' : 'csk'} (changing the key mode needs new keys and a new DS at ` +
        `the parent)`,
    );
  }
}
