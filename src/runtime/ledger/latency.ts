/**
 * Measured latency (docs/routing.md "Measured latency"): this probing location's EWMA of every endpoint's
 * successful probe round trips, fed by the prober's `onProbe`. The pipeline reads it as a `LatencyPort` and
 * turns it into the snapshot's LatencyView (core/health/latency.ts `nextLatencyView`, which decides when a
 * change is worth a new snapshot); this part only folds probes in and says, at most once every `everyMs`,
 * that something moved, so routing never rebuilds per probe.
 *
 * One location: this node's (the prober's `location`). Cluster nodes do not share their measurements yet:
 * each node ranks by its own probes (docs/cluster.md says so).
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

/** The prober as this part uses it. */
export interface ProbeSource {
  readonly location: string;
  onProbe(listener: (e: { key: string; probe: LastProbe }) => void): () => void;
}

export interface ProbeLatenciesOptions {
  monitor: ProbeSource;
  clock: RuntimeClock;
  /** The shortest time between two change notices (default 2000 ms). */
  everyMs?: number;
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
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: ProbeLatenciesOptions) {
    const region = findAzureRegion(opts.monitor.location)?.name;
    this.here = { name: opts.monitor.location, ...(region !== undefined ? { region } : {}) };
    this.everyMs = opts.everyMs ?? 2_000;
    this.unsubscribe = opts.monitor.onProbe(({ key, probe }) => this.onProbe(key, probe));
  }

  locations(): readonly ProbingLocation[] {
    return [this.here];
  }

  samples(): ReadonlyMap<string, ReadonlyMap<string, MeasuredRtt>> {
    return this.byKey;
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
    this.dirty = true;
    if (this.timer === undefined) this.timer = this.opts.clock.setTimeout(() => this.notify(), this.everyMs);
  }

  /** Forgets endpoints that are no longer probed (their keys). */
  forget(keys: Iterable<string>): void {
    for (const k of keys) {
      this.byKey.delete(k);
      this.address.delete(k);
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
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own (the pipeline logs its rebuild failures).
      }
    }
  }
}
