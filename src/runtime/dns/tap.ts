/**
 * The server's query tap: which queries are sampled (`--dnstap-sample N`, `--decision-sample N`), and where a
 * sampled one goes: dnstap (dnstap.ts) with its decision in `extra`, the decision log (decisions.ts: this DNS
 * process's ring, and for a DNS worker the batch it reports to the primary). One per DNS process.
 *
 * Hot path: `due()` is two counter decrements; only a sampled query is explained by the responder, recorded
 * and encoded.
 */
import type { RoutingSnapshot } from '../../core/routing/types';
import { DecisionRing, decisionRecord, type DecisionRecord, type Explained } from './decisions';
import { DnstapWriter, type DnstapStats, type DnstapTarget, type TappedQuery } from './dnstap';

/** What `serve --dnstap…` and `--decision-…` set (every DNS process builds its own tap from it). */
export interface DnsTapOptions {
  dnstap?: DnstapTarget;
  /** 1 = every query (default 1). */
  dnstapSample?: number;
  /** Every Nth query goes to the decision log (default 1); 0 = none. */
  decisionSample?: number;
  /** Decision records kept per DNS process (default 10 000). */
  decisionRing?: number;
  /** Frames queued for a slow dnstap reader before new ones are dropped (default 10 000). */
  dnstapQueue?: number;
  /** dnstap identity (default the host name) and version (default `tmkit VERSION`). */
  identity?: string;
  version?: string;
}

/** Every how many queries a decision is kept (0: the decision log is off); no tap options: off. */
export function decisionEvery(o: DnsTapOptions | undefined): number {
  return o === undefined ? 0 : Math.max(0, Math.floor(o.decisionSample ?? 1));
}

/** The longest batch a DNS worker keeps for its next report to the primary. */
const REPORT_MAX = 2_000;

export class QueryTap {
  readonly writer: DnstapWriter | undefined;
  readonly ring: DecisionRing | undefined;
  private readonly dnstapEvery: number;
  private readonly decisionEvery: number;
  private dnstapLeft: number;
  private decisionLeft: number;
  /** The last `due()`: 1 = dnstap, 2 = decision log (bits). */
  private pending = 0;
  /** Records for the primary (a DNS worker's report), when `forPrimary`. */
  private batch: DecisionRecord[] = [];
  /** Records not reported because the batch was full. */
  batchDropped = 0;

  constructor(
    o: DnsTapOptions,
    private readonly forPrimary = false,
    onProblem?: (message: string) => void,
  ) {
    this.dnstapEvery = o.dnstap ? Math.max(1, Math.floor(o.dnstapSample ?? 1)) : 0;
    this.decisionEvery = decisionEvery(o);
    this.dnstapLeft = this.dnstapEvery;
    this.decisionLeft = this.decisionEvery;
    this.writer = o.dnstap
      ? new DnstapWriter({
          target: o.dnstap,
          ...(o.dnstapQueue !== undefined ? { queueFrames: o.dnstapQueue } : {}),
          ...(o.identity !== undefined ? { identity: o.identity } : {}),
          ...(o.version !== undefined ? { version: o.version } : {}),
          ...(onProblem ? { onProblem } : {}),
        })
      : undefined;
    this.ring = this.decisionEvery > 0 && !forPrimary ? new DecisionRing(o.decisionRing ?? 10_000) : undefined;
  }

  /** Whether this query is sampled (by either); call once per query. */
  due(): boolean {
    let p = 0;
    if (this.dnstapEvery !== 0 && --this.dnstapLeft <= 0) {
      this.dnstapLeft = this.dnstapEvery;
      p = 1;
    }
    // A DNS worker whose report to the primary is full samples no more decisions until it is sent.
    if (this.decisionEvery !== 0 && (!this.forPrimary || this.batch.length < REPORT_MAX) && --this.decisionLeft <= 0) {
      this.decisionLeft = this.decisionEvery;
      p |= 2;
    }
    this.pending = p;
    return p !== 0;
  }

  /** Records the sampled exchange `due()` said yes to (the event is encoded before this returns: nothing keeps it). */
  record(e: TappedQuery, explained: Explained | undefined, snapshot: RoutingSnapshot, revision: number, serial: number): void {
    if (explained !== undefined && this.pending & 2) {
      const decision = decisionRecord(explained, e.responseTime, e.client, e.tcp ? 'tcp' : 'udp', snapshot, revision, serial);
      if (this.ring !== undefined) this.ring.add(decision);
      else if (this.forPrimary) {
        if (this.batch.length < REPORT_MAX) this.batch.push(decision);
        else this.batchDropped++;
      }
    }
    if (this.pending & 1 && this.writer !== undefined) this.writer.write(e, explained, snapshot, revision, serial);
  }

  /** A DNS worker's records since its last report. */
  drainBatch(): DecisionRecord[] {
    const out = this.batch;
    this.batch = [];
    return out;
  }

  stats(): DnstapStats | undefined {
    return this.writer ? { ...this.writer.stats } : undefined;
  }

  async close(): Promise<void> {
    await this.writer?.close();
  }
}
