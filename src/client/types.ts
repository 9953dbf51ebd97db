import type { Profile } from '../core/model/types';
import type { AzureResource } from '../core/ports';
import type { AnswerRecord, ExplanationStep, RoutingOutcome, RoutingRcode } from '../core/routing/types';
import type { EndpointMonitorStatus, ProfileMonitorStatus } from '../core/health/types';

/** One entry of the API's error shape `{"errors":[...]}`; validation entries carry path, severity, hint. */
export interface ApiErrorEntry {
  code: string;
  message: string;
  path?: string;
  hint?: string;
  severity?: 'error' | 'warning';
}

export interface ProfileEntry {
  name: string;
  stack: string;
  etag: string;
  profile: Profile;
}

export interface ProfileList {
  revision: number;
  profiles: ProfileEntry[];
}

/** Response of PUT /v1/profiles/{name} and PATCH .../endpoints/{endpoint}. */
export interface WriteResult {
  name: string;
  stack: string;
  etag: string;
  revision: number;
  created: boolean;
  /** False when the stored profile was already identical (nothing written). */
  changed: boolean;
  /** The stored, normalized profile. */
  profile: Profile;
  /** Warning diagnostics (errors never get here: the write is refused). */
  warnings: ApiErrorEntry[];
}

export interface DeleteResult { name: string; deleted: true; revision: number }

/** A probe result as the status endpoint reports it. */
export interface ProbeResultReport {
  /** ISO time the probe finished. */
  at: string;
  ok: boolean;
  /** e.g. `HTTP 200`, `timeout`, `ECONNREFUSED`. */
  detail?: string;
  latencyMs?: number;
}

export interface StatusTransitionReport {
  at: string;
  endpoint: string;
  from: string;
  to: string;
  reason?: string;
}

export interface EndpointStatusReport {
  name: string;
  type: string;
  endpointStatus: string;
  endpointMonitorStatus: EndpointMonitorStatus;
  /** What probing says (Online / Degraded / CheckingEndpoint) when the endpoint is probed. */
  verdict?: string;
  target?: string;
  lastProbes: ProbeResultReport[];
}

/** GET /v1/profiles/{name}/status. */
export interface ProfileStatusReport {
  name: string;
  stack: string;
  etag: string;
  fqdn: string;
  profileStatus: string;
  profileMonitorStatus: ProfileMonitorStatus;
  endpoints: EndpointStatusReport[];
  transitions: StatusTransitionReport[];
}

export interface ResolveQuery {
  name: string;
  /** Default `A`. */
  type?: string;
  /** Default `127.0.0.1`. */
  clientIp?: string;
}

/** POST /v1/resolve: one sampled answer (what a DNS client would get now) and every possible outcome. */
export interface ResolveResult {
  query: { name: string; type: string; clientIp: string };
  rcode: RoutingRcode;
  records: AnswerRecord[];
  profile?: string;
  endpoints: string[];
  outcomes: RoutingOutcome[];
  explanation: ExplanationStep[];
  revision: number;
}

export interface ResourceCatalogResponse {
  revision: number;
  resources: Record<string, AzureResource>;
}
