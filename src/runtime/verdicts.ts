/**
 * Verdict persistence across restarts: the monitor state saved in the store (effective verdicts, the probe
 * settings they were reached with, recent transitions), and the verdicts carried over from the previous run.
 * Until the monitor decides an endpoint again (its first transition after start), a carried verdict stands
 * in for the monitor's initial CheckingEndpoint — as if probing had never stopped: a Degraded endpoint is
 * not answered again just because the runtime restarted.
 */
import type { ProbeVerdict } from '../core/health/types';
import type { EndpointTransition } from './monitor';

/** The monitor state kept in the store across restarts. */
export interface SavedMonitorState {
  savedAt: number;
  /** Effective verdicts (`profile/endpoint` → verdict) when saved. */
  verdicts?: Record<string, ProbeVerdict>;
  /** Probe settings fingerprints the verdicts belong to. */
  fingerprints?: Record<string, string>;
  history?: EndpointTransition[];
}

export class VerdictBook {
  private readonly carried = new Map<string, { verdict: ProbeVerdict; fingerprint: string }>();
  /**
   * Current probe settings fingerprint per `profile/endpoint` (the engine's map, kept current by it): a
   * carried verdict only counts for the settings it was reached with.
   */
  private readonly fingerprints: ReadonlyMap<string, string>;
  /** Transitions the monitor reported that only confirmed a carried verdict: not status changes, never listed. */
  private readonly confirmations = new WeakSet<EndpointTransition>();
  private history: EndpointTransition[];

  constructor(saved: unknown, fingerprints: ReadonlyMap<string, string> = new Map()) {
    this.fingerprints = fingerprints;
    const prev = saved as SavedMonitorState | undefined;
    this.history = prev && Array.isArray(prev.history) ? prev.history : [];
    if (prev && prev.verdicts && prev.fingerprints) {
      for (const [key, verdict] of Object.entries(prev.verdicts)) {
        const fingerprint = prev.fingerprints[key];
        if (fingerprint !== undefined && verdict !== 'CheckingEndpoint') this.carried.set(key, { verdict, fingerprint });
      }
    }
  }

  /** Transitions saved by the previous run (status reports show them with the live ones). */
  get previousHistory(): readonly EndpointTransition[] { return this.history; }

  /**
   * The monitor has decided this endpoint itself now. True when its transition only confirms the carried
   * verdict (CheckingEndpoint → the verdict it had before the restart, same probe settings): the endpoint's
   * status never changed, so it is no transition to log, count, list or rebuild for.
   */
  decided(t: EndpointTransition): boolean {
    const c = this.carried.get(t.key);
    this.carried.delete(t.key);
    if (c && t.from === 'CheckingEndpoint' && t.to === c.verdict && this.fingerprints.get(t.key) === c.fingerprint) {
      this.confirmations.add(t);
      return true;
    }
    return false;
  }

  /** Whether a reported transition was only a confirmation (see decided). */
  isConfirmation(t: EndpointTransition): boolean {
    return this.confirmations.has(t);
  }

  /** A deleted profile's saved history and carried verdicts go with it: a new profile of that name starts fresh. */
  forgetProfile(name: string): void {
    this.history = this.history.filter((t) => t.profile !== name);
    for (const key of [...this.carried.keys()]) if (key.startsWith(`${name}/`)) this.carried.delete(key);
  }

  /** True when `key`'s verdict is the carried one (the monitor still says CheckingEndpoint). */
  isCarried(key: string, monitorVerdict: ProbeVerdict | undefined): boolean {
    const c = this.carried.get(key);
    return c !== undefined && monitorVerdict === 'CheckingEndpoint' && this.fingerprints.get(key) === c.fingerprint;
  }

  /** The monitor's verdicts with carried ones standing in where it has not decided yet. */
  effective(monitor: Map<string, ProbeVerdict>): Map<string, ProbeVerdict> {
    for (const [key, c] of this.carried) if (this.isCarried(key, monitor.get(key))) monitor.set(key, c.verdict);
    return monitor;
  }

  /** One key's effective verdict (the monitor's, or the carried one standing in for its CheckingEndpoint). */
  effectiveOf(key: string, monitorVerdict: ProbeVerdict | undefined): ProbeVerdict | undefined {
    return this.isCarried(key, monitorVerdict) ? this.carried.get(key)!.verdict : monitorVerdict;
  }

  /** What to save now. */
  toSaved(verdicts: Map<string, ProbeVerdict>, history: EndpointTransition[], now: number): SavedMonitorState {
    return { savedAt: now, verdicts: Object.fromEntries(verdicts), fingerprints: Object.fromEntries(this.fingerprints), history };
  }
}
