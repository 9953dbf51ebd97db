/** `serve --dnssec`: the zone's keys as the API shows them, and rollovers. */

/** One DNSSEC key as `GET /v1/dnssec` shows it (no private key ever leaves the server). */
export interface DnssecKeyReport {
  keyTag: number;
  role: 'csk' | 'ksk' | 'zsk';
  algorithm: number;
  /** 257 (CSK, KSK) or 256 (ZSK). */
  flags: number;
  /** published: in the DNSKEY RRset, not signing yet; active: signing; retired: still published, no longer signing the zone's data; removed. */
  state: 'published' | 'active' | 'retired' | 'removed';
  publish: string;
  activate: string;
  retire?: string;
  remove?: string;
  /** The DNSKEY record in presentation form (a trust anchor). */
  dnskey: string;
  /** The DS record for the parent (SHA-256), for a CSK or KSK. */
  ds?: string;
}

/** `GET /v1/dnssec`: the zone's keys, the DS for the parent, and the signer's figures. */
export interface DnssecReport {
  zone: string;
  enabled: true;
  algorithm: number;
  algorithmName: string;
  /** One combined signing key, or a KSK and a ZSK. */
  keyMode: 'csk' | 'split';
  /** Where the keys are stored. */
  keyStore: string;
  keys: DnssecKeyReport[];
  /** DS records of the published CSK/KSKs: what the parent zone should hold. */
  ds: string[];
  denial: 'compact (RFC 9824)';
  validitySeconds: number;
  refreshSeconds: number;
  backdateSeconds: number;
  /** Summed over the DNS processes (absent before DNS answered anything with a worker). */
  signatures?: { made: number; refreshed: number; cacheHits: number; cached: number; nextRefresh: string };
}

/** `POST /v1/dnssec/rollover`: start a rollover of the zone-signing key (CSK/ZSK) or of the KSK, or finish one. */
export interface DnssecRolloverRequest {
  kind?: 'zone' | 'ksk';
  finish?: boolean;
}

export interface DnssecRolloverResult {
  steps: string[];
  keyTags: number[];
  report: DnssecReport;
}
