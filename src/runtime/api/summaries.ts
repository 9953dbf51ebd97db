/**
 * The API's index of every stored profile's summary (`GET /v1/profiles?view=summary`, a stack's listing,
 * the case-insensitive name lookup): built from one full read the first time it is asked, then kept by the
 * store's change events, so a request after a write re-reads only the profiles written since (one row each),
 * not all 10,000 (issue 17 §4).
 */
import type { ProfileSummary } from '../../core/api';
import { profileSummary } from '../../core/plan/scope';
import type { Store } from '../../core/store';

/** A refresh that keeps meeting new writes stops after this many passes (the next request catches up). */
const MAX_PASSES = 4;

export class SummaryIndex {
  /** Exact stored name → summary; filled by the first refresh. */
  private byName = new Map<string, ProfileSummary>();
  private readonly dirty = new Set<string>();
  /** The whole index must be read again (never read yet, or the store was replaced). */
  private full = true;
  private refreshing: Promise<void> | undefined;
  private readonly unwatch: () => void;

  constructor(private readonly store: Store) {
    this.unwatch = store.watch((c) => {
      if (c.kind !== 'profile') return;
      if (c.op === 'replace' || c.name === undefined) this.full = true;
      else this.dirty.add(c.name);
    });
  }

  close(): void {
    this.unwatch();
  }

  /** Every stored profile's summary, sorted by name, with the store revision they reflect (at least). */
  async list(): Promise<{ revision: number; profiles: ProfileSummary[] }> {
    const revision = await this.store.revision();
    const index = await this.current();
    return { revision, profiles: [...index.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
  }

  /** The exact stored name of the profile `name` names ignoring case, if any. */
  async resolve(name: string): Promise<string | undefined> {
    const lower = name.toLowerCase();
    for (const s of (await this.current()).values()) if (s.name.toLowerCase() === lower) return s.name;
    return undefined;
  }

  /** Names of the profiles `stack` owns. */
  async namesOf(stack: string): Promise<string[]> {
    return [...(await this.current()).values()].filter((s) => s.stack === stack).map((s) => s.name);
  }

  /** The index with every change committed before the call applied (one refresh at a time). */
  private async current(): Promise<Map<string, ProfileSummary>> {
    while (this.refreshing) await this.refreshing;
    if (this.full || this.dirty.size > 0) {
      this.refreshing = this.refresh().finally(() => {
        this.refreshing = undefined;
      });
      await this.refreshing;
    }
    return this.byName;
  }

  private async refresh(): Promise<void> {
    for (let pass = 0; pass < MAX_PASSES && (this.full || this.dirty.size > 0); pass++) {
      if (this.full) {
        // Changes during the read mark names dirty again and are re-read in the next pass.
        this.full = false;
        this.dirty.clear();
        const all = await this.store.getProfiles();
        this.byName = new Map(all.map((p) => [p.profile.name, profileSummary(p.profile, p.stack, p.etag)]));
        continue;
      }
      const names = [...this.dirty];
      this.dirty.clear();
      const rows = await Promise.all(names.map((n) => this.store.getProfile(n)));
      names.forEach((n, i) => {
        const p = rows[i];
        if (p) this.byName.set(n, profileSummary(p.profile, p.stack, p.etag));
        else this.byName.delete(n);
      });
    }
  }
}
