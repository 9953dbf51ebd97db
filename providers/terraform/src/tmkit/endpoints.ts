/** tmkit_external_endpoint, tmkit_azure_endpoint and tmkit_nested_endpoint (./resources says what each handler adds). */
import { endpointId, idEndpointType, parseEndpointRef, parseProfileRef, profileId, TERRAFORM_IDS } from '../../../../src/client/ids';
import { normalizeEndpoint } from '../../../../src/client/resources';
import type { Diagnostic as CoreDiagnostic } from '../../../../src/core/diagnostics';
import { normalizeProfile } from '../../../../src/core/model/normalize';
import { ENDPOINT_TYPES, type Endpoint, type EndpointInput, type EndpointType, type ProfileInput } from '../../../../src/core/model/types';
import { diffAttributes } from '../../../../src/core/plan/attributes';
import { validateProfile } from '../../../../src/core/validate';
import { isUnknown } from '../cty';
import { WithPrivate, type PrivateData, type Resource } from '../provider';
import { DiagnosticsError, error, type Diagnostic } from '../tfprotov6';
import { attr, clone, etagOf, LATER, liveWarnings, lower, MIXED_HINT, planEndpointDefaults, refusal, reported, writing } from './common';
import type { TmkitContext } from './context';
import { endpointFromTf, endpointState, tfDiagnostics, type Obj } from './convert';
import { azureEndpointSchema, externalEndpointSchema, nestedEndpointSchema } from './schemas';

function profileOf(o: Obj, at = 'profile_id'): string {
  const v = o.profile_id;
  const parsed = typeof v === 'string' ? parseProfileRef(v, TERRAFORM_IDS) : undefined;
  if (!parsed)
    throw new DiagnosticsError(
      error(
        `profile_id ${JSON.stringify(v)} is not a tmkit profile id`,
        "Use the profile's id, e.g. profile_id = tmkit_profile.web.id.",
        attr(at),
      ),
    );
  return parsed.name;
}

/**
 * The per-profile rules for one endpoint resource: the endpoint validated in its profile's settings with the
 * stored endpoints it can clash with (ProfileIndex.relatedTo), itself last, so a clash is reported on it and
 * names the other endpoint. A clash the validator reports on the other endpoint (e.g. overlapping subnets,
 * found in address order) is shown on this one, naming the other. Warnings are kept, but PRIORITY_IGNORED
 * only for a priority the configuration gives (a stored or derived one is no news).
 */
function endpointChecks(
  found: readonly CoreDiagnostic[],
  o: { prefix: string; name: string; unknown: string[]; subject: string; configuredPriority: boolean },
): Diagnostic[] {
  const { prefix, name } = o;
  const keep = (d: CoreDiagnostic): boolean => d.code !== 'PRIORITY_IGNORED' || o.configuredPriority;
  const diags = reported(found, keep);
  const isMine = (d: CoreDiagnostic): boolean => d.path === prefix || d.path.startsWith(`${prefix}.`) || d.path.startsWith(`${prefix}[`);
  const mine = diags.filter(isMine);
  const named = diags
    .filter((d) => !isMine(d) && d.severity === 'error' && d.message.includes(`endpoint "${name}"`))
    .map((d) => {
      const m = /\.endpoints\[([^\]]*)\](?:\.([A-Za-z]+))?/.exec(d.path);
      const other = m?.[1] ?? '';
      return {
        ...d,
        path: `${prefix}${m?.[2] ? `.${m[2]}` : ''}`,
        message: d.message.split(`endpoint "${name}"`).join(`endpoint "${other}"`),
      };
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
      throw new DiagnosticsError(
        error(
          `endpoint "${profile}/${stored.name}" is now a ${theirs} endpoint, not ${kind}`,
          `Someone replaced it outside Terraform. Remove it from the state (terraform state rm) and ` +
            `import it as the matching resource ` +
            `(tmkit_${theirs.replace('Endpoints', '').toLowerCase()}_endpoint).`,
        ),
      );
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
        diags.push(
          error(
            `profile_id "${pid}" is not a tmkit profile id`,
            "Use the profile's id, e.g. profile_id = tmkit_profile.web.id.",
            attr('profile_id'),
          ),
        );
      }
      const conv = endpointFromTf(config, type);
      const name = isUnknown(config.name) ? 'unknown-name' : conv.value.name;
      const probe = {
        name: 'profile',
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: 'profile' },
        endpoints: [{ ...conv.value, name }],
      };
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
        return {
          planned: out,
          requiresReplace,
          diagnostics: [
            error(
              `endpoint "${out.name}" is a separate resource of profile "${profile}", which has endpoint blocks`,
              MIXED_HINT,
              attr('profile_id'),
            ),
          ],
        };
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
        return {
          planned: out,
          requiresReplace,
          diagnostics: endpointChecks(found, {
            prefix: `profiles[${settings.name}].endpoints[${conv.value.name}]`,
            name: conv.value.name,
            unknown: conv.unknown,
            subject,
            configuredPriority,
          }),
        };
      }
      const entry = ix.entry;
      const subject = `endpoint "${out.name}" of profile "${entry.name}"`;
      if (entry.stack !== ctx.stack) {
        return {
          planned: out,
          requiresReplace,
          diagnostics: [
            error(
              `${subject}: profile "${entry.name}" is owned by stack "${entry.stack}", not "${ctx.stack}"`,
              "Endpoints can only be added to this stack's profiles. (RESOURCE_NOT_OWNED)",
              attr('profile_id'),
            ),
          ],
        };
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
        if (!same)
          return {
            planned: out,
            requiresReplace,
            diagnostics: [
              error(
                `${subject} already exists`,
                `To manage it with Terraform, import it: terraform import <address> ${idOf(ctx, entry.name, existing.name)} (RESOURCE_EXISTS)`,
                attr('name'),
              ),
            ],
          };
      }
      const { endpoints: _all, ...settings } = entry.profile;
      const probe: ProfileInput = { ...settings, endpoints: [...ix.relatedTo(conv.value, except), conv.value] };
      const others = type === 'nestedEndpoints' ? await ctx.others(entry.name) : [];
      const found = validateProfile(probe, others.length > 0 ? { context: others } : {});
      const diagnostics = endpointChecks(found, {
        prefix: `profiles[${entry.name}].endpoints[${conv.value.name}]`,
        name: conv.value.name,
        unknown: conv.unknown,
        subject,
        configuredPriority,
      });
      const current = ix.get(out.name);
      if (before !== null && current && conv.unknown.length === 0 && !diagnostics.some((d) => d.severity === 'error')) {
        const next = normalizeEndpoint(conv.value, current.priority);
        if (diffAttributes(next, current).length > 0) {
          const same = (n: string): boolean => lower(n) === lower(next.name);
          diagnostics.push(
            ...(await liveWarnings(ctx, entry.name, (d) =>
              normalizeProfile({ ...d, endpoints: d.endpoints.map((e) => (same(e.name) ? next : e)) }),
            )),
          );
        }
      }
      return { planned: out, requiresReplace, diagnostics };
    },

    async create({ planned }, ctx) {
      const profile = profileOf(planned);
      const conv = endpointFromTf(planned, type);
      return writing(ctx, async () => {
        const r = await ctx.resources.createEndpoint(profile, conv.value, {
          importHint: `to manage it with Terraform, import it: terraform import <address> ${idOf(ctx, profile, conv.value.name)}`,
        });
        ctx.wroteEndpoint(r);
        return result(r.endpoint, r.etag, {
          id: idOf(ctx, r.profile, r.endpoint.name),
          profileId: String(planned.profile_id),
          base: planned,
        });
      });
    },

    async read(state, ctx) {
      const profile = profileOf(state);
      const r = await ctx.readEndpoint(profile, String(state.name)).catch((err: unknown) => refusal(err));
      if (!r) return null;
      checkType(r.endpoint, profile);
      return result(r.endpoint, r.etag, {
        id: typeof state.id === 'string' ? state.id : idOf(ctx, profile, r.endpoint.name),
        profileId: String(state.profile_id),
        base: state,
      });
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
      if (!parsed?.type)
        throw new DiagnosticsError(
          error(`"${id}" is not an endpoint id`, `Import an endpoint by its id, ${idOf(ctx, '<profile>', '<name>')}.`),
        );
      if (parsed.type !== type) {
        const theirs = kindOf(parsed.type);
        throw new DiagnosticsError(
          error(
            `"${id}" is the id of a ${theirs} endpoint, not a ${kind} one`,
            `Import it as tmkit_${theirs.replace('Endpoints', '').toLowerCase()}_endpoint.`,
          ),
        );
      }
      if (parsed.stack !== undefined && parsed.stack !== ctx.stack) {
        throw new DiagnosticsError(
          error(
            `the id names stack "${parsed.stack}", but this provider manages stack "${ctx.stack}"`,
            `Set stack = "${parsed.stack}" in the provider block, or import ${idOf(ctx, parsed.profile, parsed.name)}.`,
          ),
        );
      }
      const r = await ctx.resources
        .readEndpoint(parsed.profile, parsed.name, { storedProfileName: true })
        .catch((err: unknown) => refusal(err));
      if (!r)
        throw new DiagnosticsError(
          error(
            `endpoint "${parsed.profile}/${parsed.name}" does not exist on the tmkit runtime at ${ctx.client.server}`,
            'Check the id, or create it from the configuration instead of importing it.',
          ),
        );
      checkType(r.endpoint, r.profile);
      return result(r.endpoint, r.etag, {
        id: idOf(ctx, r.profile, r.endpoint.name),
        profileId: profileId(ctx.stack, r.profile, TERRAFORM_IDS),
        base: null,
      });
    },
  };
}

export const externalEndpointResource = endpointResource('externalEndpoints', externalEndpointSchema);
export const azureEndpointResource = endpointResource('azureEndpoints', azureEndpointSchema);
export const nestedEndpointResource = endpointResource('nestedEndpoints', nestedEndpointSchema);
