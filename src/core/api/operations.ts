/**
 * Traffic operations (docs/operations.md): overrides, failback, drills, the audit log. Runtime operations,
 * never configuration: they live beside the profiles in the store, not in them.
 */
import type { EndpointMonitorStatus } from '../health/types';

/** `down`: the endpoint is out of DNS (Always Serve too); `weight`: Weighted routing uses this weight. */
export type OverrideKind = 'down' | 'weight';

/** One override as the server keeps it (`GET /v1/overrides`). Every one expires by itself. */
export interface OverrideRecord {
  id: string;
  kind: OverrideKind;
  profile: string;
  endpoint: string;
  /** `weight` overrides: 1–1000. */
  weight?: number;
  reason: string;
  /** Who made it: the name the caller gave (the CLI's `--who`, default the OS user; `dashboard`), else `api`. */
  who: string;
  /** ISO times. */
  createdAt: string;
  expiresAt: string;
  /** The drill that made it (`tmkit drill`). */
  drill?: string;
}

/** `POST /v1/overrides`. */
export interface OverrideRequest {
  kind: OverrideKind;
  profile: string;
  endpoint: string;
  weight?: number;
  /** How long: a duration (`90s`, `30m`, `2h`, `1d`, `1h30m`) or a number of seconds; at most 7 days. */
  for: string | number;
  reason?: string;
  who?: string;
  /** Skip the safety rule (a `down` override that leaves a profile with no endpoint able to serve). */
  force?: boolean;
  drill?: string;
  /** The shift (`POST /v1/shifts`) whose step this is: 409 SHIFT_LOST unless it holds the endpoint. */
  shift?: string;
}

/** Response of `POST /v1/overrides` (201). `replaced`: ids of the same kind on the same endpoint it ended. */
export interface OverrideResult {
  override: OverrideRecord;
  replaced: string[];
}

export interface OverrideList {
  overrides: OverrideRecord[];
}

/** `DELETE /v1/overrides/{id}`. */
export interface OverrideDeleteResult {
  id: string;
  deleted: true;
  override: OverrideRecord;
}

/** `POST /v1/profiles/{name}/endpoints/{endpoint}/failback` (failback mode Manual). */
export interface FailbackResult {
  profile: string;
  endpoint: string;
  /** ISO time of the approval: it releases every outage of the endpoint that began before it. */
  approvedAt: string;
  /** The endpoint's monitor status before (AwaitingFailback, or Degraded: released once it recovers). */
  status: EndpointMonitorStatus;
  who: string;
}

/** One line of the audit log (`GET /v1/audit`): who did what, when and why. Newest first. */
export interface AuditEntry {
  at: string;
  who: string;
  /**
   * `override.create`, `override.clear`, `override.expire`, `override.refuse`, `failback`, `drill`, `shift.start`,
   * `shift.refuse`, `shift.cancel`, `shift.end`, `node.drain`, `node.undrain`; `profile.create|update|delete`,
   * `endpoint.create|update|delete|disable|enable`, `resources.replace`, `health.push` (a change of the pushed
   * status only), `health.clear`, `webhook.add|remove`, `dnssec.rollover|finish`, `cookies.rotate`,
   * `probe-failure.inject|clear`
   * (docs/operations.md#audit-log). Those of configuration carry `details.changes`: what changed, old → new.
   */
  action: string;
  /** A profile, `profile/endpoint`, a node (`node.drain`), a webhook id, the key kind (`dnssec.rollover`). */
  target: string;
  reason?: string;
  details?: Record<string, unknown>;
}

export interface AuditList {
  entries: AuditEntry[];
}

/** What one DNS server (a node) did during a drill. */
export interface DrillNodeReport {
  /** `ADDR:PORT` of the node's DNS. */
  dns: string;
  node?: string;
  switchSeconds?: number;
  revertSeconds?: number;
  /** Every answer during the hold named another endpoint (not NODATA/NXDOMAIN, never the drilled one). */
  answeredDuringHold: boolean;
  /** What it answered during the hold (distinct record sets). */
  heldAnswers: string[];
}

/**
 * `PUT /v1/profiles/{name}/endpoints/{endpoint}/probe-failure`: a detection drill (`tmkit drill --mode detection`)
 * makes this server's prober fail every probe of the endpoint until `forSeconds` pass or it is cleared. Nothing
 * is sent to the endpoint meanwhile; each failure goes through the real path (interval, tolerated failures,
 * verdict, DNS).
 */
export interface ProbeFailureRequest {
  /** 1 s to 7 days. */
  forSeconds: number;
  reason?: string;
  /** The drill that asks for it. */
  drill?: string;
  who?: string;
}

export interface ProbeFailureReport {
  profile: string;
  endpoint: string;
  /** ISO times: in force from `since` until `until` (or a DELETE). */
  since: string;
  until: string;
  /** What each failed probe says (`probe failure injected by drill dr-…`). */
  reason: string;
  who: string;
  drill?: string;
}

/** How a drill takes the endpoint out: a `down` override (DNS only), or failed probes (detection and DNS). */
export type DrillMode = 'override' | 'detection';

/** `tmkit drill`'s report (`POST /v1/drills` keeps it, `GET /v1/drills` lists them). */
export interface DrillReport {
  id: string;
  profile: string;
  endpoint: string;
  who: string;
  reason?: string;
  /** Absent in reports from before detection drills: `override`. */
  mode?: DrillMode;
  status: 'running' | 'passed' | 'failed' | 'aborted';
  startedAt: string;
  finishedAt?: string;
  holdSeconds: number;
  /**
   * From the override stored (detection: the probe failure injected) until every node's DNS stopped naming the
   * endpoint (authoritative answers).
   */
  switchSeconds?: number;
  /** From the override cleared (detection: the injection cleared) until every node's DNS named it again. */
  revertSeconds?: number;
  /**
   * The pass mark, in seconds: what a client behind a resolver may wait at most. Override: the profile's
   * worst-case failover as `tmkit plan` computes it (detection + TTL). Detection: the drilled endpoint's own
   * profile's interval × (tolerated + 1) + timeout + TTL. Null: nothing in the profile tree is probed.
   */
  boundSeconds: number | null;
  /** The bound's formula with its numbers (`10 × (0 + 1) + 5 + TTL 0 = 15 s`). */
  bound: string;
  /**
   * Detection drills: the pass mark of the way back, the probes that find it healthy again (one interval, or the failback rule)
   * + its timeout + TTL. Override drills hold the revert to `boundSeconds`.
   */
  revertBoundSeconds?: number | null;
  revertBound?: string;
  /**
   * Switch and revert are measured at the authoritative servers and resolvers may keep the old answer for the
   * TTL: the drill passes when switch + TTL ≤ boundSeconds and revert + TTL ≤ the revert's bound.
   */
  ttl: number;
  passed: boolean;
  nodes: DrillNodeReport[];
  overrideId?: string;
  notes: string[];
}

export interface DrillList {
  drills: DrillReport[];
}

/** `GET /v1/nodes`: where each node answers (a single server is one node), for drills that query every one. */
export interface NodeList {
  nodes: Array<{ node: string; location?: string; dns: string[]; api?: string; self: boolean }>;
}
