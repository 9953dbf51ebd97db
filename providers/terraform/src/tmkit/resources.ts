/**
 * The tmkit resources and data source as ./provider handlers: thin, over src/client (StackResources for
 * the writes, core's validator and edits for the checks). What each handler adds to the router:
 *
 * - validate: the shared per-resource rules of core/validate on what is known (unknown values are skipped).
 * - plan: azurerm's defaults planned exactly (so apply stores what the plan shows); dns_config.relative_name
 *   forces a replace; and the cross-object rules that one resource cannot see alone, checked against the
 *   runtime's current profiles: unique priority, overlapping subnets, one endpoint per geo region,
 *   MinChildEndpoints, relativeName taken, a name that exists already (import it) or belongs to another
 *   stack. The server checks all of them again on apply.
 * - create/update/delete: one profile's settings (PATCH, endpoints untouched) or one endpoint (PUT/DELETE with
 *   its ETag), with the provider's stack; state built from what the runtime stored.
 */
import { TmkitClient, type ProfileEntry } from '../../../../src/client';
import { ResourceError, StackResources, profileSettings, type PriorProfile } from '../../../../src/client/resources';
import { TmkitApiError } from '../../../../src/client/errors';
import { withEndpoint } from '../../../../src/core/model/edit';
import type { EndpointType, Profile } from '../../../../src/core/model/types';
import { validateProfile } from '../../../../src/core/validate';
import { isUnknown, UNKNOWN, type Value, type ValueObject } from '../cty';
import type { DataSource, PlanInput, PlanOutput, Resource } from '../provider';
import { DiagnosticsError, error, type AttributePath, type Diagnostic } from '../tfprotov6';
import { endpointFromTf, endpointState, first, num, profileSettingsFromTf, profileState, tfDiagnostics, type Obj } from './convert';
import { endpointId, KIND_OF_TYPE, parseEndpointId, parseProfileId, profileId, type EndpointKind } from './ids';
import { azureEndpointSchema, externalEndpointSchema, nestedEndpointSchema, profileSchema, profileStatusSchema } from './schemas';

/** How a Terraform user takes a change made by someone else into the state, ending conflict messages. */
export const TERRAFORM_REFRESH = 'run `terraform refresh` to take the change into the state (the next `terraform plan` then shows what it would undo), then `terraform apply`';

/** What every handler gets: the client, the stack's resources, and a per-process view used by plan checks. */
export class TmkitContext {
  readonly resources: StackResources;
  private listing: Promise<ProfileEntry[]> | undefined;
  /** Endpoints being replaced under a new name or profile in this plan: new key → the old one. */
  readonly replacing = new Map<string, { profile: string; name: string }>();

  constructor(readonly client: TmkitClient, readonly stack: string) {
    this.resources = new StackResources(client, {
      stack,
      refreshHint: TERRAFORM_REFRESH,
      strayEndpointsHint: 'or import them (terraform import) to manage them with Terraform',
      profileFirstHint: 'reference its id, e.g. profile_id = tmkit_profile.x.id, so it is created before its endpoints',
    });
  }

  /** Every deployed profile (all stacks), read once per process until this process writes. */
  profiles(): Promise<ProfileEntry[]> {
    this.listing ??= this.client.listProfiles().then((l) => l.profiles);
    return this.listing;
  }

  /** Called after every write: the next plan check reads the runtime again. */
  wrote(): void {
    this.listing = undefined;
  }

  async find(name: string): Promise<ProfileEntry | undefined> {
    const lower = name.toLowerCase();
    return (await this.profiles()).find((p) => p.name.toLowerCase() === lower);
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

/** Settings Terraform does not model: kept as stored, never compared or removed. */
const UNMANAGED = ['allowedEndpointRecordTypes'];

/** What Terraform last saw of a profile (its state): its settings; a tmkit_profile never owns endpoints. */
const priorSettings = (state: Obj): PriorProfile => ({ profile: { ...profileSettingsFromTf(state).value, endpoints: [] } });

const attr = (...names: Array<string | number>): AttributePath => names.map((n) => (typeof n === 'number' ? { index: n } : { attribute: n }));

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

/** A write: its refusals as diagnostics (see refusal), and the next plan check reads the runtime again. */
async function writing<T>(ctx: TmkitContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    return refusal(err);
  } finally {
    ctx.wrote();
  }
}

// ------------------------------------------------------------------------------------------- profile

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
    const conv = profileSettingsFromTf(config);
    const unknownName = isUnknown(config.name);
    const name = unknownName ? 'unknown-name' : conv.value.name;
    const diags = validateProfile({ ...conv.value, name, endpoints: [] });
    return [...conv.problems, ...tfDiagnostics(diags.filter((d) => !d.path.startsWith(`profiles[${name}].endpoints`)), {
      prefix: `profiles[${name}]`, kind: 'profile', unknown: [...conv.unknown, ...(unknownName ? ['name'] : [])],
    })];
  },

  async plan({ prior, config, planned, requiresReplace }: PlanInput, ctx): Promise<PlanOutput | void> {
    if (planned === null) return;
    const out = clone(planned);
    planProfileDefaults(out, config);
    const replace = [...requiresReplace];
    const pr = first(prior?.dns_config)?.relative_name;
    const nr = first(out.dns_config)?.relative_name;
    if (prior && typeof pr === 'string' && !isUnknown(nr) && pr !== nr) replace.push(attr('dns_config', 0, 'relative_name'));
    if (prior && replace.length > 0 && typeof prior.name === 'string') ctx.replacing.set(`profile/${String(out.name).toLowerCase()}`, { profile: prior.name, name: prior.name });
    const diagnostics: Diagnostic[] = [];
    if (typeof out.name === 'string') {
      const deployed = await ctx.find(out.name);
      const replacingSelf = ctx.replacing.has(`profile/${out.name.toLowerCase()}`);
      // The id is a function of the stack and the name, so a new profile's id is known at plan time (its
      // endpoints' plans, and `tmkit plan --from-terraform`, see where they go). A replacement's stays unknown,
      // so its endpoints are replaced with it, as with azurerm.
      if (prior === null && !replacingSelf) out.id = profileId(ctx.stack, out.name);
      if (deployed && deployed.stack !== ctx.stack) {
        diagnostics.push(error(`profile "${deployed.name}" is owned by stack "${deployed.stack}", not "${ctx.stack}"`, 'Choose another name: this configuration never writes another stack\'s profiles. (RESOURCE_NOT_OWNED)', attr('name')));
      } else if (deployed && prior === null && !replacingSelf) {
        diagnostics.push(error(`profile "${deployed.name}" already exists`, `To manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, deployed.name)} (RESOURCE_EXISTS)`, attr('name')));
      } else {
        // The settings with the profile's current endpoints, against every other profile (relativeName taken, nesting).
        const conv = profileSettingsFromTf(out);
        const others = (await ctx.profiles()).filter((p) => p.name.toLowerCase() !== out.name!.toString().toLowerCase()).map((p) => p.profile);
        const input = { ...conv.value, endpoints: deployed ? deployed.profile.endpoints : [] };
        const diags = validateProfile(input, others.length > 0 ? { context: others } : {}).filter((d) => d.severity === 'error' && !d.path.startsWith(`profiles[${conv.value.name}].endpoints`));
        diagnostics.push(...tfDiagnostics(diags, { prefix: `profiles[${conv.value.name}]`, kind: 'profile', unknown: conv.unknown }));
      }
    }
    return { planned: out, requiresReplace: replace, diagnostics };
  },

  async create({ planned }, ctx) {
    const conv = profileSettingsFromTf(planned);
    return writing(ctx, async () => {
      const e = await ctx.resources.createProfile(conv.value, { importHint: `to manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, conv.value.name)}` });
      const p = profileSettings(e.profile);
      return profileState(p, { id: profileId(ctx.stack, p.name), fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base: planned });
    });
  },

  async read(state, ctx) {
    const name = String(state.name);
    const e = await ctx.resources.readProfile(name).catch((err: unknown) => refusal(err));
    if (!e) return null;
    const p = profileSettings(e.profile);
    const id = typeof state.id === 'string' ? state.id : profileId(ctx.stack, p.name);
    return profileState(p, { id, fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base: state });
  },

  async update({ prior, planned }, ctx) {
    return writing(ctx, async () => {
      const e = await ctx.resources.updateProfile(profileSettingsFromTf(planned).value, { prior: priorSettings(prior), unmanaged: UNMANAGED });
      const p = profileSettings(e.profile);
      return profileState(p, { id: String(prior.id), fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base: planned });
    });
  },

  async delete(state, ctx) {
    return writing(ctx, async () => {
      await ctx.resources.deleteProfile(String(state.name), { prior: priorSettings(state), unmanaged: UNMANAGED });
    });
  },

  async import(id, ctx) {
    const parsed = parseProfileId(id);
    if (!parsed || parseEndpointId(id)) {
      throw new DiagnosticsError(error(`"${id}" is not a profile id`, `Import a profile by its id, ${profileId(ctx.stack, '<name>')} (an azurerm profile id or a bare profile name work too).`));
    }
    if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
      throw new DiagnosticsError(error(`the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`, `Set stack = "${parsed.stack}" in the provider block, or import ${profileId(ctx.stack, parsed.name)}.`));
    }
    const e = await ctx.resources.readProfile(parsed.name).catch((err: unknown) => refusal(err));
    if (!e) throw new DiagnosticsError(error(`profile "${parsed.name}" does not exist on the tmkit runtime at ${ctx.client.server}`, 'Check the name, or create it from the configuration instead of importing it.'));
    const p = profileSettings(e.profile);
    return profileState(p, { id: profileId(ctx.stack, p.name), fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base: null, full: true });
  },
};

// ----------------------------------------------------------------------------------------- endpoints

/** Codes whose check needs objects that may be created later in the same run (the server checks them). */
const LATER = new Set(['NESTED_TARGET_NOT_FOUND']);

function profileOf(o: Obj, at = 'profile_id'): string {
  const v = o.profile_id;
  const parsed = typeof v === 'string' ? parseProfileId(v) : undefined;
  if (!parsed) throw new DiagnosticsError(error(`profile_id ${JSON.stringify(v)} is not a tmkit profile id`, 'Use the profile\'s id, e.g. profile_id = tmkit_profile.web.id.', attr(at)));
  return parsed.name;
}

function endpointResource(type: EndpointType, schema: Resource<TmkitContext>['schema']): Resource<TmkitContext> {
  const kind: EndpointKind = KIND_OF_TYPE[type];
  const idOf = (ctx: TmkitContext, profile: string, name: string): string => endpointId(ctx.stack, profile, kind, name);
  const checkType = (stored: { type: string; name: string }, profile: string): void => {
    if (stored.type !== type) {
      const theirs = KIND_OF_TYPE[stored.type as EndpointType] ?? stored.type;
      throw new DiagnosticsError(error(`endpoint "${profile}/${stored.name}" is now a ${theirs} endpoint, not ${kind}`,
        `Someone replaced it outside Terraform. Remove it from the state (terraform state rm) and import it as the matching resource (tmkit_${theirs.replace('Endpoints', '').toLowerCase()}_endpoint).`));
    }
  };

  return {
    schema,

    validate(config) {
      const diags: Diagnostic[] = [];
      const pid = config.profile_id;
      if (typeof pid === 'string' && (!parseProfileId(pid) || parseEndpointId(pid))) {
        diags.push(error(`profile_id "${pid}" is not a tmkit profile id`, 'Use the profile\'s id, e.g. profile_id = tmkit_profile.web.id.', attr('profile_id')));
      }
      const conv = endpointFromTf(config, type);
      const name = isUnknown(config.name) ? 'unknown-name' : conv.value.name;
      const probe = { name: 'profile', trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'profile' }, endpoints: [{ ...conv.value, name }] };
      const found = validateProfile(probe).filter((d) => d.severity === 'error' && !LATER.has(d.code));
      diags.push(...tfDiagnostics(found, { prefix: `profiles[profile].endpoints[${name}]`, kind: 'endpoint', unknown: conv.unknown }));
      return diags;
    },

    async plan({ prior, config, planned, requiresReplace }, ctx) {
      if (planned === null) return;
      const out = clone(planned);
      defaultTo(out, config, 'weight', 1);
      defaultTo(out, config, 'enabled', true);
      if (type !== 'nestedEndpoints') defaultTo(out, config, 'always_serve_enabled', false);
      if (type === 'nestedEndpoints') defaultTo(out, config, 'minimum_child_endpoints', 1);
      if (typeof out.profile_id !== 'string' || typeof out.name !== 'string') return { planned: out, requiresReplace };
      const profile = profileOf(out);
      const key = `${profile.toLowerCase()}/${out.name.toLowerCase()}`;
      if (prior && requiresReplace.length > 0 && typeof prior.name === 'string' && typeof prior.profile_id === 'string') {
        ctx.replacing.set(key, { profile: profileOf(prior), name: prior.name });
      }
      if (prior === null && !ctx.replacing.has(key)) out.id = idOf(ctx, profile, out.name);
      const entry = await ctx.find(profile);
      if (!entry) return { planned: out, requiresReplace }; // created in this run (or missing: apply says so)
      const subject = `endpoint "${out.name}" of profile "${entry.name}"`;
      if (entry.stack !== ctx.stack) {
        return { planned: out, requiresReplace, diagnostics: [error(`${subject}: profile "${entry.name}" is owned by stack "${entry.stack}", not "${ctx.stack}"`, 'Endpoints can only be added to this stack\'s profiles. (RESOURCE_NOT_OWNED)', attr('profile_id'))] };
      }
      let current: Profile = entry.profile;
      const replaced = ctx.replacing.get(key);
      if (replaced && replaced.profile.toLowerCase() === entry.name.toLowerCase()) {
        current = { ...current, endpoints: current.endpoints.filter((e) => e.name.toLowerCase() !== replaced.name.toLowerCase()) };
      }
      const existing = current.endpoints.find((e) => e.name.toLowerCase() === out.name!.toString().toLowerCase());
      if (existing && prior === null) {
        return { planned: out, requiresReplace, diagnostics: [error(`${subject} already exists`, `To manage it with Terraform, import it: terraform import <address> ${idOf(ctx, entry.name, existing.name)} (RESOURCE_EXISTS)`, attr('name'))] };
      }
      const conv = endpointFromTf(out, type);
      const input = withEndpoint(current, conv.value).input;
      const others = (await ctx.profiles()).filter((p) => p.name.toLowerCase() !== entry.name.toLowerCase()).map((p) => p.profile);
      const prefix = `profiles[${entry.name}].endpoints[${conv.value.name}]`;
      const found = validateProfile(input, others.length > 0 ? { context: others } : {}).filter((d) => d.severity === 'error' && !LATER.has(d.code));
      const mine = found.filter((d) => d.path === prefix || d.path.startsWith(`${prefix}.`) || d.path.startsWith(`${prefix}[`));
      // An error reported on another endpoint that names this one (the validator reports a clash on the later
      // of the two): shown at the same attribute of this endpoint.
      const named = found.filter((d) => !mine.includes(d) && d.message.includes(`"${conv.value.name}"`)).map((d) => {
        const m = /\.endpoints\[[^\]]*\](.*)$/.exec(d.path);
        return { ...d, path: `${prefix}${m ? m[1] : ''}` };
      });
      return { planned: out, requiresReplace, diagnostics: tfDiagnostics([...mine, ...named], { prefix, kind: 'endpoint', unknown: conv.unknown, subject }) };
    },

    async create({ planned }, ctx) {
      const profile = profileOf(planned);
      const conv = endpointFromTf(planned, type);
      return writing(ctx, async () => {
        const r = await ctx.resources.createEndpoint(profile, conv.value, { importHint: `to manage it with Terraform, import it: terraform import <address> ${idOf(ctx, profile, conv.value.name)}` });
        return endpointState(r.endpoint, { id: idOf(ctx, r.profile, r.endpoint.name), profileId: String(planned.profile_id), base: planned });
      });
    },

    async read(state, ctx) {
      const profile = profileOf(state);
      const r = await ctx.resources.readEndpoint(profile, String(state.name)).catch((err: unknown) => refusal(err));
      if (!r) return null;
      checkType(r.endpoint, r.profile);
      return endpointState(r.endpoint, { id: typeof state.id === 'string' ? state.id : idOf(ctx, r.profile, r.endpoint.name), profileId: String(state.profile_id), base: state });
    },

    async update({ prior, planned }, ctx) {
      const profile = profileOf(prior);
      return writing(ctx, async () => {
        const r = await ctx.resources.updateEndpoint(profile, endpointFromTf(planned, type).value, { prior: { endpoint: endpointFromTf(prior, type).value } });
        return endpointState(r.endpoint, { id: String(prior.id), profileId: String(planned.profile_id), base: planned });
      });
    },

    async delete(state, ctx) {
      return writing(ctx, async () => {
        await ctx.resources.deleteEndpoint(profileOf(state), String(state.name), { prior: { endpoint: endpointFromTf(state, type).value } });
      });
    },

    async import(id, ctx) {
      const parsed = parseEndpointId(id);
      if (!parsed) throw new DiagnosticsError(error(`"${id}" is not an endpoint id`, `Import an endpoint by its id, ${idOf(ctx, '<profile>', '<name>')}.`));
      if (parsed.kind !== kind) {
        throw new DiagnosticsError(error(`"${id}" is the id of a ${parsed.kind} endpoint, not a ${kind} one`, `Import it as tmkit_${parsed.kind.replace('Endpoints', '').toLowerCase()}_endpoint.`));
      }
      if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
        throw new DiagnosticsError(error(`the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`, `Set stack = "${parsed.stack}" in the provider block, or import ${idOf(ctx, parsed.profile, parsed.endpoint)}.`));
      }
      const r = await ctx.resources.readEndpoint(parsed.profile, parsed.endpoint).catch((err: unknown) => refusal(err));
      if (!r) throw new DiagnosticsError(error(`endpoint "${parsed.profile}/${parsed.endpoint}" does not exist on the tmkit runtime at ${ctx.client.server}`, 'Check the id, or create it from the configuration instead of importing it.'));
      checkType(r.endpoint, r.profile);
      return endpointState(r.endpoint, { id: idOf(ctx, r.profile, r.endpoint.name), profileId: profileId(ctx.stack, r.profile), base: null });
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
      id: profileId(s.stack, s.name),
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
