/**
 * What the tmkit resources (./profile, ./endpoints) share: refusals as diagnostics, writes, the plan-time rule
 * filters, azurerm's endpoint defaults, live-health warnings, and small value helpers.
 */
import { liveHealthNotes } from '../../../../src/client/deploy';
import { TmkitApiError } from '../../../../src/client/errors';
import { ResourceError } from '../../../../src/client/resources';
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import type { EndpointType } from '../../../../src/core/model/types';
import { UNKNOWN, type Value } from '../cty';
import type { PrivateData } from '../provider';
import { DiagnosticsError, error, warning, type AttributePath, type Diagnostic } from '../tfprotov6';
import type { TmkitContext } from './context';
import type { Obj } from './convert';

export const lower = (s: string): string => s.toLowerCase();
export const attr = (...names: Array<string | number>): AttributePath =>
  names.map((n) => (typeof n === 'number' ? { index: n } : { attribute: n }));
export const etagOf = (data: PrivateData): string | undefined =>
  typeof data.etag === 'string' && data.etag !== '' ? data.etag : undefined;

/** Sets `planned[name]` to the default when the configuration leaves it null. */
export function defaultTo(planned: Obj, config: Obj | null | undefined, name: string, value: Value): void {
  const c = config?.[name];
  if (c === null || c === undefined) planned[name] = value;
}

/** ResourceErrors and API refusals as diagnostics (at `at` when given), anything else rethrown. */
export function refusal(err: unknown, at?: AttributePath): never {
  if (err instanceof ResourceError)
    throw new DiagnosticsError(error(err.reason, `${err.hint[0]!.toUpperCase()}${err.hint.slice(1)}. (${err.code})`, at));
  if (err instanceof TmkitApiError && err.errors.length > 0) {
    throw new DiagnosticsError(
      ...err.errors.map((d) =>
        error(
          d.message,
          [d.hint, `(${d.code}${d.path ? ` at ${d.path}` : ''}; the runtime refused the write)`].filter(Boolean).join(' '),
          at,
        ),
      ),
    );
  }
  throw err;
}

/** A write: its refusals as diagnostics (see refusal); after one, the next plan check reads the runtime again. */
export async function writing<T>(ctx: TmkitContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    ctx.forget();
    return refusal(err);
  }
}

/** The rule's diagnostics that a plan reports: errors, and the warnings `keep` accepts. */
export const reported = (diags: readonly CoreDiagnostic[], keep: (d: CoreDiagnostic) => boolean = () => true): CoreDiagnostic[] =>
  diags.filter((d) => (d.severity === 'error' ? !LATER.has(d.code) : keep(d)));

/** Codes whose check needs objects that may be created later in the same run (the server checks them). */
export const LATER = new Set(['NESTED_TARGET_NOT_FOUND']);

/** Refused at plan time: one profile with both inline endpoint blocks and separate endpoint resources. */
export const MIXED_HINT =
  "Declare the profile's endpoints either as `endpoint` blocks inside its tmkit_profile (the " +
  'profile owns them all, one write for the profile) or as tmkit_*_endpoint resources, not both. ' +
  '(RESOURCE_MIXED)';

/** An endpoint's defaults (azurerm's), planned exactly; `type` is the endpoint's kind when known. */
export function planEndpointDefaults(out: Obj, config: Obj | null | undefined, type: EndpointType | undefined): void {
  defaultTo(out, config, 'weight', 1);
  defaultTo(out, config, 'enabled', true);
  if (type !== 'nestedEndpoints') defaultTo(out, config, 'always_serve_enabled', type === undefined ? UNKNOWN : false);
  if (type === 'nestedEndpoints' || type === undefined) defaultTo(out, config, 'minimum_child_endpoints', type === undefined ? UNKNOWN : 1);
}

/**
 * Plans that see live health (docs/plan.md): for a change to a deployed profile, the profile's health now and
 * a warning when the change leaves it with no endpoint Online, as warnings (`terraform plan` shows them; a
 * server that cannot say adds none). Read only for real changes, so a plan with nothing to do costs nothing.
 */
export async function liveWarnings(ctx: TmkitContext, name: string, planned: Parameters<typeof liveHealthNotes>[2]): Promise<Diagnostic[]> {
  return (await liveHealthNotes(ctx.client, name, planned, ctx.liveHealth)).map((l) => warning(l));
}

/** A deep copy of a value that keeps Unknown (and other class) instances as they are. */
function cloneValue(v: Value): Value {
  if (Array.isArray(v)) return v.map(cloneValue);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v as Obj)) out[k] = cloneValue(x);
    return out;
  }
  return v;
}
export const clone = (o: Obj): Obj => cloneValue(o) as Obj;
