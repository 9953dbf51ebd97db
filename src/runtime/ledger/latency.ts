/**
 * Measured latency (docs/routing.md "Measured latency"): this probing location's EWMA of every endpoint's
 * successful probe round trips, fed by the prober's `onProbe`. The pipeline reads it as a `LatencyPort` and
 * turns it into the snapshot's LatencyView (core/health/latency.ts `nextLatencyView`, which decides when a
 * change is worth a new snapshot); this part only folds probes in and says, at most once every `everyMs`,
 * that something moved, so routing never rebuilds per probe.
 *
 * One location on a single node (the prober's `location`). In a cluster (`ClusterLatencies`,
 * cluster/latency.ts) this location's measurements are written to etcd and the other live locations' are
 * read from it, so a client maps to its nearest location whichever node it asks.
 */
import { ewma, type MeasuredRtt, type ProbingLocation } from '../../core/health/latency';
import { findAzureRegion } from '../../core/data';
import type { RuntimeClock } from '../clock';
import type { LastProbe } from '../monitor/monitor';

/** What the pipeline reads of the measurements. */
export interface LatencyPort {
  /** The probing locations measured (this node's). */
  locations(): readonly ProbingLocation[];
  /** `profile/endpoint` → location → EWMA of its successful probes' round trips. */
  samples(): ReadonlyMap<string, ReadonlyMap<string, MeasuredRtt>>;
  /** Called at most once every `everyMs` after a probe moved a measurement; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
}

/** The cluster as this part uses it (cluster/latency.ts, `ClusterNode.latency`); absent on a single node. */
export interface ClusterLatencies {
  /** The other live locations' measurements: location → `profile/endpoint` → EWMA. */
  others(): ReadonlyMap<string, ReadonlyMap<string, MeasuredRtt>>;
  /** This location's measurements now (written to etcd when they moved enough). */
  publish(own: ReadonlyMap<string, MeasuredRtt>): void;
  /** Another location's measurements, or which locations are live, changed. */
  onChange(listener: () => void): () => void;
}

/** The prober as this part uses it. */
export interface ProbeSource {
  readonly location: string;
  onProbe(listener: (e: { key: string; probe: LastProbe }) => void): () => void;
}

export interface ProbeLatenciesOptions {
  monitor: ProbeSource;
  clock: RuntimeClock;
  /** The probed endpoints now (the ledger): a measurement of an endpoint no longer probed is dropped. */
  targets?: { targets(): ReadonlyMap<string, string> };
  /** The shortest time between two change notices (default 2000 ms). */
  everyMs?: number;
  cluster?: ClusterLatencies;
  /**
   * Whether the measurements of `profile/endpoint` are written for the other nodes: only those of profiles
   * that rank by them (`performanceLatency.source: Measured`), so a cluster without one writes nothing to etcd
   * for them (each write moves the store revision, which a cluster serves as the SOA serial). Default: all.
   */
  shared?: (key: string) => boolean;
}

export class ProbeLatencies implements LatencyPort {
  private readonly here: ProbingLocation;
  private readonly byKey = new Map<string, Map<string, MeasuredRtt>>();
  /** The address each key was last probed at: a new one (the endpoint moved) starts its EWMA again. */
  private readonly address = new Map<string, string | undefined>();
  private readonly listeners = new Set<() => void>();
  private readonly everyMs: number;
  private timer: unknown;
  private dirty = false;
  /** A probe moved this location's measurements since the last notice (the cluster hears of it then). */
  private ownMoved = false;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: ProbeLatenciesOptions) {
    const region = findAzureRegion(opts.monitor.location)?.name;
    this.here = { name: opts.monitor.location, ...(region !== undefined ? { region } : {}) };
    this.everyMs = opts.everyMs ?? 2_000;
    const a = opts.monitor.onProbe(({ key, probe }) => this.onProbe(key, probe));
    const b = opts.cluster?.onChange(() => this.changed());
    this.unsubscribe = () => {
      a();
      b?.();
    };
  }

  locations(): readonly ProbingLocation[] {
    const others = this.opts.cluster?.others();
    if (others === undefined || others.size === 0) return [this.here];
    const out: ProbingLocation[] = [this.here];
    for (const name of others.keys()) {
      const region = findAzureRegion(name)?.name;
      out.push({ name, ...(region !== undefined ? { region } : {}) });
    }
    return out.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  samples(): ReadonlyMap<string, ReadonlyMap<string, MeasuredRtt>> {
    const others = this.opts.cluster?.others();
    if (others === undefined || others.size === 0) return this.byKey;
    const out = new Map<string, Map<string, MeasuredRtt>>();
    for (const [key, m] of this.byKey) out.set(key, new Map(m));
    for (const [location, rtt] of others)
      for (const [key, m] of rtt) {
        let at = out.get(key);
        if (at === undefined) out.set(key, (at = new Map()));
        at.set(location, m);
      }
    return out;
  }

  /** This location's measurements: `profile/endpoint` → EWMA (those `keep` says, default all). */
  own(keep?: (key: string) => boolean): Map<string, MeasuredRtt> {
    const out = new Map<string, MeasuredRtt>();
    for (const [key, m] of this.byKey) {
      if (keep !== undefined && !keep(key)) continue;
      const v = m.get(this.here.name);
      if (v !== undefined) out.set(key, v);
    }
    return out;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One probe: a failed one measures nothing (its time is a timeout or a refusal, not a round trip). */
  onProbe(key: string, probe: LastProbe): void {
    if (!probe.ok) return;
    let m = this.byKey.get(key);
    if (m === undefined || this.address.get(key) !== probe.address) {
      m = new Map();
      this.byKey.set(key, m);
      this.address.set(key, probe.address);
    }
    m.set(this.here.name, ewma(m.get(this.here.name), probe.latencyMs));
    this.ownMoved = true;
    this.changed();
  }

  /** Something moved: tell the listeners within `everyMs`. */
  private changed(): void {
    this.dirty = true;
    if (this.timer === undefined) this.timer = this.opts.clock.setTimeout(() => this.notify(), this.everyMs);
  }

  /** Drops the measurements of endpoints that are no longer probed (removed, or their profile deleted). */
  private prune(): void {
    const probed = this.opts.targets?.targets();
    if (probed === undefined) return;
    for (const k of this.byKey.keys())
      if (!probed.has(k)) {
        this.byKey.delete(k);
        this.address.delete(k);
        this.ownMoved = true;
      }
  }

  stop(): void {
    this.unsubscribe();
    if (this.timer !== undefined) this.opts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private notify(): void {
    this.timer = undefined;
    if (!this.dirty) return;
    this.dirty = false;
    this.prune();
    if (this.ownMoved && this.opts.cluster) this.opts.cluster.publish(this.own(this.opts.shared));
    this.ownMoved = false;
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own (the pipeline logs its rebuild failures).
      }
    }
  }
}
