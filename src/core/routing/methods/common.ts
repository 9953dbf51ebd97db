/**
 * What a routing method returns: a choice among the profile's endpoints with exact probabilities (the
 * resolver then recurses into nested endpoints and applies the record-type table), or a negative answer.
 */
import { FNV_OFFSET, FNV_PRIME, fmix32, fnvString } from '../../hash32';
import { GEO_REGIONS, geoAncestry } from '../../data';
import type { LatencyView } from '../../health/latency';
import type { ClientGeo, GeoLookup } from '../../ports';
import { bitsOf, networkAddress, parseIp } from '../../net/ip';
import { rangeContains, ROUTING_IP_SYNTAX, type ParsedIp } from '../ip';
import type { CompiledEndpoint, CompiledProfile } from '../compiled';
import type { ExplanationStep } from '../types';

/** The query type as the engine distinguishes it (every other type behaves alike). */
export type QueryClass = 'A' | 'AAAA' | 'CNAME' | 'ANY' | 'OTHER';

export interface Option {
  /** One endpoint, or (MultiValue) the set answered together. */
  endpoints: readonly CompiledEndpoint[];
  probability: number;
  step: ExplanationStep;
  /** MultiValue: the endpoints are already filtered by query type and answered together. */
  multi?: boolean;
}

export type Selection =
  | { kind: 'pick'; options: Option[]; steps: ExplanationStep[] }
  | { kind: 'nodata' | 'nxdomain'; steps: ExplanationStep[] };

/** The client address and what the geo database says about it, looked up at most once per query. */
export class ClientContext {
  private ipDone = false;
  private ipValue: ParsedIp | undefined;
  private geoDone = false;
  private geoValue: ClientGeo | undefined;
  private chainValue: string[] | undefined;
  private chainTextValue: string | undefined;
  private hashDone = false;
  private hashValue = 0;

  /**
   * @param ecsSourcePrefix the query's ECS source prefix: the client is the whole subnet (`address` masked
   *   to it) when it is > 0.
   * @param population the query stands for every client routed like `address` (the routing preview's region
   *   and range classes), not for one client: an even split over clients is reported as such (1/n each)
   *   instead of the one endpoint this client's hash picks.
   * @param latency what the probing locations measured (the snapshot's), for Measured Performance profiles.
   */
  constructor(
    readonly address: string,
    private readonly lookup: GeoLookup,
    readonly ecsSourcePrefix?: number,
    readonly population = false,
    readonly latency?: LatencyView,
  ) {}

  /** The client as one routing identity: the address, or its ECS subnet (`198.51.100.0/24`). */
  get identity(): string {
    const p = this.ecsSourcePrefix;
    return p !== undefined && p > 0 ? `${this.address}/${p}` : this.address;
  }

  /**
   * FNV-1a state (not finalized) over the client identity: the parsed address masked to the ECS source
   * prefix (so every host of one ECS subnet is the same client, and `::ffff:192.0.2.1` is `192.0.2.1`), or
   * the text when it is not an address. Computed once per query, only when a method needs it.
   */
  get hashState(): number {
    if (this.hashDone) return this.hashValue;
    let h = FNV_OFFSET;
    const ip = this.ip;
    if (!ip) {
      h = fnvString(h, this.address);
    } else {
      const bits = bitsOf(ip.family);
      const p = this.ecsSourcePrefix;
      const v = p !== undefined && p > 0 && p < bits ? networkAddress(ip.value, ip.family, p) : ip.value;
      h = fnvWord(h, ip.family);
      if (ip.family === 4) h = fnvWord(h, Number(v));
      else for (let shift = 96n; shift >= 0n; shift -= 32n) h = fnvWord(h, Number((v >> shift) & 0xffffffffn));
    }
    this.hashValue = h;
    this.hashDone = true;
    return h;
  }

  get ip(): ParsedIp | undefined {
    if (!this.ipDone) {
      this.ipValue = parseIp(this.address, ROUTING_IP_SYNTAX);
      this.ipDone = true;
    }
    return this.ipValue;
  }

  get geo(): ClientGeo | undefined {
    if (!this.geoDone) {
      this.geoValue = this.lookup.locate(this.address);
      this.geoDone = true;
    }
    return this.geoValue;
  }

  latencyMs(region: string): number | undefined {
    return this.lookup.latencyMs(this.address, this.geo, region);
  }

  /**
   * Geographic codes for the client, most specific first: state/province (where the hierarchy has one),
   * country/region, regional grouping, WORLD. Just WORLD when the location is unknown.
   */
  get geoChain(): string[] {
    if (this.chainValue) return this.chainValue;
    const g = this.geo;
    const sub = g?.subdivision?.toUpperCase();
    const country = g?.country?.toUpperCase();
    const code = sub !== undefined && GEO_REGIONS.has(sub) ? sub : country !== undefined && GEO_REGIONS.has(country) ? country : undefined;
    this.chainValue = code === undefined ? ['WORLD'] : geoAncestry(code);
    return this.chainValue;
  }

  /** `US-CA → US → GEO-NA → WORLD`, for explanations. */
  get geoChainText(): string {
    if (this.chainTextValue === undefined) this.chainTextValue = this.geoChain.join(' → ');
    return this.chainTextValue;
  }
}

export function step(profile: CompiledProfile, kind: string, detail: string, endpoint?: CompiledEndpoint): ExplanationStep {
  return endpoint
    ? { profile: profile.profile.name, kind, endpoint: endpoint.endpoint.name, detail }
    : { profile: profile.profile.name, kind, detail };
}

/** Why an endpoint is not answerable now. */
export function unavailable(e: CompiledEndpoint): string {
  return `${e.status} (${e.statusReason}): not available`;
}

export function pct(p: number): string {
  return `${Math.round(p * 10000) / 100}%`;
}

/** The first endpoint (declaration order) one of whose ranges contains the client address. */
export function subnetMatch(list: readonly CompiledEndpoint[], client: ClientContext): CompiledEndpoint | undefined {
  if (list.length === 0) return undefined;
  const ip = client.ip;
  if (!ip) return undefined;
  for (const e of list) for (const r of e.subnets) if (rangeContains(r, ip)) return e;
  return undefined;
}

export function single(e: CompiledEndpoint, s: ExplanationStep, steps: ExplanationStep[]): Selection {
  return { kind: 'pick', options: [{ endpoints: [e], probability: 1, step: s }], steps };
}

// ---------------------------------------------------------------------------------------------------
// Choosing by client: a stable, cheap hash instead of a random draw

/** FNV-1a over the 4 bytes of a 32-bit word (little end first). */
function fnvWord(h: number, w: number): number {
  h = Math.imul(h ^ (w & 0xff), FNV_PRIME);
  h = Math.imul(h ^ ((w >>> 8) & 0xff), FNV_PRIME);
  h = Math.imul(h ^ ((w >>> 16) & 0xff), FNV_PRIME);
  return Math.imul(h ^ (w >>> 24), FNV_PRIME);
}

/**
 * Which of `list` (n ≥ 1 endpoints that split their clients evenly) answers this client: rendezvous
 * (highest random weight) hashing. Each endpoint scores hash(client identity, profile name, endpoint name)
 * and the highest score wins (ties, 2^-32 likely, go to the first). So:
 *
 * - every endpoint gets 1/n of the clients (the hash is uniform over clients);
 * - the same client gets the same endpoint for as long as the list is the same, and keeps it when another
 *   endpoint leaves or joins the list (only the leaving endpoint's clients move, spread evenly);
 * - different profiles split the same clients independently (the profile name is hashed in).
 */
export function clientChoice(list: readonly CompiledEndpoint[], profileName: string, client: ClientContext): number {
  if (list.length <= 1) return 0;
  const base = fnvString(Math.imul(client.hashState ^ 0xff, FNV_PRIME), profileName);
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < list.length; i++) {
    const score = fmix32(fnvString(Math.imul(base ^ 0xff, FNV_PRIME), list[i]!.endpoint.name));
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}
