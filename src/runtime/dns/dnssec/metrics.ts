/** DNSSEC figures on `/metrics`, read at scrape time: the keys and their states, and the signers' counters. */
import { Counter, Gauge, type Registry } from 'prom-client';
import { keyState } from './keys';
import type { DnssecService } from './service';
import type { SignerStats } from './signer';
import { systemClock } from '../../clock';

export function attachDnssecMetrics(
  registry: Registry,
  source: () => { service: DnssecService; stats: SignerStats | undefined } | undefined,
): void {
  const registers = [registry];
  new Gauge({
    name: 'tmkit_dnssec_key_info',
    help: 'DNSSEC keys of the zone (1 per key): key tag, role (csk, ksk, zsk), algorithm (13, 15) and state (published, active, retired, removed)',
    labelNames: ['key_tag', 'role', 'algorithm', 'state'],
    registers,
    collect() {
      this.reset();
      const s = source();
      if (!s) return;
      const t = systemClock.now();
      for (const k of s.service.keys)
        this.set({ key_tag: String(k.keyTag), role: k.role, algorithm: String(k.algorithm), state: keyState(k, t) }, 1);
    },
  });
  const counter = (name: string, help: string, pick: (s: SignerStats) => number): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        const s = source()?.stats;
        if (!s) return;
        this.reset();
        this.inc(pick(s));
      },
    });
  };
  counter(
    'tmkit_dnssec_signatures_total',
    'RRSIGs made since start (cache misses and background refreshes), summed over the DNS processes',
    (s) => s.signatures,
  );
  counter(
    'tmkit_dnssec_signatures_refreshed_total',
    'RRSIGs made ahead of a new validity window by the background refresh',
    (s) => s.refreshed,
  );
  counter(
    'tmkit_dnssec_signature_cache_hits_total',
    'RRsets whose signatures came from the signature cache when an answer was encoded',
    (s) => s.cacheHits,
  );
  new Gauge({
    name: 'tmkit_dnssec_signature_cache_entries',
    help: 'RRsets in the signature cache (summed over the DNS processes)',
    registers,
    collect() {
      const s = source()?.stats;
      if (s) this.set(s.cached);
    },
  });
  counter(
    'tmkit_dnssec_signature_cache_evictions_total',
    'RRsets evicted from the signature cache to keep it within its size bound (--dnssec-cache-size)',
    (s) => s.evictions,
  );
  counter(
    'tmkit_dnssec_sign_refused_total',
    'Answers not signed because the budget of new signatures for names that do not exist was spent (--dnssec-sign-rate): sent with TC',
    (s) => s.refused,
  );
  new Gauge({
    name: 'tmkit_dnssec_signature_cache_bytes',
    help: 'Estimated size of the signature cache in bytes (summed over the DNS processes; each is bounded by --dnssec-cache-size)',
    registers,
    collect() {
      const s = source()?.stats;
      if (s) this.set(s.cacheBytes);
    },
  });
  new Gauge({
    name: 'tmkit_dnssec_signature_cache_limit_bytes',
    help: 'The signature cache size bound in bytes (--dnssec-cache-size, summed over the DNS processes)',
    registers,
    collect() {
      const s = source()?.stats;
      if (s) this.set(s.cacheBytesLimit);
    },
  });
  new Gauge({
    name: 'tmkit_dnssec_next_refresh_timestamp_seconds',
    help: 'When the signatures in use are next made again for the coming validity window (Unix time)',
    registers,
    collect() {
      const s = source()?.stats;
      if (s) this.set(Math.round(s.nextRefresh / 1000));
    },
  });
}
