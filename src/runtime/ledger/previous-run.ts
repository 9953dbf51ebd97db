/**
 * What the previous run left (the health ledger's memory of it): the records saved in the store, one per
 * probed endpoint (its effective verdict, the probe settings it was reached with, its recent transitions),
 * and the verdicts carried over from them. Until the monitor decides an endpoint again (its first transition
 * after start), a carried verdict stands in for the monitor's initial CheckingEndpoint — as if probing had
 * never stopped: a Degraded endpoint is not answered again just because the runtime restarted.
 *
 * Records are saved per endpoint so a save costs what changed: the ledger marks the endpoints whose record
 * changed (a transition, new probe settings, gone) and saver.ts saves only those.
 */
import { splitTargetKey } from '../../core/health/targets';
import type { ProbeVerdict } from '../../core/health/types';
import type { MonitorState } from '../../core/store';
import type { EndpointTransition } from '../monitor';

/** Transitions kept per endpoint across restarts (status reports list a profile's most recent 100). */
export const SAVED_HISTORY = 10;

/**
 * One entry of an endpoint's history: a status change the prober saw, one health pushed from outside caused
 * (`source: 'pushed'`), or a maintenance change (the endpoint or its profile disabled: `to` Disabled; enabled
 * again: `from` Disabled). Newest last.
 */
export type LedgerTransition = Omit<EndpointTransition, 'from' | 'to'> & {
  from: ProbeVerdict | 'Disabled';
  to: ProbeVerdict | 'Disabled';
  /** `pushed`: health pushed from outside moved the effective verdict; absent: probing (or maintenance). */
  source?: 'pushed';
};

/** One endpoint's saved record (the store keeps it as opaque JSON under `profile/endpoint`). */
export interface SavedEndpoint {
  /** The effective verdict when saved. */
  verdict: ProbeVerdict;
  /** Probe settings fingerprint the verdict belongs to; `''`: not probed now (disabled), kept for its history. */
  fingerprint: string;
  /** Most recent transitions, oldest first, without the key (the record's key says whose). */
  history?: Array<Omit<LedgerTransition, 'key' | 'profile' | 'endpoint'>>;
}

/** The non-endpoint part of the saved state. */
export interface SavedMonitorMeta {
  format: 2;
  savedAt: number;
}

/** The whole-state blob saved before records were kept per endpoint (read once, converted). */
interface LegacyMonitorState {
  verdicts?: Record<string, ProbeVerdict>;
  fingerprints?: Record<string, string>;
  history?: EndpointTransition[];
}

export class PreviousRun {
  private readonly carried = new Map<string, { verdict: ProbeVerdict; fingerprint: string }>();
  /** The carried keys by profile (a deleted profile's go with it). */
  private readonly carriedOf = new Map<string, string[]>();
  /**
   * Current probe settings fingerprint per `profile/endpoint` (the ledger's map, kept current by it): a
   * carried verdict only counts for the settings it was reached with.
   */
  private readonly fingerprints: ReadonlyMap<string, string>;
  /** Transitions the monitor reported that only confirmed a carried verdict: not status changes, never listed. */
  private readonly confirmations = new WeakSet<EndpointTransition>();
  /** The previous run's transitions, by endpoint key, oldest first, until the ledger takes them. */
  private history: Map<string, LedgerTransition[]> | undefined = new Map();
  /** The keys of the saved records and their fingerprints, until the first retarget has compared them. */
  private saved: Map<string, string> | undefined = new Map();
  /** True when the store held the earlier whole-state blob: every record is written once, in the new shape. */
  readonly legacy: boolean;

  constructor(state: MonitorState | undefined, fingerprints: ReadonlyMap<string, string> = new Map()) {
    this.fingerprints = fingerprints;
    const legacy = state?.meta as LegacyMonitorState | undefined;
    this.legacy =
      legacy !== undefined &&
      legacy !== null &&
      typeof legacy === 'object' &&
      (legacy.verdicts !== undefined || legacy.history !== undefined);
    if (this.legacy) {
      for (const t of Array.isArray(legacy!.history) ? legacy!.history : []) this.remember(t);
      for (const [key, verdict] of Object.entries(legacy!.verdicts ?? {})) {
        const fingerprint = legacy!.fingerprints?.[key];
        if (fingerprint !== undefined) this.carry(key, verdict, fingerprint);
      }
    }
    for (const [key, value] of Object.entries(state?.endpoints ?? {})) {
      const r = value as Partial<SavedEndpoint> | null;
      if (r === null || typeof r !== 'object' || typeof r.fingerprint !== 'string' || typeof r.verdict !== 'string') continue;
      this.carry(key, r.verdict, r.fingerprint);
      const [profile, endpoint] = splitTargetKey(key);
      for (const t of Array.isArray(r.history) ? r.history : []) this.remember({ ...t, key, profile, endpoint });
    }
    for (const list of this.history!.values()) list.sort((a, b) => a.at - b.at);
  }

  private carry(key: string, verdict: ProbeVerdict, fingerprint: string): void {
    this.saved!.set(key, fingerprint);
    if (verdict === 'CheckingEndpoint') return;
    this.carried.set(key, { verdict, fingerprint });
    const [profile] = splitTargetKey(key);
    const keys = this.carriedOf.get(profile);
    if (keys) keys.push(key);
    else this.carriedOf.set(profile, [key]);
  }

  private remember(t: LedgerTransition): void {
    const list = this.history!.get(t.key);
    if (list) list.push(t);
    else this.history!.set(t.key, [t]);
  }

  /** The previous run's transitions by endpoint key, oldest first; once (the ledger keeps them from then on). */
  takeHistory(): Map<string, LedgerTransition[]> {
    const h = this.history ?? new Map<string, LedgerTransition[]>();
    this.history = undefined;
    return h;
  }

  /**
   * The saved records' keys and fingerprints, once (the first full retarget compares them with the targets
   * to know which records to rewrite and drop); undefined after that.
   */
  takeSaved(): Map<string, string> | undefined {
    const s = this.saved;
    this.saved = undefined;
    return s;
  }

  /**
   * The monitor has decided this endpoint itself now. True when its transition only confirms the carried
   * verdict (CheckingEndpoint → the verdict it had before the restart, same probe settings): the endpoint's
   * status never changed, so it is no transition to log, count, list, save or rebuild for.
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

  /**
   * The carried verdict of `key` when it counts for the current probe settings (failback.ts seeds the prober
   * with it), with when it last changed and when it last became Degraded, from the endpoint's `history`.
   */
  carriedState(key: string, history: readonly LedgerTransition[]): { verdict: ProbeVerdict; since: number; failedAt?: number } | undefined {
    const c = this.carried.get(key);
    if (!c || this.fingerprints.get(key) !== c.fingerprint) return undefined;
    // The prober's own state: what pushed health did is not the endpoint's outage or recovery.
    const probed = history.filter((t) => t.source !== 'pushed');
    const failed = probed.filter((t) => t.to === 'Degraded').at(-1);
    return { verdict: c.verdict, since: probed.at(-1)?.at ?? 0, ...(failed ? { failedAt: failed.at } : {}) };
  }

  /** The prober holds `key`'s verdict itself now (seeded): it no longer stands in for CheckingEndpoint. */
  handOver(key: string): void {
    this.carried.delete(key);
  }

  /** A deleted profile's carried verdicts go with it: a new profile of that name starts fresh. */
  forgetProfile(name: string): void {
    for (const key of this.carriedOf.get(name) ?? []) this.carried.delete(key);
    this.carriedOf.delete(name);
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

  /** The record to save for one endpoint: its effective verdict and fingerprint, and its most recent transitions. */
  static record(fingerprint: string, verdict: ProbeVerdict, history: readonly LedgerTransition[]): SavedEndpoint {
    const recent = history.slice(-SAVED_HISTORY);
    const out: SavedEndpoint = { verdict, fingerprint };
    if (recent.length > 0)
      out.history = recent.map(({ at, from, to, reason, consecutiveFailures, location }) => ({
        at,
        from,
        to,
        reason,
        consecutiveFailures,
        location,
      }));
    return out;
  }
}
