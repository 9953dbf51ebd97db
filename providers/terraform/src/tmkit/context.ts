/**
 * What every tmkit resource handler gets (./resources): the client, the stack's resources, and what this
 * provider process knows of the runtime's profiles, so plan checks cost O(1) per resource, not O(profile).
 *
 * - The listing: every deployed profile, read once per process (one `GET /v1/profiles`), then kept up to date
 *   from each write's response, and the source of refresh reads (a plan over 1,000 endpoints is one request)
 *   (an endpoint PUT answers with the stored endpoint and the profile's new ETag, a
 *   profile write with the stored profile, a DELETE with what went). A refused write drops it: the next check
 *   reads the runtime again. Terraform runs one provider process per plan and one per apply, so a plan sees
 *   the runtime as it was when the plan began, plus this process's own writes.
 * - A per-profile index (ProfileIndex), built from the listing at the first check that needs the profile and
 *   updated in place by the same writes: which endpoints hold a priority, a geographic code, a target address,
 *   subnets, or are a Subnet profile's fallback. An endpoint's cross-endpoint checks validate the endpoint with
 *   just the endpoints the index says it can clash with (`relatedTo`), never a clone of the whole profile.
 * - What this plan has seen so far: profiles being replaced, profiles with inline `endpoint` blocks and those
 *   with separate endpoint resources (mixing both is refused), and the settings planned for new profiles (so
 *   an endpoint of a profile created in the same run is checked against its routing method).
 */
import type { ProfileEntry } from '../../../../src/core/api';
import { endpointEtag } from '../../../../src/core/model/edit';
import type { Endpoint, EndpointInput, Profile } from '../../../../src/core/model/types';
import { broadcastAddress, networkAddress, parseIp, type IpRange } from '../../../../src/core/net/ip';
import { classifyTarget } from '../../../../src/core/validate/target';
import type { TmkitClient } from '../../../../src/client';
import type { LiveHealthCache } from '../../../../src/client/deploy';
import { StackResources, type EndpointState, type ProfileSettingsInput } from '../../../../src/client/resources';

/** How a Terraform user takes a change made by someone else into the state, ending conflict messages. */
export const TERRAFORM_REFRESH =
  'run `terraform refresh` to take the change into the state (the next `terraform plan` then shows what it would undo), then `terraform apply`';

const lower = (s: string): string => s.toLowerCase();

/** A multimap of key → lower-cased endpoint names, in insertion order. */
class Keyed<K> {
  private readonly map = new Map<K, Set<string>>();
  add(k: K, name: string): void {
    let s = this.map.get(k);
    if (!s) this.map.set(k, (s = new Set()));
    s.add(name);
  }
  delete(k: K, name: string): void {
    const s = this.map.get(k);
    if (s?.delete(name) && s.size === 0) this.map.delete(k);
  }
  get(k: K): ReadonlySet<string> {
    return this.map.get(k) ?? EMPTY;
  }
  /** The first name of every key (one endpoint per key). */
  firsts(): string[] {
    return [...this.map.values()].map((s) => s.values().next().value!);
  }
}
const EMPTY: ReadonlySet<string> = new Set();

/** The address ranges of an endpoint's subnets (those that parse; the endpoint's own rules report the rest). */
function rangesOf(e: Endpoint | EndpointInput): IpRange[] {
  const out: IpRange[] = [];
  for (const s of Array.isArray(e.subnets) ? e.subnets : []) {
    const first = typeof s.first === 'string' ? parseIp(s.first) : undefined;
    if (!first) continue;
    const last = typeof s.last === 'string' ? parseIp(s.last) : undefined;
    if (last && last.family === first.family) out.push({ family: first.family, lo: first.value, hi: last.value });
    else if (typeof s.scope === 'number' && Number.isInteger(s.scope) && s.scope >= 0 && s.scope <= (first.family === 4 ? 32 : 128)) {
      out.push({
        family: first.family,
        lo: networkAddress(first.value, first.family, s.scope),
        hi: broadcastAddress(first.value, first.family, s.scope),
      });
    } else out.push({ family: first.family, lo: first.value, hi: first.value });
  }
  return out;
}

const overlaps = (a: IpRange, b: IpRange): boolean => a.family === b.family && a.lo <= b.hi && b.lo <= a.hi;

/** The keys an endpoint is indexed under. */
function keysOf(e: Endpoint | EndpointInput): { target?: string; kind?: string; geo: string[]; subnets: boolean } {
  const t = typeof e.target === 'string' ? classifyTarget(e.target) : undefined;
  return {
    ...(t?.ip ? { target: `${t.ip.family}:${t.ip.value}` } : {}),
    ...(t ? { kind: t.kind } : {}),
    geo: Array.isArray(e.geoMapping) ? e.geoMapping : [],
    subnets: Array.isArray(e.subnets) && e.subnets.length > 0,
  };
}

/**
 * One deployed profile's endpoints by what can make two of them clash (see the module comment). The entry's
 * `profile.endpoints` array is the listing's own, edited in place with the index.
 */
export class ProfileIndex {
  private readonly byName = new Map<string, Endpoint>();
  private readonly priority = new Keyed<number>();
  private readonly geo = new Keyed<string>();
  private readonly target = new Keyed<string>();
  private readonly kind = new Keyed<string>();
  /** Each endpoint's subnet ranges (endpoints without subnets have none here). */
  private readonly ranges = new Map<string, IpRange[]>();
  private readonly fallbacks = new Set<string>();

  constructor(readonly entry: ProfileEntry) {
    for (const e of entry.profile.endpoints) this.index(e);
  }

  get(name: string): Endpoint | undefined {
    return this.byName.get(lower(name));
  }

  get size(): number {
    return this.byName.size;
  }

  private index(e: Endpoint): void {
    const n = lower(e.name);
    this.byName.set(n, e);
    this.priority.add(e.priority, n);
    const k = keysOf(e);
    for (const c of k.geo) this.geo.add(c, n);
    if (k.target !== undefined) this.target.add(k.target, n);
    if (k.kind !== undefined) this.kind.add(k.kind, n);
    if (k.subnets) this.ranges.set(n, rangesOf(e));
    else this.fallbacks.add(n);
  }

  private unindex(n: string): void {
    const e = this.byName.get(n);
    if (!e) return;
    this.byName.delete(n);
    this.priority.delete(e.priority, n);
    const k = keysOf(e);
    for (const c of k.geo) this.geo.delete(c, n);
    if (k.target !== undefined) this.target.delete(k.target, n);
    if (k.kind !== undefined) this.kind.delete(k.kind, n);
    this.ranges.delete(n);
    this.fallbacks.delete(n);
  }

  /** The stored endpoint `e` (created or replaced): in the index and in the listing's profile. */
  put(e: Endpoint): void {
    const n = lower(e.name);
    const list = this.entry.profile.endpoints;
    const at = this.byName.has(n) ? list.findIndex((x) => lower(x.name) === n) : -1;
    this.unindex(n);
    if (at >= 0) list[at] = e;
    else list.push(e);
    this.index(e);
  }

  remove(name: string): void {
    const n = lower(name);
    if (!this.byName.has(n)) return;
    this.unindex(n);
    const list = this.entry.profile.endpoints;
    const at = list.findIndex((x) => lower(x.name) === n);
    if (at >= 0) list.splice(at, 1);
  }

  /**
   * The stored endpoints other than `e` (and `except`, lower-cased) that the per-profile rules can pair with
   * it: the holder of its priority, of any of its geographic codes, of its target address; one endpoint per
   * target kind (a profile does not mix FQDN, IPv4 and IPv6); those whose subnets overlap its own; and the
   * fallback of a Subnet profile when it is one. In stored order. (Overlaps are a scan of the ranges: bigint
   * compares, no validation.)
   */
  relatedTo(e: EndpointInput, except: ReadonlySet<string> = EMPTY): Endpoint[] {
    const self = lower(e.name);
    const names = new Set<string>();
    const take = (s: Iterable<string>): void => {
      for (const n of s) if (n !== self && !except.has(n)) names.add(n);
    };
    if (typeof e.priority === 'number') take(this.priority.get(e.priority));
    const k = keysOf(e);
    for (const c of k.geo) take(this.geo.get(c));
    if (k.target !== undefined) take(this.target.get(k.target));
    take(this.kind.firsts());
    if (k.subnets) {
      const mine = rangesOf(e);
      for (const [n, theirs] of this.ranges) if (theirs.some((r) => mine.some((m) => overlaps(r, m)))) take([n]);
    } else if (this.entry.profile.trafficRoutingMethod === 'Subnet') take([...this.fallbacks].slice(0, 2));
    return this.entry.profile.endpoints.filter((x) => names.has(lower(x.name)));
  }
}

export class TmkitContext {
  readonly resources: StackResources;
  private listing: Promise<Map<string, ProfileEntry>> | undefined;
  private readonly indexes = new Map<string, ProfileIndex>();
  /** Endpoints being replaced under a new name or profile in this plan: new key → the old one. */
  readonly replacing = new Map<string, { profile: string; name: string }>();
  /** Profiles (lower-cased) planned in this process with inline `endpoint` blocks. */
  readonly inline = new Set<string>();
  /** Profiles (lower-cased) that separate endpoint resources planned in this process belong to → one endpoint's name. */
  readonly separate = new Map<string, string>();
  /** Settings planned in this process for profiles (lower-cased) that do not exist yet. */
  readonly plannedSettings = new Map<string, ProfileSettingsInput>();
  /** Live health read for plan warnings, once per profile per process (src/client/deploy.ts liveHealthNotes). */
  readonly liveHealth: LiveHealthCache = new Map();

  constructor(
    readonly client: TmkitClient,
    readonly stack: string,
  ) {
    this.resources = new StackResources(client, {
      stack,
      refreshHint: TERRAFORM_REFRESH,
      strayEndpointsHint: 'or import them (terraform import) to manage them with Terraform',
      profileFirstHint: 'reference its id, e.g. profile_id = tmkit_profile.x.id, so it is created before its endpoints',
    });
  }

  /** Every deployed profile (all stacks) by lower-cased name: read once per process, then kept up to date. */
  private profilesByName(): Promise<Map<string, ProfileEntry>> {
    this.listing ??= this.client.listProfiles().then((l) => new Map(l.profiles.map((p) => [lower(p.name), p])));
    return this.listing;
  }

  async find(name: string): Promise<ProfileEntry | undefined> {
    return (await this.profilesByName()).get(lower(name));
  }

  /** Every deployed profile but `name` (the context of whole-profile validation). */
  async others(name: string): Promise<Profile[]> {
    const n = lower(name);
    const out: Profile[] = [];
    for (const [k, p] of await this.profilesByName()) if (k !== n) out.push(p.profile);
    return out;
  }

  /** The index of a deployed profile, built at first use. */
  async index(name: string): Promise<ProfileIndex | undefined> {
    const n = lower(name);
    const entry = (await this.profilesByName()).get(n);
    return entry ? this.indexOf(entry) : undefined;
  }

  /**
   * A stored profile as the listing has it (undefined: it does not exist); another stack's is RESOURCE_NOT_OWNED.
   * Refreshing from the listing makes a plan's reads one request, not one per resource.
   */
  async readProfile(name: string): Promise<ProfileEntry | undefined> {
    const entry = await this.find(name);
    if (entry) this.resources.assertOwned(entry);
    return entry;
  }

  /**
   * A stored endpoint as the listing has it, with the ETag the server gives it (core's endpointEtag, the same
   * function; should the server's differ, the next write's If-Match fails, finds the content unchanged and goes
   * ahead with the server's: src/client/resources.ts). Undefined when it (or its profile) does not exist.
   */
  async readEndpoint(profile: string, name: string): Promise<EndpointState | undefined> {
    const ix = await this.index(profile);
    const e = ix?.get(name);
    if (!ix || !e) return undefined;
    this.resources.assertOwned(ix.entry);
    return {
      profile: ix.entry.profile.name,
      endpoint: e,
      etag: endpointEtag(ix.entry.profile.name, e),
      stack: ix.entry.stack,
      profileEtag: ix.entry.etag,
    };
  }

  /** Applies a write's result to the listing once it is read (in the order the writes completed). */
  private edit(fn: (m: Map<string, ProfileEntry>) => void): void {
    if (this.listing)
      this.listing = this.listing.then((m) => {
        fn(m);
        return m;
      });
  }

  /** A profile was created or written (its whole stored body is in the response). */
  wroteProfile(e: ProfileEntry): void {
    this.edit((m) => {
      m.set(lower(e.name), { name: e.profile.name, stack: e.stack, etag: e.etag, profile: e.profile });
    });
  }

  deletedProfile(name: string): void {
    this.edit((m) => {
      m.delete(lower(name));
    });
  }

  /** An endpoint was created or replaced: `r` is the stored endpoint with its profile's new ETag. */
  wroteEndpoint(r: EndpointState): void {
    this.edit((m) => {
      const entry = m.get(lower(r.profile));
      if (!entry) return;
      entry.etag = r.profileEtag;
      this.indexOf(entry).put(r.endpoint);
    });
  }

  deletedEndpoint(profile: string, name: string, profileEtag?: string): void {
    this.edit((m) => {
      const entry = m.get(lower(profile));
      if (!entry) return;
      if (profileEtag !== undefined) entry.etag = profileEtag;
      this.indexOf(entry).remove(name);
    });
  }

  private indexOf(entry: ProfileEntry): ProfileIndex {
    const n = lower(entry.name);
    let ix = this.indexes.get(n);
    if (!ix || ix.entry !== entry) this.indexes.set(n, (ix = new ProfileIndex(entry)));
    return ix;
  }

  /** A write was refused or failed: what this process knew may be stale, so the next check reads again. */
  forget(): void {
    this.listing = undefined;
    this.indexes.clear();
  }

  /** The fqdn the runtime answers at (from the status report; the relative name if it has no monitor). */
  async fqdn(name: string, relativeName: string): Promise<string> {
    try {
      return (await this.client.status(name)).fqdn;
    } catch {
      return relativeName;
    }
  }
}
