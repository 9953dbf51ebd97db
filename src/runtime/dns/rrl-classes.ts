/**
 * What response rate limiting (rrl.ts) works with: its options and figures, the response classes of NSD's
 * `rrl_type`, and `classify`, which puts one answer in its class and bucket key.
 */
/** The response classes of NSD's `rrl_type` (tmkit's {@link classify} gives the first six). */
export type RrlClass = 'positive' | 'nxdomain' | 'nodata' | 'error' | 'any' | 'large' | 'referral' | 'wildcard';

export const RRL_CLASSES: readonly RrlClass[] = Object.freeze([
  'positive',
  'nxdomain',
  'nodata',
  'error',
  'any',
  'large',
  'referral',
  'wildcard',
]);

export type RrlDecision = 'pass' | 'slip' | 'drop';

export interface RrlOptions {
  /** Responses a second per bucket: an integer from 1 to 1,000,000. */
  rate: number;
  /** Every slip-th limited response is sent truncated (TC=1), the others dropped; 0 drops all, 1 truncates all. Default 2. */
  slip?: number;
  /** 'enforce' limits; 'log' only counts what it would have limited. */
  mode: 'enforce' | 'log';
  /** IPv4 clients are grouped by this prefix length (0–32). Default 24. */
  ipv4Prefix?: number;
  /** IPv6 clients are grouped by this prefix length (0–128). Default 56. */
  ipv6Prefix?: number;
  /** Clients never limited: CIDRs (`192.0.2.0/24`, `2001:db8::/32`) or single addresses. */
  exempt?: readonly string[];
  /** The fixed number of buckets: a power of two from 16 to 4,194,304. Default 65536. */
  tableSize?: number;
  /** Seconds: how far a flooded bucket's balance may go below zero, so how long it stays limited after the flood. 1–3600, default 1. */
  window?: number;
  /** Seconds a bucket's run of limited responses lasts before `onSustained` fires (1–3600, default 5). */
  sustainedAfter?: number;
  /** Seconds without any limited response before `onRecovered` fires (1–86400, default 30). */
  recoveredAfter?: number;
}

export interface RrlStats {
  /** Responses within the limit (and exempt or unparsed clients): answered. */
  passed: number;
  /** Enforce mode: limited responses sent truncated. */
  slipped: number;
  /** Enforce mode: limited responses not sent. */
  dropped: number;
  /** Log mode: limited responses that would have been sent truncated (answered in full). */
  wouldSlip: number;
  /** Log mode: limited responses that would have been dropped (answered in full). */
  wouldDrop: number;
  /** Of `passed`: responses to exempt clients. */
  exempted: number;
  /** Buckets whose balance is not back to full at the latest `decide`/`tick` time (the ones that carry state). */
  bucketsInUse: number;
  /** Slots taken over by another key. */
  collisions: number;
  /** The fixed number of slots. */
  tableSize: number;
  /** True between an `onSustained` and the following `onRecovered`. */
  sustained: boolean;
  /** The time of the latest limited response, or undefined. */
  lastLimitedMs: number | undefined;
}

/** What `onSustained` listeners receive: the bucket whose run reached `sustainedAfter`. */
export interface RrlSustainedEvent {
  mode: 'enforce' | 'log';
  /** The client prefix, as `198.51.100.0/24` or `2001:db8:1200::/56`. */
  prefix: string;
  class: RrlClass;
  key: string;
  /** When this bucket's run of limited responses began. */
  sinceMs: number;
  nowMs: number;
  /** The bucket's limited responses so far. */
  limited: number;
}

/** What `onRecovered` listeners receive. */
export interface RrlRecoveredEvent {
  mode: 'enforce' | 'log';
  /** The latest limited response. */
  lastLimitedMs: number;
  nowMs: number;
  /** Limited responses (every bucket) from the start of the run that made the period sustained to its end. */
  limited: number;
}

const QTYPE_ANY = 255;
const QTYPE_DNSKEY = 48;
const RCODE_NOERROR = 0;
const RCODE_NXDOMAIN = 3;
/** Answers above this size (the DNS Flag Day 2020 EDNS buffer size) count as large. */
export const RRL_LARGE_SIZE = 1232;

export interface RrlClassifyInput {
  rcode: number;
  answerCount: number;
  qtype: number;
  /** The encoded response's size in bytes. */
  size: number;
  qname: string;
  /** The zone the answer came from (the apex name); '' when none. */
  zone: string;
}

/**
 * The response class and its key, in NSD's order: the rcode first (NXDOMAIN keyed by the zone, so a
 * flood of random names shares one bucket; any other error in one bucket per client prefix: key ''),
 * then ANY (keyed by the name), then NODATA (no answers; keyed by the zone, so random types share one
 * bucket), then large (DNSKEY, or more than {@link RRL_LARGE_SIZE} bytes; keyed by the name), else
 * positive (keyed by the name). An ANY or large NXDOMAIN stays an NXDOMAIN: keyed by the name, random
 * names would each open a bucket.
 */
export function classify(input: RrlClassifyInput): { class: RrlClass; key: string } {
  const { rcode, answerCount, qtype, size, qname, zone } = input;
  if (rcode === RCODE_NXDOMAIN) return { class: 'nxdomain', key: zone };
  if (rcode !== RCODE_NOERROR) return { class: 'error', key: '' };
  if (qtype === QTYPE_ANY) return { class: 'any', key: qname };
  if (answerCount === 0) return { class: 'nodata', key: zone };
  if (qtype === QTYPE_DNSKEY || size > RRL_LARGE_SIZE) return { class: 'large', key: qname };
  return { class: 'positive', key: qname };
}
