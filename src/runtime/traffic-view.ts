/**
 * Traffic View in the running server: every second the DNS server's counts (this process's or the workers')
 * move into the one-minute buckets of dns/traffic.ts and out to live-event subscribers; a profile deleted
 * from the served configuration takes its buckets with it (a profile recreated later starts fresh).
 */
import type { TrafficReport } from '../core/api';
import type { StoredProfile } from '../core/store';
import type { RuntimeClock } from './clock';
import { TrafficStore, type TrafficRow } from './dns';
import type { PublishedSnapshot, SnapshotSink } from './snapshot-sink';
import type { LiveEvents } from './events';

const COLLECT_MS = 1_000;
const DAY_MS = 24 * 3600_000;

export class TrafficView implements SnapshotSink {
  private readonly store = new TrafficStore();
  private source: { drainTraffic(): TrafficRow[] } | undefined;
  private timer: unknown;

  constructor(private readonly deps: { events: LiveEvents; clock: RuntimeClock }) {}

  /** Starts collecting from DNS, once a second. */
  attach(source: { drainTraffic(): TrafficRow[] }): void {
    this.source = source;
    this.tick();
  }

  private tick(): void {
    this.timer = this.deps.clock.setTimeout(() => {
      this.collect();
      this.tick();
    }, COLLECT_MS);
  }

  /** The pipeline published a snapshot: deleted profiles' traffic goes. */
  publish(p: PublishedSnapshot): void {
    for (const name of p.deleted) this.store.forget(name);
  }

  /** Moves DNS's counts into the buckets and tells event subscribers. */
  collect(): void {
    const rows = this.source?.drainTraffic() ?? [];
    if (rows.length === 0) return;
    const now = this.deps.clock.now();
    for (const profile of this.store.add(now, rows)) {
      const bucket = this.store.current(profile, now);
      if (bucket) this.deps.events.publish('traffic', { profile, bucket });
    }
  }

  /** `GET /v1/profiles/{name}/traffic`: the buckets since `since` (ms), counted up to now. */
  report(stored: StoredProfile, since: number): TrafficReport {
    this.collect();
    const buckets = this.store.series(stored.profile.name, since);
    const now = this.deps.clock.now();
    return {
      profile: stored.profile.name,
      trafficViewEnrollmentStatus: stored.profile.trafficViewEnrollmentStatus,
      bucketSeconds: 60,
      from: buckets[0]?.start ?? new Date(Math.max(since, now - DAY_MS)).toISOString(),
      to: new Date(now).toISOString(),
      buckets,
    };
  }

  stop(): void {
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.source = undefined;
  }
}
