/**
 * Health pushed from outside in a cluster (core/store/pushed-health.ts): one key per endpoint,
 * `pushed/<profile>/<endpoint>` (etcd/keys.ts), each under a lease of its own that lasts until the push ends
 * (and a little longer), so etcd drops it even when no node is left to. Every node reads the keys from its
 * mirror and ends each record at `expiresAt` by its own clock (ledger/pushed-health.ts): all nodes answer
 * alike within their clocks' skew, whenever the lease actually runs out.
 */
import type { PushedHealthRecord, PushedHealthStore } from '../../core/store';
import { keyOfPushed } from '../etcd/keys';
import type { EtcdSession } from '../etcd/session';

/** Seconds a key's lease outlives its record (etcd's lease clock is coarse; the nodes end it on time). */
const LEASE_GRACE_SECONDS = 5;

export class EtcdPushedHealth implements PushedHealthStore {
  constructor(private readonly session: EtcdSession) {}

  async load(): Promise<PushedHealthRecord[]> {
    return [...this.session.pushed.values()];
  }

  async put(r: PushedHealthRecord): Promise<void> {
    const s = this.session;
    if (!s.isConnected()) throw s.unavailable();
    const ttl = Math.max(1, Math.ceil((r.expiresAt - r.at) / 1000)) + LEASE_GRACE_SECONDS;
    const lease = await s.call((c) => c.leaseClient.leaseGrant({ TTL: ttl }));
    const value = JSON.stringify({ status: r.status, reason: r.reason, at: r.at, expiresAt: r.expiresAt });
    await s.call((c) => c.kv.put({ key: s.key(keyOfPushed(r.key)), value: Buffer.from(value), lease: lease.ID }));
  }

  async delete(key: string): Promise<void> {
    const s = this.session;
    if (!s.isConnected()) throw s.unavailable();
    await s.call((c) => c.kv.deleteRange({ key: s.key(keyOfPushed(key)) }));
  }

  watch(listener: (key: string, record: PushedHealthRecord | undefined) => void): () => void {
    return this.session.onPushed(listener);
  }
}
