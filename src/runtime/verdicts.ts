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
  /** Current probe settings fingerprint per `profile/endpoint`. */
  private fingerprints = new Map<string, string>();
  /** Transitions saved by the previous run (status reports show them with the live ones). */
  readonly previousHistory: readonly EndpointTransition[];

  constructor(saved: unknown) {
    const prev = saved as SavedMonitorState | undefined;
    this.previousHistory = prev && Array.isArray(prev.history) ? prev.history : [];
    if (prev && prev.verdicts && prev.fingerprints) {
      for (const [key, verdict] of Object.entries(prev.verdicts)) {
        const fingerprint = prev.fingerprints[key];
        if (fingerprint !== undefined && verdict !== 'CheckingEndpoint') this.carried.set(key, { verdict, fingerprint });
      }
    }
  }

  /** The probe settings now in force (a carried verdict only counts for the settings it was reached with). */
  setFingerprints(f: ReadonlyMap<string, string>): void {
    this.fingerprints = new Map(f);
  }

  /** The monitor has decided this endpoint itself now. */
  decided(key: string): void {
    this.carried.delete(key);
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
