/**
 * This node's etcd lease: granted at start, kept alive every TTL/3, revoked on a clean stop. Its keys (the
 * node record and this location's verdicts) vanish when the node dies: after at most TTL seconds without a
 * keep-alive, etcd deletes them, and every other node recomputes the majority without this location.
 *
 * A keep-alive that gets no answer marks etcd unreachable (the session's state: writes are refused, /healthz
 * degrades). A lease that expired meanwhile (etcd answers TTL 0) is granted anew, and `onGranted` listeners
 * rewrite what hung on the old one.
 */
import type { Logger } from 'pino';
import type { EtcdSession } from '../etcd/session';

interface KeepAliveStream {
  write(x: unknown): boolean;
  on(ev: 'data', f: (r: { ID: string; TTL: string }) => void): unknown;
  on(ev: 'error' | 'end', f: (e?: unknown) => void): unknown;
  cancel(): void;
}

export class NodeLease {
  /** The current lease id (decimal), undefined until granted. */
  id: string | undefined;
  private stream: KeepAliveStream | undefined;
  private pending: { resolve: (ttl: number) => void; reject: (e: unknown) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly granted = new Set<(id: string) => void>();
  /** Keep-alives sent, answered (tests, benchmarks). */
  readonly stats = { grants: 0, keepAlives: 0 };

  constructor(
    private readonly session: EtcdSession,
    readonly ttlSeconds: number,
    private readonly logger?: Logger,
  ) {}

  onGranted(l: (id: string) => void): () => void {
    this.granted.add(l);
    return () => this.granted.delete(l);
  }

  /** Grants the lease (or waits for etcd to do so, in the background when it is down) and starts the keep-alives. */
  async start(): Promise<void> {
    if (this.session.isConnected()) await this.grant().catch(() => undefined);
    this.schedule(this.id ? this.period() : 250);
  }

  private period(): number {
    return Math.max(300, Math.floor((this.ttlSeconds * 1000) / 3));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick();
    }, ms);
    this.timer.unref();
  }

  private async grant(): Promise<void> {
    const res = await this.session.call((c) => c.leaseClient.leaseGrant({ TTL: this.ttlSeconds }), { failFast: false });
    this.id = res.ID;
    this.stats.grants++;
    this.logger?.info({ lease: res.ID, ttl: Number(res.TTL) }, 'etcd lease granted');
    for (const l of this.granted) {
      try {
        l(res.ID);
      } catch (err) {
        this.logger?.error({ err }, 'lease listener failed');
      }
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.id) {
        await this.grant();
      } else {
        const ttl = await this.keepAlive(this.id);
        if (ttl <= 0) {
          this.logger?.warn(
            { lease: this.id },
            "the etcd lease expired (etcd was unreachable longer than its TTL): granting a new one and rewriting this node's keys",
          );
          this.id = undefined;
          await this.grant();
        }
      }
      this.schedule(this.period());
    } catch (err) {
      if (!this.stopped) this.session.markDown(err);
      this.schedule(Math.min(1_000, this.period()));
    }
  }

  /** One keep-alive round trip on the (re-opened when needed) stream; resolves to the TTL etcd reports. */
  private async keepAlive(id: string): Promise<number> {
    if (!this.stream) {
      const s = (await this.session.client.leaseClient.leaseKeepAlive()) as unknown as KeepAliveStream;
      const drop = (e?: unknown): void => {
        if (this.stream === s) this.stream = undefined;
        this.pending?.reject(e ?? new Error('the etcd keep-alive stream ended'));
        this.pending = undefined;
      };
      s.on('data', (r) => {
        const p = this.pending;
        this.pending = undefined;
        p?.resolve(Number(r.TTL));
      });
      s.on('error', drop);
      s.on('end', drop);
      this.stream = s;
    }
    const stream = this.stream;
    const answer = new Promise<number>((resolve, reject) => {
      this.pending = { resolve, reject };
    });
    answer.catch(() => undefined); // a late rejection (stream dropped after a timeout) is not an error of its own
    const timeout = Math.min(2_000, this.period());
    let t: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      t = setTimeout(() => reject(new Error(`etcd did not answer a lease keep-alive within ${timeout} ms`)), timeout);
    });
    try {
      stream.write({ ID: id });
      const ttl = await Promise.race([answer, timedOut]);
      this.stats.keepAlives++;
      this.session.markUp();
      return ttl;
    } catch (err) {
      try {
        stream.cancel();
      } catch {
        /* gone */
      }
      if (this.stream === stream) this.stream = undefined;
      throw err;
    } finally {
      clearTimeout(t);
    }
  }

  /** Stops the keep-alives and revokes the lease (its keys go at once), when etcd can be reached. */
  async stop(revoke = true): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    try {
      this.stream?.cancel();
    } catch {
      /* gone */
    }
    this.stream = undefined;
    this.pending?.reject(new Error('stopped'));
    this.pending = undefined;
    const id = this.id;
    if (revoke && id && this.session.isConnected()) {
      await this.session
        .call((c) => c.leaseClient.leaseRevoke({ ID: id }))
        .catch((err: unknown) => this.logger?.warn({ err }, 'could not revoke the etcd lease; its keys expire with its TTL'));
    }
  }
}
