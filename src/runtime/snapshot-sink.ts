/**
 * What the snapshot pipeline (pipeline.ts) publishes, and the port it publishes to. A leaf: the pipeline,
 * DNS (dns/fleet.ts `dnsSink`), Traffic View and the live events import it, and it imports only the core.
 */
import type { LatencyView } from '../core/health/latency';
import type { EndpointOverride, ProbeVerdict } from '../core/health/types';
import type { ResourceCatalogRecord } from '../core/model/catalog';
import type { Profile } from '../core/model/types';
import type { CompiledSnapshot } from '../core/routing';

/**
 * What DNS worker processes receive on every rebuild: the snapshot's inputs as plain data. `full`: the whole
 * state (on start and resync); otherwise only the profiles that changed and the ones deleted, the catalog
 * only when it changed, and the verdicts that changed (all of them when `verdictsComplete`), so an update
 * costs what changed at any number of profiles.
 */
export interface SnapshotUpdate {
  type: 'tmkit-snapshot';
  revision: number;
  full: boolean;
  profiles: Profile[];
  deleted: string[];
  resources?: ResourceCatalogRecord;
  /** `profile/endpoint` → probe verdict; null: the endpoint has none any more. */
  verdicts: Record<string, ProbeVerdict | null>;
  /** `verdicts` is every verdict (replacing the worker's), not only the changed ones. */
  verdictsComplete: boolean;
  /** Every override in force, by `profile/endpoint` (few: sent whole; absent from older primaries: none). */
  overrides?: Record<string, EndpointOverride>;
  /**
   * What the probing locations measured (core/health/latency.ts), whole: with every full update, and with a
   * delta when it changed since the previous one (absent: unchanged, none yet, or an older primary). Read per
   * query by Measured Performance profiles.
   */
  latency?: LatencyView;
  /** The SOA serial to serve (cluster mode); absent: the worker bumps its own. */
  serial?: number;
}

/**
 * One snapshot the pipeline publishes, as every sink receives it: the snapshot DNS answers from, the store
 * revision it reflects, the profiles deleted since the previous one, and the worker updates (built only
 * when a sink asks for them).
 */
export interface PublishedSnapshot {
  snapshot: CompiledSnapshot;
  revision: number;
  deleted: readonly string[];
  delta(): SnapshotUpdate;
  full(): SnapshotUpdate;
}

/** Where the pipeline publishes: DNS (`dnsSink`), Traffic View, the live events. */
export interface SnapshotSink {
  publish(p: PublishedSnapshot): void;
}
