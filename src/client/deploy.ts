/**
 * The deploy module: planning a document against a runtime and executing a plan through the management API
 * (ETags, ordering, progress events, stale-plan refusal). One module for `tmkit apply`, `serve --apply`, the
 * benchmarks and the Pulumi and Terraform providers, so it never prints, reads files or exits: problems
 * come back as diagnostics or `TmkitError`s, progress as events.
 */
import { TmkitError, type Diagnostic } from '../core/diagnostics';
import { toResourceCatalog } from '../core/model/catalog';
import { API_VERSION, type Document, type Profile } from '../core/model/types';
import { documentSource } from '../core/model/input';
import { count } from '../core/words';
import {
  applyOrder,
  buildReport,
  checkPlanBase,
  desiredDocument,
  diff,
  documentStack,
  liveHealth,
  planScope,
  previewPlan,
  type DeployedProfile,
  type LiveHealthInput,
  type Plan,
  type PlanReport,
  type PlanStep,
} from '../core/plan';
import { liveHealthLines } from '../core/plan/render/common';
import type { GeoLookup, ResourceCatalog } from '../core/ports';
import type { ProfileEntry } from '../core/api';
import type { TmkitClient } from './client';

/** What is deployed on a runtime: every profile (all stacks) and the resource catalog. */
export interface DeployedState {
  deployed: DeployedProfile[];
  resources?: ResourceCatalog;
  /** Where it came from (the server URL, or a file for offline plans). */
  source: string;
  /** The server's health now (statuses and overrides of the profiles read), for the plan's "Live health". */
  live?: LiveHealthInput;
}

/** Reads the deployed profiles and the resource catalog from the server. */
export async function readDeployed(client: TmkitClient): Promise<DeployedState> {
  return deployedState(client, (await client.listProfiles()).profiles);
}

const deployedOf = (e: ProfileEntry): DeployedProfile => ({ profile: e.profile, etag: e.etag, stack: e.stack });

/** The state of `entries` read from the server, with its resource catalog and live health. */
async function deployedState(client: TmkitClient, entries: readonly ProfileEntry[]): Promise<DeployedState> {
  let resources: ResourceCatalog | undefined;
  try {
    resources = toResourceCatalog((await client.getResources()).resources);
  } catch {
    /* an older server without a catalog: Azure endpoints need inline targets */
  }
  const live = await readLiveHealth(client, entries);
  return { deployed: entries.map(deployedOf), ...(resources ? { resources } : {}), ...(live ? { live } : {}), source: client.server };
}

/** Live health is read for at most this many profiles (one status call each, 8 at a time). */
const LIVE_READ_MAX = 200;

/**
 * The status of every profile read and the overrides in force (docs/plan.md "Live health"); undefined from a
 * server without the traffic operations (an older one) or when nothing could be read.
 */
async function readLiveHealth(client: TmkitClient, entries: readonly ProfileEntry[]): Promise<LiveHealthInput | undefined> {
  const names = entries.map((e) => e.name).sort();
  const read = names.slice(0, LIVE_READ_MAX);
  try {
    const overrides = (await client.listOverrides()).overrides;
    const statuses: LiveHealthInput['statuses'] = [];
    for (let i = 0; i < read.length; i += SCOPED_READ_CONCURRENCY) {
      const got = await Promise.all(read.slice(i, i + SCOPED_READ_CONCURRENCY).map((n) => client.status(n).catch(() => undefined)));
      for (const s of got) if (s) statuses.push(s);
    }
    return {
      at: new Date().toISOString(),
      statuses,
      overrides,
      ...(names.length > read.length
        ? { unread: `${names.length - read.length} of ${names.length} profiles (live health is read for at most ${LIVE_READ_MAX})` }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Live health for a provider's preview (Pulumi's preview, Terraform's plan): what the server says now about
 * deployed profile `name`, changed into `planned(deployed)`, as lines for warnings — the plan's "Live health" rows of that
 * profile (endpoints Degraded, Stopped, AwaitingFailback or overridden, and for how long; the all-degraded
 * fallback), then the warning when the change leaves it with no endpoint Online now. Empty when the profile
 * is not deployed yet, nothing is notable, or the server cannot say (an older one, unreachable): a preview
 * never fails on live health.
 */
export async function liveHealthNotes(
  client: TmkitClient,
  name: string,
  planned: (deployed: Profile) => Profile,
  cache?: LiveHealthCache,
): Promise<string[]> {
  try {
    let read = cache?.get(name);
    if (!read) {
      read = (async () => {
        const entry = await client.findProfile(name);
        const live = entry ? await readLiveHealth(client, [entry]) : undefined;
        return entry && live ? { entry, live } : undefined;
      })();
      cache?.set(name, read);
    }
    const got = await read;
    if (!got) return [];
    const deployed = [deployedOf(got.entry)];
    const plan = diff({ apiVersion: API_VERSION, stack: got.entry.stack, profiles: [planned(got.entry.profile)] }, deployed);
    const { report, warnings } = liveHealth(plan, deployed, got.live);
    const notable = report.endpoints.length > 0 || report.fallback.length > 0;
    return [
      ...(notable ? liveHealthLines(report).map((l) => `live health now: ${l}`) : []),
      ...warnings.map((w) => `${w.message}; ${w.hint ?? ''}`.replace(/; $/, '')),
    ];
  } catch {
    return [];
  }
}

/**
 * What liveHealthNotes read, by profile name, for one provider process (one plan or preview): a change to 1,000
 * endpoints of a profile reads its health once, and every resource is judged against the same moment.
 */
export type LiveHealthCache = Map<string, Promise<{ entry: ProfileEntry; live: LiveHealthInput } | undefined>>;

/** A scope larger than this is read with one full listing instead of profile by profile. */
const SCOPED_READ_MAX = 200;
/** Profile reads in flight at once while reading a scope. */
const SCOPED_READ_CONCURRENCY = 8;
/** Scoped reads that meet a concurrent write (an ETag that moved) are retried this often, then all is read. */
const SCOPED_READ_ATTEMPTS = 3;

/**
 * The deployed state a plan of the raw document `raw` needs (core/plan/scope.ts): every profile's summary,
 * then in full only the profiles in the plan's scope — its stack's (one listing), and the others it can touch
 * one by one. Planning one profile against 10,000 reads a summary and a row, not every body. The plan is the
 * one a full read gives (the scope property test). A server without the summary view, a scope of more than
 * 200 profiles, or writes that keep moving the ETags under the read fall back to readDeployed.
 */
export async function readDeployedFor(client: TmkitClient, raw: unknown): Promise<DeployedState> {
  for (let attempt = 0; attempt < SCOPED_READ_ATTEMPTS; attempt++) {
    const summary = await client.listProfileSummaries();
    if (summary.full) return deployedState(client, summary.full.profiles);
    const scope = planScope(raw, summary.profiles);
    if (scope.length > SCOPED_READ_MAX) break;
    const etags = new Map(summary.profiles.map((s) => [s.name, s] as const));
    const stack = documentStack(documentSource(raw).input);
    const own = summary.profiles.some((s) => s.stack === stack) ? (await client.listProfiles({ stack })).profiles : [];
    const have = new Set(own.map((e) => e.name));
    const rest = scope.filter((n) => !have.has(n));
    const others: ProfileEntry[] = [];
    for (let i = 0; i < rest.length; i += SCOPED_READ_CONCURRENCY) {
      const got = await Promise.all(rest.slice(i, i + SCOPED_READ_CONCURRENCY).map((n) => client.findProfile(n)));
      for (const e of got) if (e) others.push(e);
    }
    const entries = [...own, ...others];
    // A write between the summary and the reads moved an ETag (or added/removed a profile): read again.
    const consistent =
      entries.length === scope.length && entries.every((e) => etags.get(e.name)?.etag === e.etag && scope.includes(e.name));
    if (!consistent) continue;
    return deployedState(client, entries);
  }
  return readDeployed(client);
}

export interface ReportOptions {
  /** With a geo lookup the report carries the routing preview (who gets which endpoint, before and after). */
  geo?: GeoLookup;
  clients?: Array<{ label: string; address: string }>;
  maxFailoverSeconds?: number;
  warnings?: Diagnostic[];
}

/** The plan of `desired` against `state`, with failover times, lints and (given a geo lookup) the preview. */
export function planReport(desired: Document, state: Omit<DeployedState, 'source'>, opts: ReportOptions = {}): PlanReport {
  const plan = diff(desired, state.deployed);
  const preview = opts.geo
    ? previewPlan(plan, state.deployed, opts.geo, {
        ...(state.resources ? { resources: state.resources } : {}),
        ...(opts.clients ? { clients: opts.clients } : {}),
      })
    : undefined;
  return buildReport(plan, state.deployed, {
    ...(preview ? { preview } : {}),
    ...(state.live ? { live: state.live } : {}),
    ...(state.resources ? { resources: state.resources } : {}),
    ...(opts.warnings ? { warnings: opts.warnings } : {}),
    ...(opts.maxFailoverSeconds !== undefined ? { maxFailoverSeconds: opts.maxFailoverSeconds } : {}),
  });
}

/** `planDocument`'s result: the report, or every diagnostic of an input that cannot be planned. */
export type DocumentPlan =
  | { ok: true; report: PlanReport; state: DeployedState }
  | { ok: false; diagnostics: Diagnostic[]; profileNames: string[]; state: DeployedState };

/**
 * Plans a document (tmkit/v1, or Azure's JSON for profiles) against what `state` (default: the server's)
 * holds, scoped to the document's stack: profiles of that stack missing from the document are destroyed.
 */
export async function planDocument(
  client: TmkitClient,
  raw: unknown,
  opts: ReportOptions & { state?: DeployedState } = {},
): Promise<DocumentPlan> {
  const state = opts.state ?? (await readDeployedFor(client, raw));
  const desired = desiredDocument(raw, state.deployed);
  if (!desired.document) return { ok: false, diagnostics: desired.diagnostics, profileNames: desired.profileNames, state };
  const warnings = [...(opts.warnings ?? []), ...desired.diagnostics.filter((d) => d.severity === 'warning')];
  return { ok: true, report: planReport(desired.document, state, { ...opts, warnings }), state };
}

/** One step's outcome while a plan is applied. */
export interface StepOutcome {
  index: number;
  total: number;
  step: PlanStep;
  ok: boolean;
  /** New ETag after a PUT. */
  etag?: string;
  error?: string;
  /** The error the server (or the connection) gave, for callers that inspect codes. */
  cause?: unknown;
}

export interface ApplyResult {
  applied: StepOutcome[];
  /** The step that failed (nothing after it was attempted). */
  failed?: StepOutcome;
  notApplied: PlanStep[];
}

/** Thrown before anything is written: the plan has errors, or the server changed since it was made. */
export class PlanRefusedError extends TmkitError {
  constructor(
    message: string,
    readonly issues: Diagnostic[],
  ) {
    super('PLAN_REFUSED', message, issues);
  }
}

/**
 * Applies a plan through the management API: refuses a plan with errors; refuses a stale one (checkPlanBase
 * against `GET /v1/profiles?view=summary`: someone deployed in between) before writing anything; then runs
 * applyOrder(plan) one call at a time with the plan's preconditions (`If-Match` with the base ETag,
 * `If-None-Match: *` for creates), reporting each step to `onStep`, and stops at the first failure. The
 * result says exactly which steps were applied and which were not.
 */
export async function executePlan(
  client: TmkitClient,
  plan: Plan,
  onStep?: (o: StepOutcome) => void | Promise<void>,
): Promise<ApplyResult> {
  if (plan.errors.length > 0) {
    throw new PlanRefusedError(
      `the plan has ${count(plan.errors.length, 'error')} and cannot be applied: ${plan.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      plan.errors,
    );
  }
  // Names, stacks and ETags are all the check reads: the summary view, not every profile's body.
  const list = await client.listProfileSummaries();
  const base = list.full
    ? list.full.profiles.map(deployedOf)
    : list.profiles.map((e) => ({ profile: { name: e.name } as Profile, etag: e.etag, stack: e.stack }));
  const stale = checkPlanBase(plan, base);
  if (stale.length > 0) {
    throw new PlanRefusedError(
      `the plan is stale, nothing was applied: ${stale.map((i) => i.message).join('; ')}. ${stale[0]!.hint}`,
      stale,
    );
  }
  const steps = applyOrder(plan);
  const applied: StepOutcome[] = [];
  for (let i = 0; i < steps.length; i++) {
    const { body, ...step } = steps[i]!;
    const base = { index: i + 1, total: steps.length, step };
    let outcome: StepOutcome;
    try {
      if (step.method === 'PUT') {
        const r = await client.putProfile(body!, {
          stack: plan.stack,
          ...(step.ifMatch !== undefined ? { ifMatch: step.ifMatch } : {}),
          ...(step.ifNoneMatch !== undefined ? { ifNoneMatch: step.ifNoneMatch } : {}),
        });
        outcome = { ...base, ok: true, etag: r.etag };
      } else {
        await client.deleteProfile(step.profile, { stack: plan.stack, ...(step.ifMatch !== undefined ? { ifMatch: step.ifMatch } : {}) });
        outcome = { ...base, ok: true };
      }
    } catch (err) {
      const failed: StepOutcome = { ...base, ok: false, error: (err as Error).message, cause: err };
      await onStep?.(failed);
      return { applied, failed, notApplied: steps.slice(i + 1).map(({ body: _b, ...s }) => s) };
    }
    applied.push(outcome);
    await onStep?.(outcome);
  }
  return { applied, notApplied: [] };
}
