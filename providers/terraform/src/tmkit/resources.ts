/**
 * The tmkit resources and data source as ./provider handlers: thin, over src/client (StackResources for
 * the writes, core's validator for the checks), with what this process knows of the runtime in ./context.
 * What each handler adds to the router:
 *
 * - validate: the shared per-resource rules of core/validate on what is known (unknown values are skipped).
 * - plan: azurerm's defaults planned exactly (so apply stores what the plan shows); dns_config.relative_name
 *   forces a replace; and the cross-object rules that one resource cannot see alone, checked against the
 *   runtime's current profiles: unique priority, overlapping subnets, one endpoint per geo region,
 *   MinChildEndpoints, relativeName taken, a name that exists already (import it) or belongs to another
 *   stack. Rule warnings (WEIGHT_IGNORED, …) are warnings at their attribute. The server checks everything
 *   again on apply. An endpoint is checked with the endpoints the profile's index pairs it with, not the
 *   whole profile (./context). Refresh reads come from the process's listing (./context).
 * - create/update/delete: one profile's settings (PATCH, endpoints untouched) or one endpoint (PUT/DELETE with
 *   its ETag, kept in Terraform's private state), with the provider's stack; state built from what the runtime
 *   stored. A profile with inline `endpoint` blocks owns its endpoints: one PUT of the whole profile (If-Match
 *   its ETag), and it cannot also have endpoint resources. A create whose object exists already with the
 *   planned content, in this stack, adopts it (src/client/resources.ts), so a create whose answer was lost
 *   converges; other content is RESOURCE_EXISTS at plan time.
 */
import type { ProfileEntry } from '../../../../src/client';
import { liveHealthNotes } from '../../../../src/client/deploy';
import { ResourceError, normalizeEndpoint, normalizeSettings, profileSettings, type PriorProfile } from '../../../../src/client/resources';
import { TmkitApiError } from '../../../../src/client/errors';
import { endpointId, idEndpointType, parseEndpointRef, parseProfileRef, profileId, TERRAFORM_IDS } from '../../../../src/client/ids';
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import { normalizeProfile } from '../../../../src/core/model/normalize';
import { ENDPOINT_TYPES, type Endpoint, type EndpointInput, type EndpointType, type ProfileInput } from '../../../../src/core/model/types';
import { diffAttributes } from '../../../../src/core/plan/attributes';
import { validateProfile } from '../../../../src/core/validate';
import { isUnknown, UNKNOWN, type Value, type ValueObject } from '../cty';
import { WithPrivate, type DataSource, type PlanInput, type PlanOutput, type PrivateData, type Resource } from '../provider';
import { DiagnosticsError, error, warning, type AttributePath, type Diagnostic } from '../tfprotov6';
import { TmkitContext } from './context';
import {
  blockType, endpointBlocks, endpointFromTf, endpointState, first, inlineEndpointsState, num, profileFromTf, profileSettingsFromTf, profileState, tfDiagnostics, type Obj,
} from './convert';
import { azureEndpointSchema, externalEndpointSchema, nestedEndpointSchema, profileSchema, profileStatusSchema } from './schemas';

export { TmkitContext, TERRAFORM_REFRESH } from './context';

/** Settings Terraform does not model: kept as stored, never compared or removed. */
const UNMANAGED = ['allowedEndpointRecordTypes'];

const lower = (s: string): string => s.toLowerCase();
const attr = (...names: Array<string | number>): AttributePath => names.map((n) => (typeof n === 'number' ? { index: n } : { attribute: n }));
const etagOf = (data: PrivateData): string | undefined => (typeof data.etag === 'string' && data.etag !== '' ? data.etag : undefined);

/** Sets `planned[name]` to the default when the configuration leaves it null. */
function defaultTo(planned: Obj, config: Obj | null | undefined, name: string, value: Value): void {
  const c = config?.[name];
  if (c === null || c === undefined) planned[name] = value;
}

/** ResourceErrors and API refusals as diagnostics (at `at` when given), anything else rethrown. */
function refusal(err: unknown, at?: AttributePath): never {
  if (err instanceof ResourceError) throw new DiagnosticsError(error(err.reason, `${err.hint[0]!.toUpperCase()}${err.hint.slice(1)}. (${err.code})`, at));
  if (err instanceof TmkitApiError && err.errors.length > 0) {
    throw new DiagnosticsError(...err.errors.map((d) => error(d.message, [d.hint, `(${d.code}${d.path ? ` at ${d.path}` : ''}; the runtime refused the write)`].filter(Boolean).join(' '), at)));
  }
  throw err;
}

/** A write: its refusals as diagnostics (see refusal); after one, the next plan check reads the runtime again. */
async function writing<T>(ctx: TmkitContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    ctx.forget();
    return refusal(err);
  }
}

/** The rule's diagnostics that a plan reports: errors, and the warnings `keep` accepts. */
const reported = (diags: readonly CoreDiagnostic[], keep: (d: CoreDiagnostic) => boolean = () => true): CoreDiagnostic[] =>
  diags.filter((d) => d.severity === 'error' ? !LATER.has(d.code) : keep(d));

/** Codes whose check needs objects that may be created later in the same run (the server checks them). */
const LATER = new Set(['NESTED_TARGET_NOT_FOUND']);

/** Refused at plan time: one profile with both inline endpoint blocks and separate endpoint resources. */
const MIXED_HINT = 'Declare the profile\'s endpoints either as `endpoint` blocks inside its tmkit_profile (the profile owns them all, one write for the profile) or as tmkit_*_endpoint resources, not both. (RESOURCE_MIXED)';

// ------------------------------------------------------------------------------------------- profile

/** What Terraform last saw of a settings-only profile (its state): its settings, no endpoints. */
const priorSettings = (state: Obj): PriorProfile => ({ profile: { ...profileSettingsFromTf(state).value, endpoints: [] } });

/** True when this tmkit_profile owns its endpoints: it has inline `endpoint` blocks now or had them before. */
const ownsInline = (o: Obj | null | undefined): boolean => endpointBlocks(o).length > 0;

function planProfileDefaults(planned: Obj, config: Obj | null): void {
  defaultTo(planned, config, 'profile_status', 'Enabled');
  defaultTo(planned, config, 'traffic_view_enabled', false);
  const method = planned.traffic_routing_method;
  defaultTo(planned, config, 'max_return', isUnknown(method) ? UNKNOWN : method === 'MultiValue' ? 2 : null);
  const dns = first(planned.dns_config);
  if (dns) defaultTo(dns, first(config?.dns_config), 'ttl', 30);
  const mon = first(planned.monitor_config);
  if (mon) {
    const c = first(config?.monitor_config);
    defaultTo(mon, c, 'protocol', 'HTTP');
    const protocol = mon.protocol;
    defaultTo(mon, c, 'port', isUnknown(protocol) ? UNKNOWN : protocol === 'HTTPS' ? 443 : 80);
    defaultTo(mon, c, 'path', isUnknown(protocol) ? UNKNOWN : protocol === 'TCP' ? null : '/');
    defaultTo(mon, c, 'interval_in_seconds', 30);
    const interval = mon.interval_in_seconds;
    defaultTo(mon, c, 'timeout_in_seconds', isUnknown(interval) ? UNKNOWN : num(interval) === 10 ? 9 : 10);
    defaultTo(mon, c, 'tolerated_number_of_failures', 3);
  }
  const fb = first(planned.failback);
  if (fb) {
    const c = first(config?.failback);
    defaultTo(fb, c, 'mode', 'Automatic');
    defaultTo(fb, c, 'successes_to_recover', 1);
    defaultTo(fb, c, 'hold_down_seconds', 0);
  }
}

/** An endpoint's defaults (azurerm's), planned exactly; `type` is the endpoint's kind when known. */
function planEndpointDefaults(out: Obj, config: Obj | null | undefined, type: EndpointType | undefined): void {
  defaultTo(out, config, 'weight', 1);
  defaultTo(out, config, 'enabled', true);
  if (type !== 'nestedEndpoints') defaultTo(out, config, 'always_serve_enabled', type === undefined ? UNKNOWN : false);
  if (type === 'nestedEndpoints' || type === undefined) defaultTo(out, config, 'minimum_child_endpoints', type === undefined ? UNKNOWN : 1);
}

/**
 * The planned inline endpoint blocks: type, weight, enabled, always_serve_enabled and minimum_child_endpoints
 * default as on the endpoint resources; a priority none of the blocks gives is the block's position (what
 * the runtime derives); a location the configuration leaves out is the stored one of that name (Terraform
 * matches list blocks by position, not by name), unknown for a new Azure endpoint, else none.
 */
function planInlineEndpoints(out: Obj, config: Obj | null, prior: Obj | null): void {
  const planned = endpointBlocks(out);
  const configured = endpointBlocks(config);
  const before = new Map(endpointBlocks(prior).filter((b) => typeof b.name === 'string').map((b) => [lower(String(b.name)), b]));
  const derive = configured.every((c) => c.priority === null || c.priority === undefined);
  planned.forEach((b, i) => {
    const c = configured[i];
    defaultTo(b, c, 'type', 'ExternalEndpoints');
    const type = isUnknown(b.type) ? undefined : blockType(b);
    planEndpointDefaults(b, c, type);
    // The other kinds' attribute, left out, is none (not a default): what the state reads back.
    if (type === 'nestedEndpoints') defaultTo(b, c, 'always_serve_enabled', null);
    else if (type !== undefined) defaultTo(b, c, 'minimum_child_endpoints', null);
    if (derive) b.priority = i + 1;
    const old = typeof b.name === 'string' ? before.get(lower(b.name)) : undefined;
    if (c?.endpoint_location === null || c?.endpoint_location === undefined) {
      b.endpoint_location = old && typeof old.endpoint_location === 'string' && blockType(old) === type ? old.endpoint_location : type === 'azureEndpoints' || type === undefined ? UNKNOWN : null;
    }
  });
}

/**
 * Rule diagnostics about a profile with inline endpoints: the profile's at its attributes, each endpoint's at
 * its `endpoint` block (found by name).
 */
function inlineDiagnostics(diags: readonly CoreDiagnostic[], name: string, blocks: readonly Obj[], unknown: readonly string[]): Diagnostic[] {
  const prefix = `profiles[${name}]`;
  const out = tfDiagnostics(diags.filter((d) => !d.path.startsWith(`${prefix}.endpoints[`)), { prefix, kind: 'profile', unknown: [...unknown] });
  blocks.forEach((b, i) => {
    if (typeof b.name !== 'string') return;
    const at = `${prefix}.endpoints[${b.name}]`;
    const rel = `endpoints[${b.name}].`;
    const own = diags.filter((d) => d.path === at || d.path.startsWith(`${at}.`) || d.path.startsWith(`${at}[`));
    const mine = unknown.filter((u) => u.startsWith(rel)).map((u) => u.slice(rel.length));
    for (const d of tfDiagnostics(own, { prefix: at, kind: 'endpoint', unknown: mine, subject: `endpoint "${b.name}"` })) {
      out.push({ ...d, path: [{ attribute: 'endpoint' }, { index: i }, ...(d.path ?? [])] });
    }
  });
  return out;
}

/** Whether the stored profile is what this create would write (so the create adopts it instead of refusing). */
function sameProfile(stored: ProfileEntry, planned: Obj, inline: boolean): boolean {
  if (inline) {
    const conv = profileFromTf(planned);
    return conv.unknown.length === 0 && diffAttributes(normalizeProfile(conv.value), stored.profile).length === 0;
  }
  const conv = profileSettingsFromTf(planned);
  return conv.unknown.length === 0 && diffAttributes(normalizeSettings(conv.value), profileSettings(stored.profile)).length === 0;
}

/**
 * Plans that see live health (docs/plan.md): for a change to a deployed profile, the profile's health now and
 * a warning when the change leaves it with no endpoint Online, as warnings (`terraform plan` shows them; a
 * server that cannot say adds none). Read only for real changes, so a plan with nothing to do costs nothing.
 */
async function liveWarnings(ctx: TmkitContext, name: string, planned: Parameters<typeof liveHealthNotes>[2]): Promise<Diagnostic[]> {
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
const clone = (o: Obj): Obj => cloneValue(o) as Obj;

export const profileResource: Resource<TmkitContext> = {
  schema: profileSchema,

  validate(config) {
    const inline = ownsInline(config);
    const conv = inline ? profileFromTf(config) : profileSettingsFromTf(config);
    const unknownName = isUnknown(config.name);
    const name = unknownName ? 'unknown-name' : conv.value.name;
    const unknown = [...conv.unknown, ...(unknownName ? ['name'] : [])];
    if (inline) {
      const diags = validateProfile({ ...conv.value, name }).filter((d) => d.severity === 'error' && !LATER.has(d.code));
      return [...conv.problems, ...inlineDiagnostics(diags, name, endpointBlocks(config), unknown)];
    }
    const diags = validateProfile({ ...conv.value, name, endpoints: [] });
    return [...conv.problems, ...tfDiagnostics(diags.filter((d) => !d.path.startsWith(`profiles[${name}].endpoints`)), { prefix: `profiles[${name}]`, kind: 'profile', unknown }), ];
  },

  async plan({ prior, config, planned, requiresReplace }: PlanInput, ctx): Promise<PlanOutput | void> {
    if (planned === null) return;
    const out = clone(planned);
    planProfileDefaults(out, config);
    const inline = ownsInline(out) || ownsInline(prior);
    if (inline) planInlineEndpoints(out, config, prior);
    const replace = [...requiresReplace];
    const pr = first(prior?.dns_config)?.relative_name;
    const nr = first(out.dns_config)?.relative_name;
    if (prior && typeof pr === 'string' && !isUnknown(nr) && pr !== nr) replace.push(attr('dns_config', 0, 'relative_name'));
    if (prior && replace.length > 0 && typeof prior.name === 'string') ctx.replacing.set(`profile/${lower(String(out.name))}`, { profile: prior.name, name: prior.name });
    const diagnostics: Diagnostic[] = [];
    if (typeof out.name !== 'string') return { planned: out, requiresReplace: replace, diagnostics };
    const key = lower(out.name);
    if (inline) {
      ctx.inline.add(key);
      const other = ctx.separate.get(key);
      if (other !== undefined) diagnostics.push(error(`profile "${out.name}" has endpoint blocks, and endpoint "${other}" of it is a separate resource`, MIXED_HINT, attr('endpoint')));
    }
    const deployed = await ctx.find(out.name);
    const replacingSelf = ctx.replacing.has(`profile/${key}`);
    // The id is a function of the stack and the name, so a new profile's id is known at plan time (its
    // endpoints' plans, and `tmkit plan --from-terraform`, see where they go). A replacement's stays unknown,
    // so its endpoints are replaced with it, as with azurerm.
    if (prior === null && !replacingSelf) out.id = profileId(ctx.stack, out.name, TERRAFORM_IDS);
    if (!deployed) {
      const conv = profileSettingsFromTf(out);
      if (conv.unknown.length === 0) ctx.plannedSettings.set(key, conv.value);
    }
    if (deployed && deployed.stack !== ctx.stack) {
      diagnostics.push(error(`profile "${deployed.name}" is owned by stack "${deployed.stack}", not "${ctx.stack}"`, 'Choose another name: this configuration never writes another stack\'s profiles. (RESOURCE_NOT_OWNED)', attr('name')));
    } else if (deployed && prior === null && !replacingSelf && !sameProfile(deployed, out, inline)) {
      diagnostics.push(error(`profile "${deployed.name}" already exists`, `To manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, deployed.name, TERRAFORM_IDS)} (RESOURCE_EXISTS)`, attr('name')));
    } else {
      // The profile against every other profile (relativeName taken, nesting); a settings-only profile with
      // its current endpoints, whose own diagnostics are their resources'.
      const others = await ctx.others(out.name);
      const opts = others.length > 0 ? { context: others } : {};
      if (inline) {
        const conv = profileFromTf(out);
        diagnostics.push(...inlineDiagnostics(reported(validateProfile(conv.value, opts)), conv.value.name, endpointBlocks(out), conv.unknown));
      } else {
        const conv = profileSettingsFromTf(out);
        const input = { ...conv.value, endpoints: deployed ? deployed.profile.endpoints : [] };
        // Errors only: its own warnings came with validate, its endpoints' with their resources' plans.
        const diags = reported(validateProfile(input, opts), () => false).filter((d) => !d.path.startsWith(`profiles[${conv.value.name}].endpoints`));
        diagnostics.push(...tfDiagnostics(diags, { prefix: `profiles[${conv.value.name}]`, kind: 'profile', unknown: conv.unknown }));
      }
      if (deployed && prior !== null && !diagnostics.some((d) => d.severity === 'error') && !sameProfile(deployed, out, inline)) {
        const conv = inline ? profileFromTf(out) : profileSettingsFromTf(out);
        if (conv.unknown.length === 0) {
          diagnostics.push(...await liveWarnings(ctx, deployed.name, (d) => normalizeProfile(inline ? profileFromTf(out).value : { ...profileSettingsFromTf(out).value, endpoints: d.endpoints })));
        }
      }
    }
    return { planned: out, requiresReplace: replace, diagnostics };
  },

  async create({ planned }, ctx) {
    const inline = ownsInline(planned);
    const input = inline ? profileFromTf(planned).value : profileSettingsFromTf(planned).value;
    return writing(ctx, async () => {
      const e = await ctx.resources.createProfile(input, { ownsEndpoints: inline, importHint: `to manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, input.name, TERRAFORM_IDS)}` });
      ctx.wroteProfile(e);
      return profileResult(ctx, e, profileId(ctx.stack, e.profile.name, TERRAFORM_IDS), planned, inline);
    });
  },

  async read(state, ctx) {
    const name = String(state.name);
    const e = await ctx.readProfile(name).catch((err: unknown) => refusal(err));
    if (!e) return null;
    return profileResult(ctx, e, typeof state.id === 'string' ? state.id : profileId(ctx.stack, e.profile.name, TERRAFORM_IDS), state, ownsInline(state));
  },

  async update({ prior, planned, data }, ctx) {
    const inline = ownsInline(planned) || ownsInline(prior);
    return writing(ctx, async () => {
      let e: ProfileEntry;
      if (inline) {
        // Owning its endpoints: one PUT of the whole profile, If-Match the ETag last seen (or, on the update
        // that first declares endpoint blocks, after comparing the settings).
        const adopt = !ownsInline(prior);
        const etag = etagOf(data);
        e = await ctx.resources.updateProfile(profileFromTf(planned).value, {
          ownsEndpoints: true, adoptEndpoints: adopt,
          prior: { profile: adopt ? priorSettings(prior).profile : profileFromTf(prior).value, ...(etag && !adopt ? { etag } : {}) },
        });
      } else {
        e = await ctx.resources.updateProfile(profileSettingsFromTf(planned).value, { prior: priorSettings(prior), unmanaged: UNMANAGED });
      }
      ctx.wroteProfile(e);
      return profileResult(ctx, e, String(prior.id), planned, inline);
    });
  },

  async delete(state, ctx, data) {
    const inline = ownsInline(state);
    const etag = etagOf(data);
    return writing(ctx, async () => {
      const prior: PriorProfile = inline ? { profile: profileFromTf(state).value, ...(etag ? { etag } : {}) } : priorSettings(state);
      await ctx.resources.deleteProfile(String(state.name), { prior, ownsEndpoints: inline, unmanaged: UNMANAGED });
      ctx.deletedProfile(String(state.name));
    });
  },

  async import(id, ctx) {
    const parsed = parseProfileRef(id, TERRAFORM_IDS);
    if (!parsed || parseEndpointRef(id, TERRAFORM_IDS)) {
      throw new DiagnosticsError(error(`"${id}" is not a profile id`, `Import a profile by its id, ${profileId(ctx.stack, '<name>', TERRAFORM_IDS)} (an azurerm profile id or a bare profile name work too).`));
    }
    if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
      throw new DiagnosticsError(error(`the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`, `Set stack = "${parsed.stack}" in the provider block, or import ${profileId(ctx.stack, parsed.name, TERRAFORM_IDS)}.`));
    }
    const e = await ctx.resources.readProfile(parsed.name).catch((err: unknown) => refusal(err));
    if (!e) throw new DiagnosticsError(error(`profile "${parsed.name}" does not exist on the tmkit runtime at ${ctx.client.server}`, 'Check the name, or create it from the configuration instead of importing it.'));
    const p = profileSettings(e.profile);
    return profileState(p, { id: profileId(ctx.stack, p.name, TERRAFORM_IDS), fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base: null, full: true });
  },
};

/** A tmkit_profile's state from the stored profile; an inline one with its endpoint blocks and its ETag kept privately. */
async function profileResult(ctx: TmkitContext, e: ProfileEntry, id: string, base: Obj, inline: boolean): Promise<Obj | WithPrivate> {
  const p = profileSettings(e.profile);
  const state = profileState(p, { id, fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base });
  state.endpoint = inline ? inlineEndpointsState(e.profile.endpoints, base) : [];
  return inline ? new WithPrivate(state, { etag: e.etag }) : state;
}

// ----------------------------------------------------------------------------------------- endpoints

function profileOf(o: Obj, at = 'profile_id'): string {
  const v = o.profile_id;
  const parsed = typeof v === 'string' ? parseProfileRef(v, TERRAFORM_IDS) : undefined;
  if (!parsed) throw new DiagnosticsError(error(`profile_id ${JSON.stringify(v)} is not a tmkit profile id`, 'Use the profile\'s id, e.g. profile_id = tmkit_profile.web.id.', attr(at)));
  return parsed.name;
}

/**
 * The per-profile rules for one endpoint resource: the endpoint validated in its profile's settings with the
 * stored endpoints it can clash with (ProfileIndex.relatedTo), itself last, so a clash is reported on it and
 * names the other endpoint. A clash the validator reports on the other endpoint (e.g. overlapping subnets,
 * found in address order) is shown on this one, naming the other. Warnings are kept, but PRIORITY_IGNORED
 * only for a priority the configuration gives (a stored or derived one is no news).
 */
function endpointChecks(found: readonly CoreDiagnostic[], o: { prefix: string; name: string; unknown: string[]; subject: string; configuredPriority: boolean }): Diagnostic[] {
  const { prefix, name } = o;
  const keep = (d: CoreDiagnostic): boolean => d.code !== 'PRIORITY_IGNORED' || o.configuredPriority;
  const diags = reported(found, keep);
  const isMine = (d: CoreDiagnostic): boolean => d.path === prefix || d.path.startsWith(`${prefix}.`) || d.path.startsWith(`${prefix}[`);
  const mine = diags.filter(isMine);
  const named = diags.filter((d) => !isMine(d) && d.severity === 'error' && d.message.includes(`endpoint "${name}"`)).map((d) => {
    const m = /\.endpoints\[([^\]]*)\](?:\.([A-Za-z]+))?/.exec(d.path);
    const other = m?.[1] ?? '';
    return { ...d, path: `${prefix}${m?.[2] ? `.${m[2]}` : ''}`, message: d.message.split(`endpoint "${name}"`).join(`endpoint "${other}"`) };
  });
  return tfDiagnostics([...mine, ...named], { prefix, kind: 'endpoint', unknown: o.unknown, subject: o.subject });
}

/** An endpoint type as Terraform spells it (`ExternalEndpoints`); one this provider does not know, as given. */
const kindOf = (t: string): string => (ENDPOINT_TYPES.includes(t as EndpointType) ? idEndpointType(t as EndpointType, TERRAFORM_IDS) : t);

function endpointResource(type: EndpointType, schema: Resource<TmkitContext>['schema']): Resource<TmkitContext> {
  const kind = kindOf(type);
  const idOf = (ctx: TmkitContext, profile: string, name: string): string => endpointId(ctx.stack, profile, type, name, TERRAFORM_IDS);
  const checkType = (stored: { type: string; name: string }, profile: string): void => {
    if (stored.type !== type) {
      const theirs = kindOf(stored.type);
      throw new DiagnosticsError(error(`endpoint "${profile}/${stored.name}" is now a ${theirs} endpoint, not ${kind}`,
        `Someone replaced it outside Terraform. Remove it from the state (terraform state rm) and import it as the matching resource (tmkit_${theirs.replace('Endpoints', '').toLowerCase()}_endpoint).`));
    }
  };
  /** The state of a stored endpoint, its ETag kept privately (a later update or delete sends If-Match with it). */
  const result = (e: Endpoint, etag: string, o: { id: string; profileId: string; base: Obj | null }): WithPrivate =>
    new WithPrivate(endpointState(e, o), { etag });
  const prior = (state: Obj, data: PrivateData): { endpoint: EndpointInput; etag?: string } => {
    const etag = etagOf(data);
    return { endpoint: endpointFromTf(state, type).value, ...(etag ? { etag } : {}) };
  };

  return {
    schema,

    validate(config) {
      const diags: Diagnostic[] = [];
      const pid = config.profile_id;
      if (typeof pid === 'string' && (!parseProfileRef(pid, TERRAFORM_IDS) || parseEndpointRef(pid, TERRAFORM_IDS))) {
        diags.push(error(`profile_id "${pid}" is not a tmkit profile id`, 'Use the profile\'s id, e.g. profile_id = tmkit_profile.web.id.', attr('profile_id')));
      }
      const conv = endpointFromTf(config, type);
      const name = isUnknown(config.name) ? 'unknown-name' : conv.value.name;
      const probe = { name: 'profile', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'profile' }, endpoints: [{ ...conv.value, name }] };
      const found = validateProfile(probe).filter((d) => d.severity === 'error' && !LATER.has(d.code));
      diags.push(...tfDiagnostics(found, { prefix: `profiles[profile].endpoints[${name}]`, kind: 'endpoint', unknown: conv.unknown }));
      return diags;
    },

    async plan({ prior: before, config, planned, requiresReplace }, ctx) {
      if (planned === null) return;
      const out = clone(planned);
      planEndpointDefaults(out, config, type);
      if (typeof out.profile_id !== 'string' || typeof out.name !== 'string') return { planned: out, requiresReplace };
      const profile = profileOf(out);
      const key = `${lower(profile)}/${lower(out.name)}`;
      if (before && requiresReplace.length > 0 && typeof before.name === 'string' && typeof before.profile_id === 'string') {
        ctx.replacing.set(key, { profile: profileOf(before), name: before.name });
      }
      if (before === null && !ctx.replacing.has(key)) out.id = idOf(ctx, profile, out.name);
      ctx.separate.set(lower(profile), out.name);
      if (ctx.inline.has(lower(profile))) {
        return { planned: out, requiresReplace, diagnostics: [error(`endpoint "${out.name}" is a separate resource of profile "${profile}", which has endpoint blocks`, MIXED_HINT, attr('profile_id'))] };
      }
      const conv = endpointFromTf(out, type);
      const configuredPriority = config?.priority !== null && config?.priority !== undefined;
      const ix = await ctx.index(profile);
      if (!ix) {
        // Created in this run (or missing: apply says so): checked against its planned settings, alone.
        const settings = ctx.plannedSettings.get(lower(profile));
        if (!settings) return { planned: out, requiresReplace };
        const found = validateProfile({ ...settings, endpoints: [conv.value] });
        const subject = `endpoint "${out.name}" of profile "${settings.name}"`;
        return { planned: out, requiresReplace, diagnostics: endpointChecks(found, { prefix: `profiles[${settings.name}].endpoints[${conv.value.name}]`, name: conv.value.name, unknown: conv.unknown, subject, configuredPriority }) };
      }
      const entry = ix.entry;
      const subject = `endpoint "${out.name}" of profile "${entry.name}"`;
      if (entry.stack !== ctx.stack) {
        return { planned: out, requiresReplace, diagnostics: [error(`${subject}: profile "${entry.name}" is owned by stack "${entry.stack}", not "${ctx.stack}"`, 'Endpoints can only be added to this stack\'s profiles. (RESOURCE_NOT_OWNED)', attr('profile_id'))] };
      }
      const replaced = ctx.replacing.get(key);
      const except = new Set(replaced && lower(replaced.profile) === lower(entry.name) ? [lower(replaced.name)] : []);
      const existing = except.has(lower(out.name)) ? undefined : ix.get(out.name);
      if (existing && before === null) {
        // The same endpoint with the planned content (a create whose answer was lost): the create adopts it.
        // Values known only after apply (a computed priority or location) are the stored ones.
        const planned = { ...conv.value } as Record<string, unknown>;
        for (const u of conv.unknown) if (u in existing) planned[u] = (existing as unknown as Record<string, unknown>)[u];
        const same = diffAttributes(normalizeEndpoint(planned as unknown as EndpointInput, existing.priority), existing).length === 0;
        if (!same) return { planned: out, requiresReplace, diagnostics: [error(`${subject} already exists`, `To manage it with Terraform, import it: terraform import <address> ${idOf(ctx, entry.name, existing.name)} (RESOURCE_EXISTS)`, attr('name'))] };
      }
      const { endpoints: _all, ...settings } = entry.profile;
      const probe: ProfileInput = { ...settings, endpoints: [...ix.relatedTo(conv.value, except), conv.value] };
      const others = type === 'nestedEndpoints' ? await ctx.others(entry.name) : [];
      const found = validateProfile(probe, others.length > 0 ? { context: others } : {});
      const diagnostics = endpointChecks(found, { prefix: `profiles[${entry.name}].endpoints[${conv.value.name}]`, name: conv.value.name, unknown: conv.unknown, subject, configuredPriority });
      const current = ix.get(out.name);
      if (before !== null && current && conv.unknown.length === 0 && !diagnostics.some((d) => d.severity === 'error')) {
        const next = normalizeEndpoint(conv.value, current.priority);
        if (diffAttributes(next, current).length > 0) {
          const same = (n: string): boolean => lower(n) === lower(next.name);
          diagnostics.push(...await liveWarnings(ctx, entry.name, (d) => normalizeProfile({ ...d, endpoints: d.endpoints.map((e) => (same(e.name) ? next : e)) })));
        }
      }
      return { planned: out, requiresReplace, diagnostics };
    },

    async create({ planned }, ctx) {
      const profile = profileOf(planned);
      const conv = endpointFromTf(planned, type);
      return writing(ctx, async () => {
        const r = await ctx.resources.createEndpoint(profile, conv.value, { importHint: `to manage it with Terraform, import it: terraform import <address> ${idOf(ctx, profile, conv.value.name)}` });
        ctx.wroteEndpoint(r);
        return result(r.endpoint, r.etag, { id: idOf(ctx, r.profile, r.endpoint.name), profileId: String(planned.profile_id), base: planned });
      });
    },

    async read(state, ctx) {
      const profile = profileOf(state);
      const r = await ctx.readEndpoint(profile, String(state.name)).catch((err: unknown) => refusal(err));
      if (!r) return null;
      checkType(r.endpoint, profile);
      return result(r.endpoint, r.etag, { id: typeof state.id === 'string' ? state.id : idOf(ctx, profile, r.endpoint.name), profileId: String(state.profile_id), base: state });
    },

    async update({ prior: before, planned, data }, ctx) {
      const profile = profileOf(before);
      return writing(ctx, async () => {
        const r = await ctx.resources.updateEndpoint(profile, endpointFromTf(planned, type).value, { prior: prior(before, data) });
        ctx.wroteEndpoint(r);
        return result(r.endpoint, r.etag, { id: String(before.id), profileId: String(planned.profile_id), base: planned });
      });
    },

    async delete(state, ctx, data) {
      const profile = profileOf(state);
      return writing(ctx, async () => {
        const r = await ctx.resources.deleteEndpoint(profile, String(state.name), { prior: prior(state, data) });
        ctx.deletedEndpoint(profile, String(state.name), r?.profileEtag);
      });
    },

    async import(id, ctx) {
      const parsed = parseEndpointRef(id, TERRAFORM_IDS);
      if (!parsed?.type) throw new DiagnosticsError(error(`"${id}" is not an endpoint id`, `Import an endpoint by its id, ${idOf(ctx, '<profile>', '<name>')}.`));
      if (parsed.type !== type) {
        const theirs = kindOf(parsed.type);
        throw new DiagnosticsError(error(`"${id}" is the id of a ${theirs} endpoint, not a ${kind} one`, `Import it as tmkit_${theirs.replace('Endpoints', '').toLowerCase()}_endpoint.`));
      }
      if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
        throw new DiagnosticsError(error(`the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`, `Set stack = "${parsed.stack}" in the provider block, or import ${idOf(ctx, parsed.profile, parsed.name)}.`));
      }
      const r = await ctx.resources.readEndpoint(parsed.profile, parsed.name, { storedProfileName: true }).catch((err: unknown) => refusal(err));
      if (!r) throw new DiagnosticsError(error(`endpoint "${parsed.profile}/${parsed.name}" does not exist on the tmkit runtime at ${ctx.client.server}`, 'Check the id, or create it from the configuration instead of importing it.'));
      checkType(r.endpoint, r.profile);
      return result(r.endpoint, r.etag, { id: idOf(ctx, r.profile, r.endpoint.name), profileId: profileId(ctx.stack, r.profile, TERRAFORM_IDS), base: null });
    },
  };
}

export const externalEndpointResource = endpointResource('externalEndpoints', externalEndpointSchema);
export const azureEndpointResource = endpointResource('azureEndpoints', azureEndpointSchema);
export const nestedEndpointResource = endpointResource('nestedEndpoints', nestedEndpointSchema);

// -------------------------------------------------------------------------------------- data source

export const profileStatusDataSource: DataSource<TmkitContext> = {
  schema: profileStatusSchema,
  async read(config, ctx): Promise<ValueObject> {
    const name = String(config.name);
    let s;
    try {
      s = await ctx.client.status(name);
    } catch (err) {
      if (err instanceof TmkitApiError && err.status === 404) throw new DiagnosticsError(error(`profile "${name}" does not exist on the tmkit runtime at ${ctx.client.server}`, 'Check the name (profile names are case-insensitive).', attr('name')));
      throw err;
    }
    return {
      name,
      id: profileId(s.stack, s.name, TERRAFORM_IDS),
      stack: s.stack,
      fqdn: s.fqdn,
      profile_status: s.profileStatus,
      profile_monitor_status: s.profileMonitorStatus,
      all_degraded_fallback: s.allDegradedFallback,
      endpoints: s.endpoints.map((e) => ({
        name: e.name, type: e.type, target: e.target ?? null, target_resource_id: e.targetResourceId ?? null,
        endpoint_status: e.endpointStatus, endpoint_monitor_status: e.endpointMonitorStatus, reason: e.reason,
      })),
    };
  },
};
