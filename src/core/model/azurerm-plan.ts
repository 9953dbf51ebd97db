/**
 * Azure's own Traffic Manager changes, previewed: a Terraform plan's `azurerm_traffic_manager_profile`,
 * `_azure_endpoint`, `_external_endpoint` and `_nested_endpoint` resource changes (the JSON of
 * `terraform show -json tfplan`, azurerm 3.x and 4.x: blocks as lists of one object or as objects) as two
 * `tmkit/v1` documents: `before`, what Azure has (the prior state), and `after`, what the plan leaves.
 * The attributes become Azure's ARM properties and go through the ARM import mapping (arm-import.ts), so an
 * azurerm plan, an ARM template and `az ... profile show` output are read by one mapping. Pure.
 *
 * - Joins: an endpoint's `profile_id` (an ARM id) names its profile, matched by id or by resource group and
 *   name; when it is unknown until apply (a new or replaced profile), the configuration's reference
 *   (`configuration.root_module.resources[].expressions.profile_id.references`, modules included) names the
 *   profile resource. A nested endpoint's `target_resource_id` joins its child profile the same way.
 * - Unknown until apply (`after_unknown`), each said in `notes`: an endpoint's priority (the next free one,
 *   as Azure assigns it), an Azure endpoint's `target_resource_id` (previewed as the resource the
 *   configuration references), an external or nested endpoint's `endpoint_location`.
 * - Azure endpoints answer with their resource's DNS name and sit in its region, which an azurerm endpoint
 *   does not hold: `catalog` gives each one found as a resource of the plan (its `default_hostname`, `fqdn`
 *   or `ip_address`, and `location`), else a stand-in named after the resource (`<app>.azurewebsites.net`
 *   for a Web App), said in `notes`.
 * - `addresses` maps `profiles[name]` and `profiles[name].endpoints[name]` paths to resource addresses, so a
 *   diagnostic can name the resource that causes it.
 */
import type { Diagnostic } from '../diagnostics';
import { importArm } from './arm-import';
import { isObj, type Obj } from './arm-shape';
import type { ResourceCatalogRecord } from './catalog';
import type { DocumentInput, Profile } from './types';

export const AZURERM_PROFILE = 'azurerm_traffic_manager_profile';
export const AZURERM_ENDPOINTS: Record<string, 'azureEndpoints' | 'externalEndpoints' | 'nestedEndpoints'> = {
  azurerm_traffic_manager_azure_endpoint: 'azureEndpoints',
  azurerm_traffic_manager_external_endpoint: 'externalEndpoints',
  azurerm_traffic_manager_nested_endpoint: 'nestedEndpoints',
};
/** The stack an Azure preview's documents carry (Azure has none; the plan compares like with like). */
export const AZURE_PREVIEW_STACK = 'azure';

export interface AzurermPlanDocuments {
  /** What Azure has: the prior state of every resource the plan reads. */
  before: DocumentInput;
  /** What the plan leaves. */
  after: DocumentInput;
  /** Unknown-until-apply values and stand-ins, one sentence each. */
  notes: string[];
  /** Problems with the plan file itself (not a plan, an endpoint without its profile). */
  problems: Array<{ address: string; message: string }>;
  /**
   * What the ARM mapping could not carry over faithfully (tmkit/v1 paths), and what Terraform's way of
   * applying risks (`AZURE_PRIORITY_SWAP`: one endpoint resource takes a priority another still has).
   */
  issues: Diagnostic[];
  /** `profiles[name]` / `profiles[name].endpoints[name]` (lower-case) → resource address. */
  addresses: Record<string, string>;
  /** Azure endpoints' resources: ARM id → target and region, as far as the plan tells. */
  catalog: ResourceCatalogRecord;
  /** The catalog's stand-ins (resources the plan does not describe): ARM id → the sentence that says so. */
  standIns: Record<string, string>;
  /** Sensitive string values (after_sensitive / before_sensitive) to mask in output. */
  sensitive: string[];
  /** How many azurerm Traffic Manager resources the plan has. */
  resources: number;
}

interface Change {
  address?: string;
  mode?: string;
  type?: string;
  index?: unknown;
  change?: {
    actions?: string[];
    before?: unknown;
    after?: unknown;
    after_unknown?: unknown;
    after_sensitive?: unknown;
    before_sensitive?: unknown;
  };
}

/** One resource on one side of the plan. */
interface Side {
  address: string;
  type: string;
  values: Obj;
  /** Attribute names whose after-value is unknown until apply (top level). */
  unknown: Set<string>;
}

/** Whether the JSON holds azurerm Traffic Manager resource changes. */
export function hasAzurermTrafficManager(plan: unknown): boolean {
  return changesOf(plan).some((c) => c.mode === 'managed' && isTmType(c.type));
}

const isTmType = (t: unknown): t is string => typeof t === 'string' && (t === AZURERM_PROFILE || t in AZURERM_ENDPOINTS);

function changesOf(plan: unknown): Change[] {
  return isObj(plan) && Array.isArray(plan.resource_changes) ? (plan.resource_changes.filter(isObj) as Change[]) : [];
}

/** `after` with every `after_unknown` leaf null (unknown = absent). */
function knownValues(after: unknown, unknown: unknown): unknown {
  if (unknown === true) return null;
  if (Array.isArray(after)) return after.map((v, i) => knownValues(v, Array.isArray(unknown) ? unknown[i] : undefined));
  if (isObj(after)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(after)) out[k] = knownValues(v, isObj(unknown) ? unknown[k] : undefined);
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

/** A block: azurerm 3.x/4.x print a single block as a list of one object; accept the object too. */
function block(v: unknown): Obj | undefined {
  if (Array.isArray(v)) return isObj(v[0]) ? v[0] : undefined;
  return isObj(v) ? v : undefined;
}

function blocks(v: unknown): Obj[] {
  if (Array.isArray(v)) return v.filter(isObj);
  return isObj(v) ? [v] : [];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `a.b[0]` → `a.b` (the configuration address of a resource instance). */
const configAddress = (address: string): string => address.replace(/\[[^\]]*\]/g, '');
const indexKey = (address: string): string => /(\[[^\]]*\])$/.exec(address)?.[1] ?? '';

/** `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/trafficManagerProfiles/name` → rg, name. */
function profileIdParts(id: string): { group: string; name: string } | undefined {
  const m = /\/resourcegroups\/([^/]+)\/providers\/microsoft\.network\/trafficmanagerprofiles\/([^/]+)\/?$/i.exec(id.trim());
  return m ? { group: m[1]!.toLowerCase(), name: m[2]!.toLowerCase() } : undefined;
}

/** The configuration's resources by full address (`module.a.azurerm_x.y`), with their expressions. */
function configResources(plan: Obj): Map<string, Obj> {
  const out = new Map<string, Obj>();
  const walk = (mod: unknown, prefix: string): void => {
    if (!isObj(mod)) return;
    for (const r of Array.isArray(mod.resources) ? mod.resources : []) {
      if (isObj(r) && typeof r.address === 'string') out.set(`${prefix}${r.address}`, isObj(r.expressions) ? r.expressions : {});
    }
    if (isObj(mod.module_calls)) {
      for (const [name, call] of Object.entries(mod.module_calls)) {
        if (isObj(call)) walk(call.module, `${prefix}module.${name}.`);
      }
    }
  };
  walk(isObj(plan.configuration) ? plan.configuration.root_module : undefined, '');
  return out;
}

/** The references of an attribute's expression, made absolute (module prefix of the referring resource). */
function references(config: Map<string, Obj>, address: string, attribute: string): string[] {
  const at = configAddress(address);
  const expr = config.get(at)?.[attribute];
  const refs = isObj(expr) && Array.isArray(expr.references) ? expr.references.filter((r): r is string => typeof r === 'string') : [];
  const prefix = at.slice(0, at.length - at.split('.').slice(-2).join('.').length);
  return refs.map((r) => `${prefix}${r}`);
}

/**
 * The resource (of `candidates`) an attribute's configuration references: by exact instance address,
 * else by configuration address (one instance, or the one with the referring resource's index key).
 */
function referenced(
  config: Map<string, Obj>,
  from: Side | { address: string },
  attribute: string,
  candidates: readonly Side[],
): Side | undefined {
  for (const ref of references(config, from.address, attribute)) {
    const bare = ref.replace(/\.(id|name)$/, '');
    const exact = candidates.find((c) => c.address === bare);
    if (exact) return exact;
    const same = candidates.filter((c) => configAddress(c.address) === configAddress(bare));
    if (same.length === 1) return same[0];
    const byKey = same.find((c) => indexKey(c.address) === indexKey(from.address));
    if (byKey) return byKey;
  }
  return undefined;
}

function armProfile(p: Side): Obj {
  const v = p.values;
  const dns = block(v.dns_config);
  const mon = block(v.monitor_config);
  const method = str(v.traffic_routing_method);
  const props: Obj = {
    profileStatus: str(v.profile_status) ?? 'Enabled',
    trafficRoutingMethod: method,
    dnsConfig: { relativeName: str(dns?.relative_name), ttl: num(dns?.ttl) },
    endpoints: [],
  };
  if (mon) {
    props.monitorConfig = {
      protocol: str(mon.protocol),
      port: num(mon.port),
      path: str(mon.path),
      intervalInSeconds: num(mon.interval_in_seconds),
      timeoutInSeconds: num(mon.timeout_in_seconds),
      toleratedNumberOfFailures: num(mon.tolerated_number_of_failures),
      customHeaders: blocks(mon.custom_header).map((h) => ({ name: h.name, value: h.value })),
      expectedStatusCodeRanges: (Array.isArray(mon.expected_status_code_ranges) ? mon.expected_status_code_ranges : []).flatMap((r) => {
        const m = typeof r === 'string' ? /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(r) : null;
        return m ? [{ min: Number(m[1]), max: Number(m[2] ?? m[1]) }] : [];
      }),
    };
  }
  if (typeof v.traffic_view_enabled === 'boolean') props.trafficViewEnrollmentStatus = v.traffic_view_enabled ? 'Enabled' : 'Disabled';
  if (method === 'MultiValue' && num(v.max_return) !== undefined) props.maxReturn = v.max_return;
  const tags = isObj(v.tags) && Object.keys(v.tags).length > 0 ? v.tags : undefined;
  return { name: str(v.name), type: 'Microsoft.Network/trafficManagerProfiles', properties: props, ...(tags ? { tags } : {}) };
}

function armEndpoint(e: Side, type: string, targetResourceId: string | undefined): Obj {
  const v = e.values;
  const props: Obj = {
    endpointStatus: v.enabled === false ? 'Disabled' : 'Enabled',
    weight: num(v.weight),
    priority: num(v.priority),
    geoMapping: Array.isArray(v.geo_mappings) ? v.geo_mappings : undefined,
    subnets: blocks(v.subnet).map((s) => ({ first: s.first, last: str(s.last), scope: num(s.scope) })),
    customHeaders: blocks(v.custom_header).map((h) => ({ name: h.name, value: h.value })),
  };
  if (v.always_serve_enabled === true) props.alwaysServe = 'Enabled';
  if (type === 'externalEndpoints') props.target = str(v.target);
  else props.targetResourceId = targetResourceId;
  if (type !== 'azureEndpoints') props.endpointLocation = str(v.endpoint_location);
  if (type === 'nestedEndpoints') {
    props.minChildEndpoints = num(v.minimum_child_endpoints);
    props.minChildEndpointsIPv4 = num(v.minimum_required_child_endpoints_ipv4);
    props.minChildEndpointsIPv6 = num(v.minimum_required_child_endpoints_ipv6);
  }
  // Unset values (null) are left out by the ARM mapping; so are empty lists.
  for (const k of ['subnets', 'customHeaders'] as const) if ((props[k] as unknown[]).length === 0) delete props[k];
  return { name: str(v.name), type: `Microsoft.Network/trafficManagerProfiles/${type}`, properties: props };
}

/** A resource's DNS name and region, from its attributes in the plan (Web Apps, public IPs, ...). */
function resourceFacts(values: Obj): { target?: string; location?: string } {
  const target = str(values.default_hostname) ?? str(values.default_site_hostname) ?? str(values.fqdn) ?? str(values.ip_address);
  const location = str(values.location);
  return { ...(target ? { target } : {}), ...(location ? { location } : {}) };
}

/** The ARM resource type of an azurerm resource type an Azure endpoint can target. */
function armType(type: string | undefined): string {
  if (type === undefined) return 'Terraform.Plan/unknown';
  if (/^azurerm_(linux_|windows_)?(web_app|function_app|app_service)$/.test(type)) return 'Microsoft.Web/sites';
  if (type === 'azurerm_public_ip') return 'Microsoft.Network/publicIPAddresses';
  return `Terraform.Plan/${type}`;
}

/** A stand-in DNS name for an Azure resource the plan does not describe. */
export function standInTarget(id: string): string {
  const m = /\/providers\/([^/]+\/[^/]+)\/([^/]+)/i.exec(id);
  const kind = m?.[1]?.toLowerCase();
  const name = (m?.[2] ?? id.split('/').filter(Boolean).pop() ?? 'resource').toLowerCase();
  if (kind === 'microsoft.web/sites') return `${name}.azurewebsites.net`;
  if (kind === 'microsoft.classiccompute/domainnames') return `${name}.cloudapp.net`;
  return `${name}.azure-resource.invalid`;
}

const NOT_A_PLAN =
  'this is not the JSON of a Terraform plan: write it with `terraform plan -out tfplan && terraform show -json tfplan > plan.json`';

/** The before and after documents of a Terraform plan's azurerm Traffic Manager resources. Never throws. */
export function azurermPlanDocuments(plan: unknown): AzurermPlanDocuments {
  const empty = (): DocumentInput => ({ apiVersion: 'tmkit/v1', stack: AZURE_PREVIEW_STACK, profiles: [] });
  const result: AzurermPlanDocuments = {
    before: empty(),
    after: empty(),
    notes: [],
    problems: [],
    issues: [],
    addresses: {},
    catalog: {},
    standIns: {},
    sensitive: [],
    resources: 0,
  };
  if (!isObj(plan) || !Array.isArray(plan.resource_changes)) {
    result.problems.push({ address: '$', message: NOT_A_PLAN });
    return result;
  }
  const config = configResources(plan);
  const all = changesOf(plan);
  const sides = { before: [] as Side[], after: [] as Side[] };
  // Every resource of the plan on each side (for Azure endpoints' resources and references).
  const others = { before: [] as Side[], after: [] as Side[] };
  for (const c of all) {
    const address = c.address ?? String(c.type);
    const before = c.change?.before;
    const after = c.change?.after;
    const unknownMarks = c.change?.after_unknown;
    const unknown = new Set(isObj(unknownMarks) ? Object.keys(unknownMarks).filter((k) => unknownMarks[k] === true) : []);
    const tm = c.mode === 'managed' && isTmType(c.type);
    if (tm) {
      result.resources++;
      sensitiveStrings(before, c.change?.before_sensitive, result.sensitive);
      sensitiveStrings(after, c.change?.after_sensitive, result.sensitive);
    }
    const type = String(c.type);
    if (isObj(before)) (tm ? sides.before : others.before).push({ address, type, values: before, unknown: new Set() });
    if (isObj(after)) (tm ? sides.after : others.after).push({ address, type, values: knownValues(after, unknownMarks) as Obj, unknown });
    else if (tm && isObj(before) && c.change?.actions?.includes('forget')) {
      // `removed { lifecycle { destroy = false } }`: Terraform forgets it, Azure keeps it.
      sides.after.push({ address, type, values: before, unknown: new Set() });
      result.notes.push(`${address}: leaves the Terraform state only (forget); Azure keeps it as it is`);
    }
  }
  if (result.resources === 0) {
    result.problems.push({ address: '$', message: 'the plan has no azurerm_traffic_manager_* resources' });
    return result;
  }

  const build = (side: 'before' | 'after'): DocumentInput => {
    const list = sides[side];
    const profiles = list.filter((r) => r.type === AZURERM_PROFILE);
    const endpoints = list.filter((r) => r.type !== AZURERM_PROFILE);
    const arm = new Map<Side, Obj>();
    for (const p of profiles) {
      if (str(p.values.name) === undefined) {
        if (side === 'after') result.problems.push({ address: p.address, message: 'the profile name is not known at plan time' });
        continue;
      }
      arm.set(p, armProfile(p));
      result.addresses[`profiles[${String(p.values.name).toLowerCase()}]`] = p.address;
    }
    const byId = (id: string | undefined): Side | undefined => {
      if (id === undefined) return undefined;
      const exact = profiles.find((p) => str(p.values.id)?.toLowerCase() === id.toLowerCase());
      if (exact) return exact;
      const parts = profileIdParts(id);
      return parts
        ? profiles.find(
            (p) => str(p.values.name)?.toLowerCase() === parts.name && str(p.values.resource_group_name)?.toLowerCase() === parts.group,
          )
        : undefined;
    };
    const join = (e: Side, attribute: string): Side | undefined => {
      const id = str(e.values[attribute]);
      if (id !== undefined) return byId(id);
      const p = referenced(config, e, attribute, profiles);
      if (p && side === 'after' && e.unknown.has(attribute)) {
        result.notes.push(`${e.address}: ${attribute} is known after apply; joined to ${p.address}, which the configuration references`);
      }
      return p;
    };
    for (const e of endpoints) {
      const type = AZURERM_ENDPOINTS[e.type]!;
      const profile = join(e, 'profile_id');
      const parent = profile ? arm.get(profile) : undefined;
      if (!profile || !parent) {
        const id = str(e.values.profile_id);
        result.problems.push({
          address: e.address,
          message:
            id !== undefined
              ? `its profile_id ${id} is not an azurerm_traffic_manager_profile of this plan: plan the profile in the same configuration`
              : 'its profile_id is not known at plan time and the configuration does not reference an azurerm_traffic_manager_profile of this plan',
        });
        continue;
      }
      let targetResourceId: string | undefined = str(e.values.target_resource_id);
      if (type === 'nestedEndpoints') {
        const child = join(e, 'target_resource_id');
        if (child && str(child.values.name)) targetResourceId = String(child.values.name);
        else if (targetResourceId === undefined) {
          result.problems.push({
            address: e.address,
            message: 'its target_resource_id is not known at plan time and the configuration references no profile of this plan',
          });
          continue;
        }
      } else if (type === 'azureEndpoints') {
        targetResourceId = azureTarget(e, side, targetResourceId);
      }
      const name = str(e.values.name);
      if (name === undefined) {
        if (side === 'after') result.problems.push({ address: e.address, message: 'the endpoint name is not known at plan time' });
        continue;
      }
      const ep = armEndpoint(e, type, targetResourceId);
      const props = ep.properties as Obj;
      if (
        side === 'after' &&
        e.unknown.has('priority') &&
        parent.properties &&
        (parent.properties as Obj).trafficRoutingMethod === 'Priority'
      ) {
        props.priority = undefined;
        (ep as Obj).priorityUnknown = true;
      }
      if (side === 'after' && e.unknown.has('endpoint_location') && type !== 'azureEndpoints') {
        const method = (parent.properties as Obj).trafficRoutingMethod;
        if (method === 'Performance') {
          result.notes.push(`${e.address}: endpoint_location is known after apply; the preview has the endpoint without a region`);
        }
      }
      ((parent.properties as Obj).endpoints as Obj[]).push(ep);
      result.addresses[`profiles[${String(profile.values.name).toLowerCase()}].endpoints[${name.toLowerCase()}]`] = e.address;
    }
    // Azure gives an endpoint created without a priority the next free one.
    for (const [p, a] of arm) {
      const eps = (a.properties as Obj).endpoints as Obj[];
      let next = Math.max(0, ...eps.map((x) => num((x.properties as Obj).priority) ?? 0));
      for (const x of eps) {
        if (x.priorityUnknown !== true) continue;
        delete x.priorityUnknown;
        const props = x.properties as Obj;
        if (props.priority === undefined) {
          props.priority = Math.min(1000, ++next);
          result.notes.push(
            `${result.addresses[`profiles[${String(p.values.name).toLowerCase()}].endpoints[${String(x.name).toLowerCase()}]`] ?? x.name}: ` +
              `priority is known after apply; previewed as ${String(props.priority)}, the next free one Azure assigns`,
          );
        }
      }
    }
    if (arm.size === 0) return empty();
    const imported = importArm({ value: [...arm.values()] }, { stack: AZURE_PREVIEW_STACK });
    for (const i of imported.issues) {
      if (!result.issues.some((x) => x.code === i.code && x.path === i.path && x.message === i.message)) result.issues.push(i);
    }
    return imported.document ?? empty();
  };

  /** An Azure endpoint's resource id (a stand-in when unknown until apply), and its catalog entry. */
  const azureTarget = (e: Side, side: 'before' | 'after', id: string | undefined): string => {
    const pool = [...others[side], ...others.before];
    let resource: Side | undefined;
    let rid = id;
    if (rid === undefined) {
      resource = referenced(config, e, 'target_resource_id', others[side]);
      const ref = resource?.address ?? references(config, e.address, 'target_resource_id')[0] ?? 'an unknown resource';
      const v = resource?.values ?? {};
      const seg = (x: unknown, fallback: string): string => encodeURIComponent(str(x) ?? fallback);
      rid =
        `/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${seg(v.resource_group_name, 'known-after-apply')}` +
        `/providers/${armType(resource?.type)}/${seg(v.name, ref.replace(/[^A-Za-z0-9._-]+/g, '_'))}`;
      result.notes.push(`${e.address}: target_resource_id is known after apply (${ref}); previewed as that resource`);
    } else {
      resource = pool.find((r) => str(r.values.id)?.toLowerCase() === rid!.toLowerCase());
    }
    if (result.catalog[rid] === undefined) {
      const facts = resource ? resourceFacts(resource.values) : {};
      if (facts.target === undefined) {
        facts.target = standInTarget(rid);
        result.standIns[rid] =
          `${e.address}: the plan does not say what its Azure resource answers with; previewed as ${facts.target}` +
          (facts.location ? '' : ' without a region') +
          ' (pass --resources with the real target and region)';
      }
      result.catalog[rid] = { target: facts.target, ...(facts.location ? { location: facts.location } : {}), state: 'running' };
    }
    return rid;
  };

  result.before = build('before');
  result.after = build('after');
  result.issues.push(...prioritySwaps(result.before, result.after, result.addresses));
  result.notes = [...new Set(result.notes)];
  result.problems = result.problems.filter(
    (x, i) => result.problems.findIndex((y) => y.address === x.address && y.message === x.message) === i,
  );
  result.sensitive = [...new Set(result.sensitive)].sort((a, b) => b.length - a.length);
  return result;
}

/**
 * Terraform updates each endpoint resource on its own (in parallel, in no set order), and Azure keeps the
 * priorities of a profile unique at every step: an endpoint that takes a priority another endpoint holds
 * until its own update is refused whenever it goes first (a swap always is).
 */
function prioritySwaps(before: DocumentInput, after: DocumentInput, addresses: Record<string, string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of after.profiles ?? []) {
    if (p.trafficRoutingMethod !== 'Priority') continue;
    const old = (before.profiles ?? []).find((b) => b.name.toLowerCase() === p.name.toLowerCase());
    if (!old) continue;
    const now = new Map((p.endpoints ?? []).map((e) => [e.name.toLowerCase(), e.priority]));
    for (const e of p.endpoints ?? []) {
      const prior = (old.endpoints ?? []).find((o) => o.name.toLowerCase() === e.name.toLowerCase());
      if (!prior || e.priority === undefined || prior.priority === e.priority) continue;
      const holder = (old.endpoints ?? []).find(
        (o) => o !== prior && o.priority === e.priority && now.has(o.name.toLowerCase()) && now.get(o.name.toLowerCase()) !== o.priority,
      );
      if (!holder) continue;
      const at = `profiles[${p.name}].endpoints[${e.name}]`;
      const other = addresses[`profiles[${p.name}].endpoints[${holder.name}]`.toLowerCase()] ?? holder.name;
      out.push({
        severity: 'warning',
        code: 'AZURE_PRIORITY_SWAP',
        path: `${at}.priority`,
        message:
          `takes priority ${String(e.priority)} from ${other}, which holds it until its own update: ` +
          'Terraform updates each endpoint on its own, so Azure refuses whichever update would leave two endpoints sharing a priority',
        hint: 'move one endpoint to a free priority first (one apply), then give each its new priority (a second apply)',
      });
    }
  }
  return out;
}

/** The azurerm resources of one normalized profile: the reverse of the mapping above. */
export interface AzurermProfileResources {
  profile: Obj;
  endpoints: Array<{ type: string; attributes: Obj }>;
}

const ENDPOINT_RESOURCE: Record<string, string> = {
  azureEndpoints: 'azurerm_traffic_manager_azure_endpoint',
  externalEndpoints: 'azurerm_traffic_manager_external_endpoint',
  nestedEndpoints: 'azurerm_traffic_manager_nested_endpoint',
};

/**
 * A normalized profile as azurerm's resources hold it (3.x/4.x attributes, blocks as lists), in resource group
 * `group` of `subscription`. What azurerm cannot hold is left out: tmkit's extensions (failback, performanceLatency, the monitor's
 * certificate settings), `allowedEndpointRecordTypes`, and an Azure endpoint's inline target and location.
 * Mapping these back through `azurermPlanDocuments` gives the profile again.
 */
export function azurermResources(p: Profile, subscription: string, group: string): AzurermProfileResources {
  const id = `/subscriptions/${subscription}/resourceGroups/${group}/providers/Microsoft.Network/trafficManagerProfiles/${p.name}`;
  const m = p.monitorConfig;
  const profile: Obj = {
    id,
    name: p.name,
    resource_group_name: group,
    profile_status: p.profileStatus,
    traffic_routing_method: p.trafficRoutingMethod,
    dns_config: [{ relative_name: p.dnsConfig.relativeName, ttl: p.dnsConfig.ttl }],
    monitor_config: [
      {
        protocol: m.protocol,
        port: m.port,
        path: m.path ?? null,
        interval_in_seconds: m.intervalInSeconds,
        timeout_in_seconds: m.timeoutInSeconds,
        tolerated_number_of_failures: m.toleratedNumberOfFailures,
        custom_header: (m.customHeaders ?? []).map((h) => ({ name: h.name, value: h.value })),
        expected_status_code_ranges: (m.expectedStatusCodeRanges ?? []).map((r) => `${r.min}-${r.max}`),
      },
    ],
    traffic_view_enabled: p.trafficViewEnrollmentStatus === 'Enabled',
    max_return: p.trafficRoutingMethod === 'MultiValue' ? (p.maxReturn ?? null) : 0,
    tags: { ...(p.tags ?? {}) },
    fqdn: null,
    timeouts: null,
  };
  const endpoints = p.endpoints.map((e) => {
    const type = ENDPOINT_RESOURCE[e.type]!;
    const attributes: Obj = {
      id: `${id}/${e.type.charAt(0).toUpperCase()}${e.type.slice(1)}/${e.name}`,
      name: e.name,
      profile_id: id,
      enabled: e.endpointStatus !== 'Disabled',
      weight: e.weight,
      priority: e.priority,
      geo_mappings: e.geoMapping.length > 0 ? [...e.geoMapping] : null,
      subnet: e.subnets.map((x) => ({ first: x.first, last: x.last ?? null, scope: x.scope ?? null })),
      custom_header: e.customHeaders.map((h) => ({ name: h.name, value: h.value })),
      timeouts: null,
    };
    if (e.type !== 'nestedEndpoints') attributes.always_serve_enabled = e.alwaysServe === 'Enabled';
    if (e.type === 'externalEndpoints') attributes.target = e.target ?? null;
    else if (e.type === 'azureEndpoints') attributes.target_resource_id = e.targetResourceId ?? null;
    else {
      const child = e.targetResourceId ?? '';
      attributes.target_resource_id = child.includes('/')
        ? child
        : `/subscriptions/${subscription}/resourceGroups/${group}/providers/Microsoft.Network/trafficManagerProfiles/${child}`;
      attributes.minimum_child_endpoints = e.minChildEndpoints ?? 1;
      attributes.minimum_required_child_endpoints_ipv4 = e.minChildEndpointsIPv4 ?? null;
      attributes.minimum_required_child_endpoints_ipv6 = e.minChildEndpointsIPv6 ?? null;
    }
    if (e.type !== 'azureEndpoints') attributes.endpoint_location = e.endpointLocation ?? null;
    return { type, attributes };
  });
  return { profile, endpoints };
}

/** `text` with every sensitive value replaced by `(sensitive value)`. */
export function maskSensitiveValues(text: string, sensitive: readonly string[]): string {
  let out = text;
  for (const s of sensitive) out = out.split(s).join('(sensitive value)');
  return out;
}
