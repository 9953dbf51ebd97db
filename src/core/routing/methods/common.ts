/**
 * What a routing method returns: a choice among the profile's endpoints with exact probabilities (the
 * resolver then recurses into nested endpoints and applies the record-type table), or a negative answer.
 */
import { GEO_REGIONS, geoAncestry } from '../../data';
import type { ClientGeo, GeoLookup } from '../../ports';
import { parseIp, rangeContains, type ParsedIp } from '../ip';
import type { CompiledEndpoint, CompiledProfile } from '../snapshot';
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

  constructor(readonly address: string, private readonly lookup: GeoLookup) {}

  get ip(): ParsedIp | undefined {
    if (!this.ipDone) { this.ipValue = parseIp(this.address); this.ipDone = true; }
    return this.ipValue;
  }

  get geo(): ClientGeo | undefined {
    if (!this.geoDone) { this.geoValue = this.lookup.locate(this.address); this.geoDone = true; }
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
  return endpoint ? { profile: profile.profile.name, kind, endpoint: endpoint.endpoint.name, detail } : { profile: profile.profile.name, kind, detail };
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
