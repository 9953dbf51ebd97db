/**
 * `tmkit plan --from-terraform plan.json`: the tmkit/v1 document that a Terraform plan (the JSON of
 * `terraform show -json <planfile>`) would leave on the runtime, rebuilt from the planned values of every
 * tmkit_* resource, so tmkit can validate the whole planned set at once (the cross-endpoint rules one
 * resource's plan cannot see) and render its plan and routing preview. Pure.
 *
 * - Each planned tmkit_profile is one profile (settings from `change.after`); each planned endpoint joins the
 *   profile its profile_id names. Resources planned for deletion are left out, so their profiles are
 *   destroyed by the tmkit plan too. Modules are walked (resource_changes lists every module's resources).
 * - Values known only after apply: a profile_id of a profile being replaced is taken from the prior state
 *   (the name does not change with the replace); a priority the runtime will assign is the next free one,
 *   as the runtime assigns it.
 * - Endpoints keep the order the runtime has them in (`deployedOrder`), new ones after them, so the plan
 *   shows no spurious reorder.
 * - Every value Terraform marks sensitive (`after_sensitive`) is returned in `sensitive`, for the caller to
 *   mask in what it prints.
 */
import type { DocumentInput, EndpointInput, EndpointType, ProfileInput } from '../../../../src/core/model/types';
import { parseProfileRef, TERRAFORM_IDS } from '../../../../src/client/ids';
import { DEFAULT_TERRAFORM_STACK, endpointFromTf, profileSettingsFromTf, type Obj } from './convert';

export interface TerraformPlanDocument {
  document: DocumentInput;
  /** Sensitive string values to mask in output (from after_sensitive). */
  sensitive: string[];
  /** Problems with the plan file itself (not a plan, no tmkit resources, an endpoint without its profile). */
  problems: Array<{ address: string; message: string }>;
  /** How many tmkit resources the plan has (planned, not deleted). */
  resources: number;
}

const ENDPOINT_TYPES: Record<string, EndpointType> = {
  tmkit_external_endpoint: 'externalEndpoints',
  tmkit_azure_endpoint: 'azureEndpoints',
  tmkit_nested_endpoint: 'nestedEndpoints',
};

interface Change {
  address?: string;
  mode?: string;
  type?: string;
  provider_name?: string;
  change?: { actions?: string[]; before?: unknown; after?: unknown; after_unknown?: unknown; after_sensitive?: unknown };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Terraform's `after` with every `after_unknown` leaf left out (unknown = absent, as the converters expect null). */
function knownValues(after: unknown, unknown: unknown): unknown {
  if (unknown === true) return null;
  if (Array.isArray(after)) return after.map((v, i) => knownValues(v, Array.isArray(unknown) ? unknown[i] : undefined));
  if (isObj(after)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(after)) out[k] = knownValues(v, isObj(unknown) ? unknown[k] : undefined);
    if (isObj(unknown)) for (const [k, u] of Object.entries(unknown)) if (u === true && !(k in out)) out[k] = null;
    return out;
  }
  return after ?? null;
}

function sensitiveStrings(value: unknown, marks: unknown, out: string[]): void {
  if (marks === true) {
    const walk = (v: unknown): void => {
      if (typeof v === 'string' && v !== '') out.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (isObj(v)) Object.values(v).forEach(walk);
    };
    walk(value);
    return;
  }
  if (Array.isArray(marks) && Array.isArray(value)) for (const [i, m] of marks.entries()) sensitiveStrings(value[i], m, out);
  else if (isObj(marks) && isObj(value)) for (const [k, m] of Object.entries(marks)) sensitiveStrings(value[k], m, out);
}

/** The provider's stack from the plan's configuration (provider "tmkit" { stack = "…" } as a constant), else the default. */
function stackOf(plan: Record<string, unknown>): string {
  const config = plan.configuration;
  const providers = isObj(config) && isObj(config.provider_config) ? config.provider_config : {};
  for (const p of Object.values(providers)) {
    if (!isObj(p) || p.name !== 'tmkit') continue;
    const stack = isObj(p.expressions) && isObj(p.expressions.stack) ? p.expressions.stack.constant_value : undefined;
    if (typeof stack === 'string') return stack;
  }
  return DEFAULT_TERRAFORM_STACK;
}

/**
 * The document a Terraform plan describes. `deployedOrder(profile)` gives the runtime's endpoint names of
 * a profile in its order (for a stable plan without spurious reorders).
 */
export function documentFromTerraformPlan(plan: unknown, deployedOrder: (profile: string) => string[] = () => []): TerraformPlanDocument {
  const problems: TerraformPlanDocument['problems'] = [];
  const sensitive: string[] = [];
  if (!isObj(plan) || (!Array.isArray(plan.resource_changes) && !isObj(plan.planned_values))) {
    return {
      document: { apiVersion: 'tmkit/v1', stack: DEFAULT_TERRAFORM_STACK, profiles: [] },
      sensitive,
      resources: 0,
      problems: [
        {
          address: '$',
          message:
            'this is not the JSON of a Terraform plan: write it with `terraform plan -out tfplan && terraform show -json tfplan > plan.json`',
        },
      ],
    };
  }
  const stack = stackOf(plan);
  const changes = (Array.isArray(plan.resource_changes) ? plan.resource_changes : []) as Change[];
  const profiles = new Map<string, ProfileInput>();
  const endpoints: Array<{ address: string; profile: string; endpoint: EndpointInput; priorityUnknown: boolean }> = [];
  let resources = 0;
  for (const c of changes) {
    if (c.mode !== 'managed' || typeof c.type !== 'string' || !c.type.startsWith('tmkit_')) continue;
    const after = c.change?.after;
    if (!isObj(after)) continue; // deleted
    resources++;
    const address = c.address ?? c.type;
    sensitiveStrings(after, c.change?.after_sensitive, sensitive);
    const values = knownValues(after, c.change?.after_unknown) as Obj;
    if (c.type === 'tmkit_profile') {
      const conv = profileSettingsFromTf(values);
      if (!conv.value.name) {
        problems.push({ address, message: 'the profile name is not known at plan time' });
        continue;
      }
      profiles.set(conv.value.name.toLowerCase(), { ...conv.value, endpoints: [] });
      continue;
    }
    const type = ENDPOINT_TYPES[c.type];
    if (!type) continue;
    let pid = values.profile_id;
    if (typeof pid !== 'string') {
      const before = c.change?.before;
      pid = isObj(before) && typeof before.profile_id === 'string' ? before.profile_id : null;
    }
    const parent = typeof pid === 'string' ? parseProfileRef(pid, TERRAFORM_IDS)?.name : undefined;
    if (!parent) {
      problems.push({
        address,
        message: 'its profile_id is not known at plan time; plan again once the profile exists, or reference the profile by its id',
      });
      continue;
    }
    const conv = endpointFromTf(values, type);
    endpoints.push({ address, profile: parent, endpoint: conv.value, priorityUnknown: conv.value.priority === undefined });
  }
  for (const e of endpoints) {
    const p = profiles.get(e.profile.toLowerCase());
    if (!p) {
      problems.push({ address: e.address, message: `its profile "${e.profile}" is not a tmkit_profile of this plan` });
      continue;
    }
    p.endpoints!.push(e.endpoint);
  }
  for (const p of profiles.values()) {
    const order = deployedOrder(p.name).map((n) => n.toLowerCase());
    const rank = (name: string): number => {
      const i = order.indexOf(name.toLowerCase());
      return i < 0 ? order.length : i;
    };
    p.endpoints = p
      .endpoints!.map((e, i) => ({ e, i }))
      .sort((a, b) => rank(a.e.name) - rank(b.e.name) || a.i - b.i)
      .map((x) => x.e);
    // The runtime gives an endpoint written without a priority the next free one.
    const list = p.endpoints;
    if (list.some((e) => e.priority !== undefined)) {
      let next = Math.max(0, ...list.map((e) => e.priority ?? 0));
      for (const e of list) if (e.priority === undefined) e.priority = Math.min(1000, ++next);
    }
  }
  const sorted = [...profiles.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (resources === 0) problems.push({ address: '$', message: 'the plan has no tmkit_* resources' });
  return {
    document: { apiVersion: 'tmkit/v1', stack, profiles: sorted },
    sensitive: [...new Set(sensitive)].sort((a, b) => b.length - a.length),
    problems,
    resources,
  };
}

/** `text` with every sensitive value replaced by `(sensitive value)`. */
export function maskSensitive(text: string, sensitive: readonly string[]): string {
  let out = text;
  for (const s of sensitive) out = out.split(s).join('(sensitive value)');
  return out;
}
