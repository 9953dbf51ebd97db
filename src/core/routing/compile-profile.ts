/**
 * Compiling profiles: each profile's endpoints (compile-endpoint.ts), then the profile-level facts that
 * need all of them (which endpoints are usable under the all-degraded fallback, the profile monitor
 * status) and every routing method's index, each built by its method module. Nested children are
 * compiled first, on demand, once per build.
 */
import { isAvailable, isDown, isEligible, profileMonitorStatus } from '../health/status';
import type { HealthView } from '../health/types';
import { profileFqdn } from '../model/names';
import type { Profile } from '../model/types';
import type { ResourceCatalog } from '../ports';
import { profileFacts, type ProfileFacts, type Reuse } from './changes';
import { compileEndpoint, stripDot, type ChildLookup, type EndpointEnv, type EndpointInputs, type PreEndpoint } from './compile-endpoint';
import type { BuildInputs, CompiledEndpoint, CompiledProfile, SnapshotInput } from './compiled';

export type { BuildInputs } from './compiled';
import { geographicIndex } from './methods/geographic';
import { performanceIndex } from './methods/performance';
import { priorityIndex } from './methods/priority';
import { subnetIndex } from './methods/subnet';

/** A snapshot input as the build reads it: the zone canonical, defaults filled in, profiles indexed. */

const NO_HEALTH: HealthView = { verdict: () => undefined };
const NO_RESOURCES: ResourceCatalog = new Map();

/** Reads a snapshot input once: canonical zone, defaults for health and resources, profiles by name. */
export function buildInputs(input: SnapshotInput): BuildInputs {
  const profiles = new Map<string, Profile>();
  for (const p of input.profiles) profiles.set(p.name, p);
  const byLowerName = new Map<string, Profile>();
  // Two names equal but for case (validation forbids it): the one first in name order, whatever the listing order.
  for (const p of profiles.values()) {
    const held = byLowerName.get(p.name.toLowerCase());
    if (held === undefined || p.name < held.name) byLowerName.set(p.name.toLowerCase(), p);
  }
  return {
    zone: stripDot(input.zone.trim()).toLowerCase(),
    health: input.health ?? NO_HEALTH,
    resources: input.resources ?? NO_RESOURCES,
    geo: input.geo,
    profiles,
    byLowerName,
  };
}

/**
 * A profile from its compiled endpoints: usable endpoints (available, or Degraded while every eligible
 * endpoint is Degraded), the monitor status and the method indexes. AwaitingFailback counts as Degraded; an
 * endpoint an operator took out (a `down` override) is not eligible at all, so the fallback never brings it
 * back (core/health/status.ts).
 */
export function assembleProfile(p: Profile, fqdn: string, pre: readonly PreEndpoint[]): CompiledProfile {
  const eligible = pre.filter((e) => isEligible(e.status) && !e.override?.down);
  const allDegraded = eligible.length > 0 && eligible.every((e) => isDown(e.status));
  const endpoints: CompiledEndpoint[] = pre.map((e) => ({
    ...e,
    usable: isAvailable(e.status) || (allDegraded && isDown(e.status) && !e.override?.down),
  }));
  const enabled = endpoints.filter((e) => e.endpoint.endpointStatus !== 'Disabled');
  return {
    profile: p,
    fqdn,
    status: profileMonitorStatus(
      p.profileStatus,
      endpoints.map((e) => e.status),
    ),
    endpoints,
    allDisabled: enabled.length === 0,
    allDegraded,
    ...priorityIndex(endpoints),
    ...subnetIndex(endpoints, enabled),
    ...geographicIndex(enabled),
    ...performanceIndex(enabled),
    cache: new Map(),
    topCache: new Map(),
  };
}

/**
 * Compiles the profiles of one build, each once: `compile(p)` returns the compiled form, compiling the
 * children it nests first. Profiles given in `reuse` are taken as they are (its maps become this
 * compiler's).
 */
export class ProfileCompiler {
  /** Compiled profiles by lower-cased name: the reused ones first, then in compile order. */
  readonly compiled: Map<string, CompiledProfile>;
  /** What the change detector remembers about each compiled profile. */
  readonly facts: Map<string, ProfileFacts>;
  /** A nesting loop was met: the result depends on which profile of the loop was compiled first. */
  loop = false;
  private readonly inProgress = new Set<string>();
  private readonly env: EndpointEnv;

  constructor(
    private readonly inputs: BuildInputs,
    reuse?: Reuse,
  ) {
    this.compiled = reuse?.compiled ?? new Map();
    this.facts = reuse?.facts ?? new Map();
    this.env = { health: inputs.health, resources: inputs.resources, child: (name) => this.child(name) };
  }

  compile(p: Profile): CompiledProfile {
    const key = p.name.toLowerCase();
    const done = this.compiled.get(key);
    if (done) return done;
    this.inProgress.add(key);
    const eps = Array.isArray(p.endpoints) ? p.endpoints : [];
    const read: EndpointInputs = { verdicts: [], overrides: [] };
    const pre = eps.map((e, index) => compileEndpoint(p, e, index, this.env, read));
    this.inProgress.delete(key);
    this.facts.set(key, profileFacts(p, read));
    const cp = assembleProfile(p, profileFqdn(p.dnsConfig?.relativeName ?? p.name, this.inputs.zone), pre);
    this.compiled.set(key, cp);
    return cp;
  }

  private child(name: string): ChildLookup {
    const child = this.inputs.byLowerName.get(name.toLowerCase());
    if (!child) return { kind: 'missing' };
    if (this.inProgress.has(child.name.toLowerCase())) {
      this.loop = true;
      return { kind: 'loop', child };
    }
    return { kind: 'compiled', child: this.compile(child) };
  }
}
