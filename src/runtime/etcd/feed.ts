/**
 * What keeps the mirror current: a paged listing of the whole prefix at one revision (at start, after a
 * compaction, when a watch falls behind), and one watch over the prefix from the revision after the last one
 * applied. A break (etcd down, a stream error) resumes at that revision; a compacted start revision
 * re-lists first.
 *
 *   etcd ──range (paged, one revision)──▶ mirror ◀──watch (resumes at the last applied revision)
 */
import type { IKeyValue, IWatchResponse } from 'etcd3';
import type { Logger } from 'pino';
import type { EtcdConnection } from './connection';
import { prefixEnd } from './keys';
import type { EtcdMirror } from './mirror';

export interface FeedStats {
  watches: number;
  relists: number;
  compactions: number;
}

export class MirrorFeed {
  private readonly prefixBuf: Buffer;
  private watchStream: { cancel(): void } | undefined;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly conn: EtcdConnection,
    private readonly mirror: EtcdMirror,
    prefix: string,
    private readonly stats: FeedStats,
    private readonly options: { logger?: Logger; retryMs: number },
  ) {
    this.prefixBuf = Buffer.from(prefix);
  }

  /** Reads everything under the prefix at one revision (paged) and replaces the mirror with it. */
  async relist(timeoutMs = this.conn.requestTimeoutMs): Promise<void> {
    const end = prefixEnd(this.prefixBuf);
    const kvs: IKeyValue[] = [];
    let revision: string | undefined;
    let clusterId = '';
    let from = this.prefixBuf;
    for (;;) {
      const res = await this.conn.client.kv.range(
        { key: from, range_end: end, limit: 2000, sort_order: 'Ascend', sort_target: 'Key', ...(revision ? { revision } : {}) },
        { deadline: this.conn.deadline(timeoutMs) },
      );
      revision ??= res.header.revision;
      clusterId = res.header.cluster_id;
      kvs.push(...res.kvs);
      if (!res.more || res.kvs.length === 0) break;
      from = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
    }
    this.stats.relists++;
    this.mirror.replace(kvs, Number(revision), clusterId);
  }

  /** Starts the watch loop; with `relistFirst` (the mirror came from the local copy) it re-lists first. */
  start(relistFirst: boolean, onLive: () => void): void {
    this.loop = this.run(relistFirst, onLive);
  }

  /** Wakes the loop for an immediate reconnection attempt. */
  kick(): void {
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        r();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        r();
      };
    });
  }

  private async run(relistFirst: boolean, onLive: () => void): Promise<void> {
    let delay = this.options.retryMs;
    while (!this.stopped) {
      let outcome: 'compacted' | 'broken' = 'broken';
      try {
        if (relistFirst) {
          await this.relist();
          relistFirst = false;
          onLive();
          this.conn.markUp();
        }
        outcome = await this.watchOnce(() => {
          delay = this.options.retryMs;
        });
      } catch (err) {
        if (!this.stopped) this.conn.markDown(err);
      }
      if (this.stopped) break;
      if (outcome === 'compacted') {
        relistFirst = true;
        this.stats.compactions++;
        continue;
      }
      await this.sleep(delay);
      delay = Math.min(2_000, delay * 2);
    }
  }

  private async watchOnce(onHealthy: () => void): Promise<'compacted' | 'broken'> {
    const stream = await this.conn.client.watchClient.watch();
    // Stopped while the stream was being created: stop() could not cancel it, so do it here.
    if (this.stopped) {
      try {
        stream.cancel();
      } catch {
        /* gone */
      }
      return 'broken';
    }
    this.watchStream = stream;
    this.stats.watches++;
    return new Promise((resolve) => {
      let done = false;
      const finish = (why: 'compacted' | 'broken', err?: unknown): void => {
        if (done) return;
        done = true;
        try {
          stream.cancel();
        } catch {
          /* already gone */
        }
        this.watchStream = undefined;
        if (why === 'broken' && !this.stopped) this.conn.markDown(err ?? new Error('the etcd watch stream ended'));
        resolve(why);
      };
      stream.on('data', (res: IWatchResponse) => {
        if (res.canceled) {
          if (res.compact_revision !== undefined && res.compact_revision !== '0') {
            this.options.logger?.warn(
              { from: this.mirror.appliedRevision + 1, compacted: res.compact_revision },
              'etcd compacted past the last applied revision: re-listing',
            );
            finish('compacted');
          } else {
            finish('broken', new Error(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
          }
          return;
        }
        // Any response on the stream shows etcd is reachable (a slow request may have marked it down).
        this.conn.markUp();
        if (res.created) onHealthy();
        try {
          this.mirror.applyWatch(res);
        } catch (err) {
          this.options.logger?.error({ err }, 'applying an etcd watch response failed; re-listing');
          finish('compacted');
        }
      });
      stream.on('error', (err: unknown) => finish('broken', err));
      stream.on('end', () => finish('broken'));
      (stream as unknown as { write(x: unknown): boolean }).write({
        create_request: {
          key: this.prefixBuf,
          range_end: prefixEnd(this.prefixBuf),
          start_revision: String(this.mirror.appliedRevision + 1),
          progress_notify: true,
        },
      });
    });
  }

  /** Ends the loop and the watch; resolves when the loop has stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    try {
      this.watchStream?.cancel();
    } catch {
      /* gone */
    }
    await this.loop?.catch(() => undefined);
  }
}
