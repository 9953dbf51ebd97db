/**
 * Traffic operations on the running server (docs/operations.md): overrides made, listed and cleared with the
 * safety rule, manual failback, the audit log, drill reports and where each node answers DNS. The API's ops
 * routes (api/operations.ts) call `OperationsPort`; the writes go to the store's operations (core/store/operations.ts), whose
 * watch brings them to the health ledger (ledger/operations-feed.ts) on every node. A write answers once this
 * node's DNS serves it (the pipeline settled), so `dig` right after `tmkit override down` sees it.
 *
 * Also this node's readiness (`GET /readyz`, `tmkit node drain`): DNS listening, the served snapshot fresh,
 * not drained by hand. The drain is kept in memory on purpose: a restarted node comes back into rotation by
 * itself (as a Kubernetes readiness probe does), so a drain forgotten before a restart never keeps a healthy
 * node out of an anycast set for good.
 */
import { randomBytes } from 'node:crypto';
import type { Registry } from 'prom-client';
import { Counter, Gauge } from 'prom-client';
import type {
  AuditEntry,
  AuditList,
  DrillList,
  DrillReport,
  FailbackResult,
  NodeDrain,
  NodeList,
  NodeReadiness,
  OverrideDeleteResult,
  OverrideList,
  OverrideRecord,
  OverrideResult,
  ShiftLease,
  ShiftList,
  ShiftResult,
} from '../core/api';
import type { Diagnostic } from '../core/diagnostics';
import type { HealthView } from '../core/health/types';
import { checkDownOverride, checkSafety, type SafetyResult } from '../core/operations/safety';
import type { Profile } from '../core/model/types';
import { checkOverrideRequest, overrideKey } from '../core/operations/overrides';
import { SHIFT_LEASE_MS, checkShiftRequest, shiftHeldMessage, shiftLapsed } from '../core/operations/shifts';
import type { GeoLookup } from '../core/ports';
import type { OperationsStore, StoredProfile } from '../core/store';
import { isoNow, type RuntimeClock } from './clock';
import type { LiveEvents } from './events';
import type { ClusterNode } from './cluster';
import type { DnsTarget } from './dns';
import type { HealthLedger, PushedHealthApi } from './ledger';
import type { OperationsFeed } from './ledger/operations-feed';
import type { SnapshotPipeline } from './pipeline';

/** A refusal the API answers with its status and code (api/operations.ts turns it into the error body). */
export interface OperationsRefusal {
  refused: { status: number; code: string; message: string; errors?: Diagnostic[] };
}
export type OperationsResult<T> = T | OperationsRefusal;
export const isRefusal = <T>(r: OperationsResult<T>): r is OperationsRefusal => typeof r === 'object' && r !== null && 'refused' in r;
const refuse = (status: number, code: string, message: string, errors?: Diagnostic[]): OperationsRefusal => ({
  refused: { status, code, message, ...(errors ? { errors } : {}) },
});

/** What the API's ops routes (api/operations.ts) ask of the runtime. */
export interface OperationsPort {
  createOverride(body: unknown, profile: (name: string) => Promise<StoredProfile | undefined>): Promise<OperationsResult<OverrideResult>>;
  listOverrides(): OverrideList;
  clearOverride(id: string, who: string, reason?: string): Promise<OperationsResult<OverrideDeleteResult>>;
  failback(profile: StoredProfile, endpoint: string, who: string, reason?: string): Promise<OperationsResult<FailbackResult>>;
  audit(limit: number): Promise<AuditList>;
  putDrill(report: DrillReport): Promise<DrillReport>;
  drills(limit: number): Promise<DrillList>;
  nodes(): NodeList;
  /** Waits until DNS serves every change made so far (the safety rule then reads what it answers). */
  settle(): Promise<void>;
  /**
   * The safety rule for an edit of `after`'s endpoint `endpoint` (`endpoint disable`, any endpoint PATCH):
   * judged by what routing answers now and with `after` stored. `verb` names the change in the refusal.
   */
  checkEdit(after: Profile, endpoint: string, verb: string): SafetyResult;
  /** The holds of running shifts (`GET /v1/shifts`): one `tmkit shift` per endpoint at a time. */
  listShifts(): Promise<ShiftList>;
  /** Takes the hold of an endpoint for a shift (409 SHIFT_HELD naming the holder when another shift has it). */
  startShift(body: unknown, profile: (name: string) => Promise<StoredProfile | undefined>): Promise<OperationsResult<ShiftResult>>;
  /** The shift renews its hold (409 SHIFT_CANCELLED once cancelled, 409 SHIFT_LOST when it no longer holds it). */
  renewShift(id: string, step?: number, weight?: number): Promise<OperationsResult<ShiftResult>>;
  /** The shift ends its hold (done, rolled back, or interrupted). */
  endShift(id: string, who: string, reason?: string): Promise<OperationsResult<ShiftResult>>;
  /** Anyone cancels a running shift: it rolls back when it next renews, then ends. */
  cancelShift(id: string, who: string, reason?: string): Promise<OperationsResult<ShiftResult>>;
  /** This node's readiness (`/readyz`): DNS listening, the snapshot fresh, not drained. */
  readiness(): Promise<NodeReadiness>;
  /** Takes this node out of rotation (`/readyz` 503) until `undrain` or a restart; DNS keeps answering. */
  drain(who: string, reason?: string): Promise<NodeReadiness>;
  undrain(who: string, reason?: string): Promise<NodeReadiness>;
}

export interface OperationsOptions {
  operations: OperationsStore;
  feed: OperationsFeed;
  pipeline: SnapshotPipeline;
  ledger: HealthLedger;
  events: LiveEvents;
  clock: RuntimeClock;
  geo: GeoLookup;
  zone: string;
  /** Cluster mode: the registered nodes (`GET /v1/nodes` lists them all). */
  cluster?: ClusterNode;
  /** DNS, for readiness: ready only while it listens (and, with workers, one of them is alive). */
  dns?: Pick<DnsTarget, 'addresses' | 'workers'>;
}

/** Where this node serves, once DNS and the API listen (`Operations.serving`). */
export interface ServingAddresses {
  /** DNS listen addresses as `host:port` (IPv6 in brackets). */
  dns: string[];
  /** The API as `host:port`. */
  api?: string;
}

export class Operations implements OperationsPort {
  /** Health pushed from outside for the API: each write answers once DNS serves its effect (docs/health.md). */
  readonly pushedHealth: PushedHealthApi;
  private own: ServingAddresses = { dns: [] };
  /** Set by `tmkit node drain`; in memory only (see the top of this file). */
  private drained: NodeDrain | undefined;

  constructor(private readonly deps: OperationsOptions) {
    const pushed = deps.ledger.pushed;
    this.pushedHealth = {
      push: async (key, status, ttl, reason) => {
        const r = await pushed.push(key, status, ttl, reason);
        await deps.pipeline.settle();
        return r;
      },
      clear: async (key) => {
        const had = await pushed.clear(key);
        await deps.pipeline.settle();
        return had;
      },
      report: (key) => pushed.report(key),
    };
  }

  /** Where this node's DNS and API listen (told once, when they do): what `nodes()` lists for it. */
  serving(own: ServingAddresses): void {
    this.own = own;
  }

  private now(): number {
    return this.deps.clock.now();
  }

  /** What routing reads now: the served verdicts and overrides. */
  private health(): HealthView {
    const verdicts = this.deps.ledger.verdicts();
    const overrides = this.deps.ledger.overrides();
    return { verdict: (p, e) => verdicts.get(`${p}/${e}`), override: (p, e) => overrides.get(`${p}/${e}`) };
  }

  async createOverride(
    body: unknown,
    find: (name: string) => Promise<StoredProfile | undefined>,
  ): Promise<OperationsResult<OverrideResult>> {
    const checked = checkOverrideRequest(body);
    if (!checked.ok) return refuse(400, 'BAD_REQUEST', checked.errors.map((e) => e.message).join('; '), checked.errors);
    const req = checked.value;
    const stored = await find(req.profile);
    if (!stored) return refuse(404, 'NOT_FOUND', `profile '${req.profile}' does not exist`);
    const p = stored.profile;
    const e =
      p.endpoints.find((x) => x.name === req.endpoint) ?? p.endpoints.find((x) => x.name.toLowerCase() === req.endpoint.toLowerCase());
    if (!e)
      return refuse(
        404,
        'NOT_FOUND',
        `profile '${p.name}' has no endpoint '${req.endpoint}' (it has ${p.endpoints.map((x) => `'${x.name}'`).join(', ') || 'none'})`,
      );
    if (req.kind === 'weight' && p.trafficRoutingMethod !== 'Weighted') {
      return refuse(
        400,
        'BAD_REQUEST',
        `profile '${p.name}' uses ${p.trafficRoutingMethod} routing, which does not use weights: a ` +
          `weight override would change nothing (take the endpoint out with a down override instead)`,
      );
    }
    const key = `${p.name}/${e.name}`;
    const at = this.now();
    if (req.shift !== undefined) {
      // A shift's step: only while that shift holds the endpoint, so a shift that lost it never writes over the next one's.
      const held = (await this.deps.operations.getShift(p.name, e.name)).lease;
      if (held?.id !== req.shift || shiftLapsed(held, at))
        return refuse(
          409,
          'SHIFT_LOST',
          `shift ${req.shift} no longer holds ${key}` +
            (held && held.id !== req.shift && !shiftLapsed(held, at) ? `: ${shiftHeldMessage(held)}` : ' (its hold lapsed or ended)'),
        );
    }
    if (req.kind === 'down' && !req.force) {
      await this.deps.pipeline.settle();
      const safety = checkDownOverride({
        profiles: this.deps.pipeline.profiles(),
        health: this.health(),
        resources: this.deps.pipeline.catalog(),
        geo: this.deps.geo,
        zone: this.deps.zone,
        profile: p.name,
        endpoint: e.name,
      });
      if (!safety.ok) {
        await this.deps.operations
          .appendAudit({
            at: new Date(at).toISOString(),
            who: req.who,
            action: 'override.refuse',
            target: key,
            ...(req.reason ? { reason: req.reason } : {}),
            details: { kind: 'down', message: safety.message },
          })
          .catch(() => undefined);
        return refuse(409, 'OVERRIDE_UNSAFE', safety.message);
      }
    }
    const override: OverrideRecord = {
      id: `ov-${randomBytes(5).toString('hex')}`,
      kind: req.kind,
      profile: p.name,
      endpoint: e.name,
      ...(req.weight !== undefined ? { weight: req.weight } : {}),
      reason: req.reason,
      who: req.who,
      createdAt: new Date(at).toISOString(),
      expiresAt: new Date(at + req.durationMs).toISOString(),
      ...(req.drill !== undefined ? { drill: req.drill } : {}),
    };
    // One override per endpoint and kind: a new one replaces the one in force.
    const replaces = this.deps.feed
      .active()
      .filter((x) => x.kind === req.kind && overrideKey(x) === key)
      .map((x) => x.id);
    const audit: AuditEntry = {
      at: override.createdAt,
      who: req.who,
      action: 'override.create',
      target: key,
      ...(req.reason ? { reason: req.reason } : {}),
      details: {
        id: override.id,
        kind: req.kind,
        ...(req.weight !== undefined ? { weight: req.weight } : {}),
        expiresAt: override.expiresAt,
        ...(req.force ? { forced: true } : {}),
        ...(replaces.length > 0 ? { replaces } : {}),
      },
    };
    await this.deps.operations.putOverride(override, audit, replaces);
    await this.deps.pipeline.settle();
    return { override, replaced: replaces };
  }

  listOverrides(): OverrideList {
    return { overrides: this.deps.feed.active() };
  }

  async clearOverride(id: string, who: string, reason?: string): Promise<OperationsResult<OverrideDeleteResult>> {
    const held = this.deps.feed.active().find((x) => x.id === id);
    if (!held) return refuse(404, 'NOT_FOUND', `no override '${id}' is in force (list them with tmkit override list)`);
    const audit: AuditEntry = {
      at: isoNow(this.deps.clock),
      who,
      action: 'override.clear',
      target: overrideKey(held),
      ...(reason ? { reason } : {}),
      details: { id, kind: held.kind },
    };
    const gone = await this.deps.operations.deleteOverride(id, audit);
    if (!gone) return refuse(404, 'NOT_FOUND', `override '${id}' was cleared or expired meanwhile`);
    await this.deps.pipeline.settle();
    return { id, deleted: true, override: held };
  }

  async failback(stored: StoredProfile, endpoint: string, who: string, reason?: string): Promise<OperationsResult<FailbackResult>> {
    const p = stored.profile;
    const e = p.endpoints.find((x) => x.name === endpoint) ?? p.endpoints.find((x) => x.name.toLowerCase() === endpoint.toLowerCase());
    if (!e) return refuse(404, 'NOT_FOUND', `profile '${p.name}' has no endpoint '${endpoint}'`);
    if (p.failback?.mode !== 'Manual') {
      return refuse(
        409,
        'NOT_AWAITING_FAILBACK',
        `profile '${p.name}' fails back automatically (failback mode ` +
          `${p.failback?.mode ?? "Automatic, Azure's"}): there is nothing to approve; set "failback": ` +
          `{"mode": "Manual"} to fail back by hand`,
      );
    }
    await this.deps.pipeline.settle();
    const status = this.deps.pipeline
      .snapshot()
      .compiled.get(p.name.toLowerCase())
      ?.endpoints.find((x) => x.endpoint.name === e.name)?.status;
    if (status !== 'AwaitingFailback' && status !== 'Degraded') {
      return refuse(
        409,
        'NOT_AWAITING_FAILBACK',
        `endpoint ${p.name}/${e.name} is ${status ?? 'unknown'}, not AwaitingFailback (or Degraded): there is nothing to fail back`,
      );
    }
    const approvedAt = isoNow(this.deps.clock);
    await this.deps.operations.putFailback(
      { profile: p.name, endpoint: e.name, approvedAt, who, ...(reason ? { reason } : {}) },
      { at: approvedAt, who, action: 'failback', target: `${p.name}/${e.name}`, ...(reason ? { reason } : {}), details: { status } },
    );
    await this.deps.pipeline.settle();
    return { profile: p.name, endpoint: e.name, approvedAt, status, who };
  }

  async audit(limit: number): Promise<AuditList> {
    return { entries: await this.deps.operations.listAudit(limit) };
  }

  async putDrill(report: DrillReport): Promise<DrillReport> {
    await this.deps.operations.putDrill(report);
    if (report.status !== 'running') {
      await this.deps.operations.appendAudit({
        at: report.finishedAt ?? isoNow(this.deps.clock),
        who: report.who,
        action: 'drill',
        target: `${report.profile}/${report.endpoint}`,
        ...(report.reason ? { reason: report.reason } : {}),
        details: {
          id: report.id,
          status: report.status,
          switchSeconds: report.switchSeconds,
          revertSeconds: report.revertSeconds,
          boundSeconds: report.boundSeconds,
        },
      });
    }
    this.deps.events.publish('drill', { action: report.status === 'running' ? 'started' : 'finished', drill: report });
    return report;
  }

  async drills(limit: number): Promise<DrillList> {
    return { drills: await this.deps.operations.listDrills(limit) };
  }

  async settle(): Promise<void> {
    await this.deps.pipeline.settle();
  }

  checkEdit(after: Profile, endpoint: string, verb: string): SafetyResult {
    return checkSafety(
      {
        profiles: this.deps.pipeline.profiles(),
        health: this.health(),
        resources: this.deps.pipeline.catalog(),
        geo: this.deps.geo,
        zone: this.deps.zone,
        profile: after.name,
        endpoint,
      },
      { kind: 'edit', after, verb },
    );
  }

  /** Where every node answers DNS (`GET /v1/nodes`, for drills): this one, or every registered node of the cluster. */
  nodes(): NodeList {
    const { own } = this;
    const cluster = this.deps.cluster;
    if (!cluster) return { nodes: [{ node: 'this server', dns: own.dns, ...(own.api !== undefined ? { api: own.api } : {}), self: true }] };
    const self = cluster.health.node;
    return {
      nodes: cluster.health.nodes().map((n) => ({
        node: n.node,
        location: n.location,
        dns: n.node === self ? own.dns : (n.dns ?? []),
        ...(n.api ? { api: n.api } : {}),
        self: n.node === self,
      })),
    };
  }

  async listShifts(): Promise<ShiftList> {
    const now = this.now();
    return { shifts: (await this.deps.operations.listShifts()).filter((l) => !shiftLapsed(l, now)) };
  }

  async startShift(body: unknown, find: (name: string) => Promise<StoredProfile | undefined>): Promise<OperationsResult<ShiftResult>> {
    const checked = checkShiftRequest(body);
    if (!checked.ok) return refuse(400, 'BAD_REQUEST', checked.errors.map((e) => e.message).join('; '), checked.errors);
    const req = checked.value;
    const stored = await find(req.profile);
    if (!stored) return refuse(404, 'NOT_FOUND', `profile '${req.profile}' does not exist`);
    const p = stored.profile;
    const e =
      p.endpoints.find((x) => x.name === req.endpoint) ?? p.endpoints.find((x) => x.name.toLowerCase() === req.endpoint.toLowerCase());
    if (!e)
      return refuse(
        404,
        'NOT_FOUND',
        `profile '${p.name}' has no endpoint '${req.endpoint}' (it has ${p.endpoints.map((x) => `'${x.name}'`).join(', ') || 'none'})`,
      );
    const at = this.now();
    const slot = await this.deps.operations.getShift(p.name, e.name);
    const target = `${p.name}/${e.name}`;
    if (slot.lease && !shiftLapsed(slot.lease, at)) {
      const message = shiftHeldMessage(slot.lease);
      await this.deps.operations
        .appendAudit({
          at: new Date(at).toISOString(),
          who: req.who,
          action: 'shift.refuse',
          target,
          ...(req.reason ? { reason: req.reason } : {}),
          details: { weights: req.weights, heldBy: slot.lease.who, shift: slot.lease.id },
        })
        .catch(() => undefined);
      return refuse(409, 'SHIFT_HELD', message);
    }
    const lease: ShiftLease = {
      id: `sh-${randomBytes(5).toString('hex')}`,
      profile: p.name,
      endpoint: e.name,
      who: req.who,
      ...(req.reason ? { reason: req.reason } : {}),
      weights: req.weights,
      everySeconds: req.everySeconds,
      startedAt: new Date(at).toISOString(),
      renewedAt: new Date(at).toISOString(),
      expiresAt: new Date(at + SHIFT_LEASE_MS).toISOString(),
    };
    const audit: AuditEntry = {
      at: lease.startedAt,
      who: req.who,
      action: 'shift.start',
      target,
      ...(req.reason ? { reason: req.reason } : {}),
      details: {
        shift: lease.id,
        weights: req.weights,
        everySeconds: req.everySeconds,
        ...(slot.lease ? { lapsed: { shift: slot.lease.id, who: slot.lease.who } } : {}),
      },
    };
    if (!(await this.deps.operations.swapShift(p.name, e.name, slot.rev, lease, audit))) {
      // Another shift took it between the read and the write: it is the holder now.
      const now = await this.deps.operations.getShift(p.name, e.name);
      return refuse(409, 'SHIFT_HELD', now.lease ? shiftHeldMessage(now.lease) : `another shift of ${target} started at the same moment`);
    }
    return { shift: lease };
  }

  /** The stored hold with this id, and its slot's revision; undefined when no hold has it. */
  private async shiftById(id: string): Promise<{ lease: ShiftLease; rev: number } | undefined> {
    const lease = (await this.deps.operations.listShifts()).find((l) => l.id === id);
    if (!lease) return undefined;
    const slot = await this.deps.operations.getShift(lease.profile, lease.endpoint);
    return slot.lease?.id === id ? { lease: slot.lease, rev: slot.rev } : undefined;
  }

  async renewShift(id: string, step?: number, weight?: number): Promise<OperationsResult<ShiftResult>> {
    const held = await this.shiftById(id);
    if (!held) return refuse(409, 'SHIFT_LOST', `shift ${id} holds no endpoint: its hold ended, or lapsed and another shift took it`);
    const at = this.now();
    const { lease } = held;
    if (lease.cancelled) {
      const c = lease.cancelled;
      return refuse(409, 'SHIFT_CANCELLED', `cancelled by ${c.who}${c.reason ? ` (${c.reason})` : ''}`);
    }
    const next: ShiftLease = {
      ...lease,
      renewedAt: new Date(at).toISOString(),
      expiresAt: new Date(at + SHIFT_LEASE_MS).toISOString(),
      ...(step !== undefined ? { step } : {}),
      ...(weight !== undefined ? { weight } : {}),
    };
    if (!(await this.deps.operations.swapShift(lease.profile, lease.endpoint, held.rev, next))) return this.renewShift(id, step, weight); // cancelled or ended meanwhile: say which
    return { shift: next };
  }

  async endShift(id: string, who: string, reason?: string): Promise<OperationsResult<ShiftResult>> {
    const held = await this.shiftById(id);
    if (!held) return refuse(404, 'NOT_FOUND', `no shift '${id}' holds an endpoint (it ended, or lapsed and another shift took it)`);
    const { lease } = held;
    const audit: AuditEntry = {
      at: isoNow(this.deps.clock),
      who,
      action: 'shift.end',
      target: `${lease.profile}/${lease.endpoint}`,
      ...(reason ? { reason } : {}),
      details: { shift: id, weights: lease.weights, ...(lease.step !== undefined ? { step: lease.step, weight: lease.weight } : {}) },
    };
    if (!(await this.deps.operations.swapShift(lease.profile, lease.endpoint, held.rev, undefined, audit)))
      return this.endShift(id, who, reason);
    return { shift: lease };
  }

  async cancelShift(id: string, who: string, reason?: string): Promise<OperationsResult<ShiftResult>> {
    const held = await this.shiftById(id);
    const at = this.now();
    if (!held || shiftLapsed(held.lease, at)) return refuse(404, 'NOT_FOUND', `no shift '${id}' is running`);
    const { lease } = held;
    if (lease.cancelled) return { shift: lease };
    const next: ShiftLease = { ...lease, cancelled: { who, at: new Date(at).toISOString(), ...(reason ? { reason } : {}) } };
    const audit: AuditEntry = {
      at: new Date(at).toISOString(),
      who,
      action: 'shift.cancel',
      target: `${lease.profile}/${lease.endpoint}`,
      ...(reason ? { reason } : {}),
      details: { shift: id, heldBy: lease.who },
    };
    if (!(await this.deps.operations.swapShift(lease.profile, lease.endpoint, held.rev, next, audit)))
      return this.cancelShift(id, who, reason);
    return { shift: next };
  }

  async readiness(): Promise<NodeReadiness> {
    const reasons: string[] = [];
    const d = this.drained;
    if (d) reasons.push(`draining (tmkit node drain at ${d.at} by ${d.who}${d.reason ? `: ${d.reason}` : ''})`);
    const dns = this.deps.dns;
    if (dns) {
      const workers = dns.workers?.();
      if (dns.addresses().length === 0 || (workers !== undefined && !workers.some((w) => w.live))) reasons.push('DNS is not listening');
    }
    // The pipeline's lag under the limit /healthz uses; etcd being unreachable is not a reason (DNS still answers).
    const lag = await this.deps.pipeline.lag();
    if (lag.degraded) reasons.push(`snapshot lags the store by ${lag.lagRevisions} revisions for ${lag.lagSeconds.toFixed(1)} s`);
    if (reasons.length === 0) return { state: 'ready', ready: true };
    return {
      state: reasons.length === 1 && d ? 'draining' : 'not ready',
      ready: false,
      reason: reasons.join('; '),
      ...(d ? { drain: { ...d } } : {}),
    };
  }

  async drain(who: string, reason?: string): Promise<NodeReadiness> {
    const at = isoNow(this.deps.clock);
    this.drained = { at, who, ...(reason ? { reason } : {}) };
    await this.nodeChange('drained', at, who, reason);
    return this.readiness();
  }

  async undrain(who: string, reason?: string): Promise<NodeReadiness> {
    const was = this.drained;
    this.drained = undefined;
    if (was) await this.nodeChange('undrained', isoNow(this.deps.clock), who, reason);
    return this.readiness();
  }

  /** The audit entry (best effort: a drain works while the store cannot be written) and the `node` live event. */
  private async nodeChange(action: 'drained' | 'undrained', at: string, who: string, reason?: string): Promise<void> {
    const node = this.deps.cluster?.health.node ?? 'this server';
    const written = this.deps.operations
      .appendAudit({ at, who, action: action === 'drained' ? 'node.drain' : 'node.undrain', target: node, ...(reason ? { reason } : {}) })
      .catch(() => undefined);
    // A store that cannot be reached (etcd down) must not hold the drain up: wait for the entry at most 2 s.
    let timer: unknown;
    await Promise.race([written, new Promise<void>((r) => (timer = this.deps.clock.setTimeout(r, 2_000)))]);
    this.deps.clock.clearTimeout(timer);
    this.deps.events.publish('node', { action, at, who, ...(reason ? { reason } : {}) });
  }

  /** `tmkit_overrides_active{profile,endpoint,kind}` and `tmkit_override_events_total{action,kind}` on /metrics. */
  attachMetrics(registry: Registry): () => void {
    const feed = this.deps.feed;
    new Gauge({
      name: 'tmkit_overrides_active',
      help: 'Overrides in force (docs/operations.md), by endpoint and kind',
      labelNames: ['profile', 'endpoint', 'kind'],
      registers: [registry],
      collect() {
        this.reset();
        for (const o of feed.active()) this.inc({ profile: o.profile, endpoint: o.endpoint, kind: o.kind });
      },
    });
    const events = new Counter({
      name: 'tmkit_override_events_total',
      help: 'Overrides created, cleared and expired, as this node saw them',
      labelNames: ['action', 'kind'],
      registers: [registry],
    });
    return feed.onEvent((e) => events.inc({ action: e.action, kind: e.override.kind }));
  }
}
