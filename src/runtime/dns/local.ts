/** DNS answered in this process: the `DnsTarget` over one `DnsServer` (`--workers 1`, or no reusePort and one core). */
import type { CompiledSnapshot } from '../../core/routing';
import type { SnapshotUpdate } from '../snapshot-sink';
import type { DnsCounts } from './counts';
import { CookieJar } from './cookies';
import type { KeySetDocument } from './dnssec/keys';
import { signerFor, type SignerStats } from './dnssec/signer';
import type { ResponderStats } from './responder';
import type { BoundAddress, DnsServer } from './server';
import { RrlAlerts, watchRrl, type RrlAlert } from './rrl-alerts';
import type { DnsCookieSecrets, DnsTarget } from './target';
import type { TrafficRow } from './traffic';
import { clientMatcher, type DecisionQuery, type DecisionRecord } from './decisions';
import type { DnstapStats } from './dnstap';

export class LocalDns implements DnsTarget {
  constructor(private readonly server: DnsServer) {}
  setDnssec(doc: KeySetDocument): void {
    const before = this.server.responder.dnssec;
    const signer = signerFor(this.server.responder.zone, doc, before);
    if (signer !== before) this.server.responder.setSigner(signer);
  }
  dnssecStats(): SignerStats | undefined {
    return this.server.responder.dnssec?.stats();
  }
  setCookies(secrets: DnsCookieSecrets): void {
    this.server.responder.setCookies(CookieJar.fromSecrets(secrets));
  }
  onRrl(listener: (alert: RrlAlert) => void): () => void {
    const rrl = this.server.responder.rrl;
    if (rrl === undefined) return () => undefined;
    const alerts = new RrlAlerts();
    const off = alerts.on(listener);
    const stop = watchRrl(rrl, (a) => alerts.report(0, a));
    return () => {
      stop();
      off();
    };
  }
  start(): Promise<void> {
    return this.server.start();
  }
  publish(
    snapshot: CompiledSnapshot,
    _delta?: () => SnapshotUpdate,
    _full?: () => SnapshotUpdate,
    serial?: number,
    revision?: number,
  ): void {
    this.server.setSnapshot(snapshot, serial, revision);
  }
  addresses(): BoundAddress[] {
    return this.server.addresses();
  }
  stats(): ResponderStats {
    return this.server.stats;
  }
  counts(): DnsCounts {
    return this.server.counts();
  }
  drainTraffic(): TrafficRow[] {
    return this.server.drainTraffic();
  }
  decisions(q: DecisionQuery): DecisionRecord[] {
    return this.server.tap?.ring?.query(q, q.client !== undefined ? clientMatcher(q.client) : undefined) ?? [];
  }
  decisionsAfter(mark: number): { records: DecisionRecord[]; mark: number } {
    const ring = this.server.tap?.ring;
    return ring ? { records: ring.after(mark), mark: ring.added } : { records: [], mark };
  }
  dnstapStats(): DnstapStats | undefined {
    return this.server.tap?.stats();
  }
  async close(): Promise<void> {
    this.server.responder.dnssec?.close();
    await this.server.close();
    await this.server.tap?.close();
  }
}
