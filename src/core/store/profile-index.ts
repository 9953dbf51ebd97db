/**
 * The index a store keeps beside its view, so admission (admission.ts) finds what the cross-profile rules
 * need — a profile by name, the profile at a relativeName — without a pass over every stored profile:
 * a write costs its own profile, at any number of profiles. Updated with every committed write.
 */
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import type { ProfileIndex } from '../validate/context';

const rnKey = (p: Profile): string | undefined => {
  const rn = p.dnsConfig?.relativeName as unknown;
  return typeof rn === 'string' ? rn.toLowerCase().replace(/\.$/, '') : undefined;
};

/** The lower-cased names of the profiles a profile's nested endpoints point at. */
const childrenOf = (p: Profile): string[] =>
  (Array.isArray(p.endpoints) ? p.endpoints : [])
    .filter((e) => e.type === 'nestedEndpoints' && typeof e.targetResourceId === 'string')
    .map((e) => childProfileName(e.targetResourceId!).toLowerCase());

export class LiveProfileIndex implements ProfileIndex {
  private readonly names = new Map<string, Profile>();
  private readonly rns = new Map<string, Profile>();
  /** Lower-cased child name → the profiles nesting it. */
  private readonly parents = new Map<string, Set<Profile>>();

  get size(): number {
    return this.names.size;
  }

  byName(lower: string): Profile | undefined {
    return this.names.get(lower);
  }

  byRelativeName(lower: string): Profile | undefined {
    return this.rns.get(lower);
  }

  /** The profiles with a nested endpoint pointing at `lower` (a child's name, lower case). */
  parentsOf(lower: string): Profile[] {
    return [...(this.parents.get(lower) ?? [])];
  }

  /** The profile stored under `name` now (undefined: deleted). */
  set(name: string, profile: Profile | undefined): void {
    const k = name.toLowerCase();
    const old = this.names.get(k);
    if (old !== undefined) {
      const r = rnKey(old);
      if (r !== undefined && this.rns.get(r) === old) this.rns.delete(r);
      for (const c of childrenOf(old)) {
        const s = this.parents.get(c);
        s?.delete(old);
        if (s?.size === 0) this.parents.delete(c);
      }
      this.names.delete(k);
    }
    if (profile === undefined) return;
    this.names.set(k, profile);
    const r = rnKey(profile);
    if (r !== undefined && !this.rns.has(r)) this.rns.set(r, profile);
    for (const c of childrenOf(profile)) {
      let s = this.parents.get(c);
      if (!s) this.parents.set(c, (s = new Set()));
      s.add(profile);
    }
  }

  clear(): void {
    this.names.clear();
    this.rns.clear();
    this.parents.clear();
  }
}
