/** tmkit_profile (./resources says what each handler adds). */
import type { ProfileEntry } from '../../../../src/client';
import { profileId, parseEndpointRef, parseProfileRef, TERRAFORM_IDS } from '../../../../src/client/ids';
import { normalizeSettings, profileSettings, type PriorProfile } from '../../../../src/client/resources';
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import { normalizeProfile } from '../../../../src/core/model/normalize';
import { diffAttributes } from '../../../../src/core/plan/attributes';
import { validateProfile } from '../../../../src/core/validate';
import { isUnknown, UNKNOWN } from '../cty';
import { WithPrivate, type PlanInput, type PlanOutput, type Resource } from '../provider';
import { DiagnosticsError, error, type Diagnostic } from '../tfprotov6';
import {
  attr,
  clone,
  defaultTo,
  etagOf,
  LATER,
  liveWarnings,
  lower,
  MIXED_HINT,
  planEndpointDefaults,
  refusal,
  reported,
  writing,
} from './common';
import type { TmkitContext } from './context';
import {
  blockType,
  endpointBlocks,
  first,
  inlineEndpointsState,
  num,
  profileFromTf,
  profileSettingsFromTf,
  profileState,
  tfDiagnostics,
  type Obj,
} from './convert';
import { profileSchema } from './schemas';

/** Settings Terraform does not model: kept as stored, never compared or removed. */
const UNMANAGED = ['allowedEndpointRecordTypes'];

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
  const pl = first(planned.performance_latency);
  if (pl) {
    const c = first(config?.performance_latency);
    defaultTo(pl, c, 'source', 'Measured');
    defaultTo(pl, c, 'tolerance_ms', 20);
    defaultTo(pl, c, 'min_samples', 5);
  }
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
  const before = new Map(
    endpointBlocks(prior)
      .filter((b) => typeof b.name === 'string')
      .map((b) => [lower(String(b.name)), b]),
  );
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
      b.endpoint_location =
        old && typeof old.endpoint_location === 'string' && blockType(old) === type
          ? old.endpoint_location
          : type === 'azureEndpoints' || type === undefined
            ? UNKNOWN
            : null;
    }
  });
}

/**
 * Rule diagnostics about a profile with inline endpoints: the profile's at its attributes, each endpoint's at
 * its `endpoint` block (found by name).
 */
function inlineDiagnostics(
  diags: readonly CoreDiagnostic[],
  name: string,
  blocks: readonly Obj[],
  unknown: readonly string[],
): Diagnostic[] {
  const prefix = `profiles[${name}]`;
  const out = tfDiagnostics(
    diags.filter((d) => !d.path.startsWith(`${prefix}.endpoints[`)),
    { prefix, kind: 'profile', unknown: [...unknown] },
  );
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
    return [
      ...conv.problems,
      ...tfDiagnostics(
        diags.filter((d) => !d.path.startsWith(`profiles[${name}].endpoints`)),
        { prefix: `profiles[${name}]`, kind: 'profile', unknown },
      ),
    ];
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
    if (prior && replace.length > 0 && typeof prior.name === 'string')
      ctx.replacing.set(`profile/${lower(String(out.name))}`, { profile: prior.name, name: prior.name });
    const diagnostics: Diagnostic[] = [];
    if (typeof out.name !== 'string') return { planned: out, requiresReplace: replace, diagnostics };
    const key = lower(out.name);
    if (inline) {
      ctx.inline.add(key);
      const other = ctx.separate.get(key);
      if (other !== undefined)
        diagnostics.push(
          error(
            `profile "${out.name}" has endpoint blocks, and endpoint "${other}" of it is a separate resource`,
            MIXED_HINT,
            attr('endpoint'),
          ),
        );
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
      diagnostics.push(
        error(
          `profile "${deployed.name}" is owned by stack "${deployed.stack}", not "${ctx.stack}"`,
          "Choose another name: this configuration never writes another stack's profiles. (RESOURCE_NOT_OWNED)",
          attr('name'),
        ),
      );
    } else if (deployed && prior === null && !replacingSelf && !sameProfile(deployed, out, inline)) {
      diagnostics.push(
        error(
          `profile "${deployed.name}" already exists`,
          `To manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, deployed.name, TERRAFORM_IDS)} (RESOURCE_EXISTS)`,
          attr('name'),
        ),
      );
    } else {
      // The profile against every other profile (relativeName taken, nesting); a settings-only profile with
      // its current endpoints, whose own diagnostics are their resources'.
      const others = await ctx.others(out.name);
      const opts = others.length > 0 ? { context: others } : {};
      if (inline) {
        const conv = profileFromTf(out);
        diagnostics.push(
          ...inlineDiagnostics(reported(validateProfile(conv.value, opts)), conv.value.name, endpointBlocks(out), conv.unknown),
        );
      } else {
        const conv = profileSettingsFromTf(out);
        const input = { ...conv.value, endpoints: deployed ? deployed.profile.endpoints : [] };
        // Errors only: its own warnings came with validate, its endpoints' with their resources' plans.
        const diags = reported(validateProfile(input, opts), () => false).filter(
          (d) => !d.path.startsWith(`profiles[${conv.value.name}].endpoints`),
        );
        diagnostics.push(...tfDiagnostics(diags, { prefix: `profiles[${conv.value.name}]`, kind: 'profile', unknown: conv.unknown }));
      }
      if (deployed && prior !== null && !diagnostics.some((d) => d.severity === 'error') && !sameProfile(deployed, out, inline)) {
        const conv = inline ? profileFromTf(out) : profileSettingsFromTf(out);
        if (conv.unknown.length === 0) {
          diagnostics.push(
            ...(await liveWarnings(ctx, deployed.name, (d) =>
              normalizeProfile(inline ? profileFromTf(out).value : { ...profileSettingsFromTf(out).value, endpoints: d.endpoints }),
            )),
          );
        }
      }
    }
    return { planned: out, requiresReplace: replace, diagnostics };
  },

  async create({ planned }, ctx) {
    const inline = ownsInline(planned);
    const input = inline ? profileFromTf(planned).value : profileSettingsFromTf(planned).value;
    return writing(ctx, async () => {
      const e = await ctx.resources.createProfile(input, {
        ownsEndpoints: inline,
        importHint: `to manage it with Terraform, import it: terraform import <address> ${profileId(ctx.stack, input.name, TERRAFORM_IDS)}`,
      });
      ctx.wroteProfile(e);
      return profileResult(ctx, e, profileId(ctx.stack, e.profile.name, TERRAFORM_IDS), planned, inline);
    });
  },

  async read(state, ctx) {
    const name = String(state.name);
    const e = await ctx.readProfile(name).catch((err: unknown) => refusal(err));
    if (!e) return null;
    return profileResult(
      ctx,
      e,
      typeof state.id === 'string' ? state.id : profileId(ctx.stack, e.profile.name, TERRAFORM_IDS),
      state,
      ownsInline(state),
    );
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
          ownsEndpoints: true,
          adoptEndpoints: adopt,
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
      throw new DiagnosticsError(
        error(
          `"${id}" is not a profile id`,
          `Import a profile by its id, ${profileId(ctx.stack, '<name>', TERRAFORM_IDS)} (an azurerm profile id or a bare profile name work too).`,
        ),
      );
    }
    if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
      throw new DiagnosticsError(
        error(
          `the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`,
          `Set stack = "${parsed.stack}" in the provider block, or import ${profileId(ctx.stack, parsed.name, TERRAFORM_IDS)}.`,
        ),
      );
    }
    const e = await ctx.resources.readProfile(parsed.name).catch((err: unknown) => refusal(err));
    if (!e)
      throw new DiagnosticsError(
        error(
          `profile "${parsed.name}" does not exist on the tmkit runtime at ${ctx.client.server}`,
          'Check the name, or create it from the configuration instead of importing it.',
        ),
      );
    const p = profileSettings(e.profile);
    return profileState(p, {
      id: profileId(ctx.stack, p.name, TERRAFORM_IDS),
      fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName),
      base: null,
      full: true,
    });
  },
};

/** A tmkit_profile's state from the stored profile; an inline one with its endpoint blocks and its ETag kept privately. */
async function profileResult(ctx: TmkitContext, e: ProfileEntry, id: string, base: Obj, inline: boolean): Promise<Obj | WithPrivate> {
  const p = profileSettings(e.profile);
  const state = profileState(p, { id, fqdn: await ctx.fqdn(p.name, p.dnsConfig.relativeName), base });
  state.endpoint = inline ? inlineEndpointsState(e.profile.endpoints, base) : [];
  return inline ? new WithPrivate(state, { etag: e.etag }) : state;
}
