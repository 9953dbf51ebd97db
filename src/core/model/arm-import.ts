/**
 * Converts the JSON Azure prints for Traffic Manager profiles into a `tmkit/v1` document (pure).
 *
 * Accepted inputs (detected by shape, see `detectArmInput`):
 * - one profile resource as the REST API / `az rest` / `az resource show` print it: `{id, name, type,
 *   location, properties: {profileStatus, trafficRoutingMethod, dnsConfig, monitorConfig, endpoints: [...]}}`;
 * - the same, flattened as `az network traffic-manager profile show` prints it (no `properties` wrapper);
 * - an array of those, or a list response `{value: [...]}`;
 * - an ARM template (`{resources: [...]}`) holding `Microsoft.Network/trafficManagerProfiles` resources, with
 *   endpoints inline, as child resources (`resources`) or as top-level endpoint resources named
 *   `<profile>/<endpoint>`. ARM expressions are evaluated only in their simplest literal forms
 *   (`[parameters('x')]` / `[variables('x')]` with a literal value, `[resourceId('...trafficManagerProfiles', 'x')]`).
 *
 * Read-only properties (`id`, `fqdn`, `profileMonitorStatus`, `endpointMonitorStatus`, a nested endpoint's
 * `target`, ...) are dropped; `null` values and empty optional lists are omitted; `weight` is kept only in
 * Weighted profiles and `priority` only in Priority profiles (Azure prints both on every endpoint). A nested endpoint's
 * `targetResourceId` becomes the child profile's name when that profile is part of the import, else the
 * ARM id is kept (tmkit accepts ids ending in `/trafficManagerProfiles/<name>`); tmkit's own ids
 * (`/providers/Microsoft.Network/trafficManagerProfiles/<name>`, from `tmkit get --output arm`) become the
 * name again. Everything that could
 * not be converted faithfully is reported as an issue with a `tmkit/v1` path; nothing is thrown.
 */
import { profileNameOfTmkitId } from './arm-export';
import { childProfileName, parseEndpointType } from './names';
import {
  API_VERSION,
  type DocumentInput,
  type EndpointInput,
  type EndpointSubnet,
  type MonitorConfigInput,
  type MonitorHeader,
  type ProfileInput,
  type StatusCodeRange,
} from './types';
import type { Diagnostic, Severity } from '../diagnostics';

export interface ArmImportOptions {
  /** The `stack` of the produced document; omitted (the default stack) when undefined. */
  stack?: string;
}

export interface ArmImportResult {
  /** Undefined only when the input held no profile at all. */
  document?: DocumentInput;
  issues: Diagnostic[];
}

export type ArmInputKind = 'tmkit' | 'arm-profile' | 'arm-profile-list' | 'arm-template' | 'unknown';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const PROFILE_TYPE = 'microsoft.network/trafficmanagerprofiles';

function isProfileResource(v: unknown): v is Obj {
  if (!isObj(v)) return false;
  if (typeof v.type === 'string') return v.type.trim().toLowerCase() === PROFILE_TYPE;
  // `type` missing: accept anything that clearly is a profile (REST PUT bodies omit it).
  const p = isObj(v.properties) ? v.properties : v;
  return typeof p.trafficRoutingMethod === 'string' && 'name' in v;
}

/** What kind of input this is: a tmkit document, ARM profile(s), an ARM template, or unknown. */
export function detectArmInput(input: unknown): ArmInputKind {
  if (isObj(input) && typeof input.apiVersion === 'string' && input.apiVersion.startsWith('tmkit/')) return 'tmkit';
  if (isObj(input) && Array.isArray(input.resources)) return 'arm-template';
  if (Array.isArray(input)) return input.length > 0 && input.every(isProfileResource) ? 'arm-profile-list' : 'unknown';
  if (isObj(input) && Array.isArray(input.value) && input.value.every(isProfileResource)) return 'arm-profile-list';
  if (isProfileResource(input)) return 'arm-profile';
  return 'unknown';
}

// ---------------------------------------------------------------------------------------------------
// Canonical key order (shared with the constructs' synthesis so every document tmkit writes looks alike)

const PROFILE_KEYS = [
  'name',
  'profileStatus',
  'trafficRoutingMethod',
  'dnsConfig',
  'monitorConfig',
  'maxReturn',
  'trafficViewEnrollmentStatus',
  'allowedEndpointRecordTypes',
  'tags',
  'failback',
  'endpoints',
] as const;
const FAILBACK_KEYS = ['mode', 'successesToRecover', 'holdDownSeconds'] as const;
const DNS_KEYS = ['relativeName', 'ttl'] as const;
const MONITOR_KEYS = [
  'protocol',
  'port',
  'path',
  'intervalInSeconds',
  'timeoutInSeconds',
  'toleratedNumberOfFailures',
  'customHeaders',
  'expectedStatusCodeRanges',
] as const;
const ENDPOINT_KEYS = [
  'name',
  'type',
  'target',
  'targetResourceId',
  'endpointStatus',
  'alwaysServe',
  'weight',
  'priority',
  'endpointLocation',
  'minChildEndpoints',
  'minChildEndpointsIPv4',
  'minChildEndpointsIPv6',
  'geoMapping',
  'subnets',
  'customHeaders',
] as const;

function pick(src: Obj, keys: readonly string[], map: (key: string, value: unknown) => unknown = (_k, v) => v): Obj {
  const out: Obj = {};
  for (const k of keys) {
    if (src[k] === undefined) continue;
    out[k] = map(k, src[k]);
  }
  return out;
}

const copyList = (v: unknown, keys: readonly string[]): unknown => (Array.isArray(v) ? v.map((x) => (isObj(x) ? pick(x, keys) : x)) : v);

function canonicalEndpoint(e: EndpointInput): EndpointInput {
  return pick(e as unknown as Obj, ENDPOINT_KEYS, (k, v) => {
    if (k === 'subnets') return copyList(v, ['first', 'last', 'scope']);
    if (k === 'customHeaders') return copyList(v, ['name', 'value']);
    if (k === 'geoMapping' && Array.isArray(v)) return v.slice();
    return v;
  }) as unknown as EndpointInput;
}

function canonicalProfile(p: ProfileInput): ProfileInput {
  return pick(p as unknown as Obj, PROFILE_KEYS, (k, v) => {
    if (k === 'dnsConfig' && isObj(v)) return pick(v, DNS_KEYS);
    if (k === 'monitorConfig' && isObj(v)) {
      return pick(v, MONITOR_KEYS, (mk, mv) => {
        if (mk === 'customHeaders') return copyList(mv, ['name', 'value']);
        if (mk === 'expectedStatusCodeRanges') return copyList(mv, ['min', 'max']);
        return mv;
      });
    }
    if (k === 'tags' && isObj(v))
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((t) => [t, v[t]]),
      );
    if (k === 'allowedEndpointRecordTypes' && Array.isArray(v)) return v.slice();
    if (k === 'failback' && isObj(v)) return pick(v, FAILBACK_KEYS);
    if (k === 'endpoints' && Array.isArray(v)) return v.map((e) => (isObj(e) ? canonicalEndpoint(e as unknown as EndpointInput) : e));
    return v;
  }) as unknown as ProfileInput;
}

/**
 * A copy of the document with every object's keys in tmkit's canonical order (ARM's order: identity,
 * routing, DNS, monitoring, then endpoints) and `undefined` values removed, so `JSON.stringify` of it is
 * stable. Keeps the profile and endpoint order as given (endpoint order is meaningful: Azure derives
 * priorities from it). Drops properties that are not part of `tmkit/v1`.
 */
export function canonicalDocumentInput(doc: DocumentInput): DocumentInput {
  const out: Obj = { apiVersion: doc.apiVersion };
  if (doc.stack !== undefined) out.stack = doc.stack;
  out.profiles = Array.isArray(doc.profiles) ? doc.profiles.map((p) => (isObj(p) ? canonicalProfile(p) : p)) : doc.profiles;
  return out as unknown as DocumentInput;
}

// ---------------------------------------------------------------------------------------------------
// ARM expressions (only the literal forms)

interface TemplateContext {
  parameters: Obj;
  variables: Obj;
}

const EXPR = /^\[(?!\[)([\s\S]*)\]$/;
const LITERAL_REF = /^\s*(parameters|variables)\(\s*'([^']*)'\s*\)\s*$/;
const RESOURCE_ID = /^\s*resourceId\(([\s\S]*)\)\s*$/;

function isExpression(v: unknown): boolean {
  return typeof v === 'string' && EXPR.test(v.trim());
}

/** A literal value for `parameters('x')` / `variables('x')`, or undefined. */
function literalRef(expr: string, ctx: TemplateContext | undefined): unknown {
  const m = LITERAL_REF.exec(expr);
  if (!m || !ctx) return undefined;
  if (m[1] === 'parameters') {
    const p = ctx.parameters[m[2]!];
    return isObj(p) ? p.defaultValue : undefined;
  }
  const v = ctx.variables[m[2]!];
  return isExpression(v) ? undefined : v;
}

/** An argument of a template function call: `'literal'` or `parameters('x')`. */
function literalArg(arg: string, ctx: TemplateContext | undefined): string | undefined {
  const a = arg.trim();
  const q = /^'([^']*)'$/.exec(a);
  if (q) return q[1];
  const v = literalRef(a, ctx);
  return typeof v === 'string' ? v : undefined;
}

/** Resolves the simple literal expression forms; returns `{ok:false}` for anything else. */
function resolveExpression(value: string, ctx: TemplateContext | undefined): { ok: true; value: unknown } | { ok: false } {
  const inner = EXPR.exec(value.trim())![1]!;
  const ref = literalRef(inner, ctx);
  if (ref !== undefined && !isExpression(ref)) return { ok: true, value: ref };
  const rid = RESOURCE_ID.exec(inner);
  if (rid) {
    const args = rid[1]!.split(',').map((a) => literalArg(a, ctx));
    const i = args.findIndex((a) => a !== undefined && a.toLowerCase() === PROFILE_TYPE);
    if (i >= 0 && args.length === i + 2 && args[i + 1] !== undefined) {
      return { ok: true, value: `/providers/Microsoft.Network/trafficManagerProfiles/${args[i + 1]}` };
    }
  }
  return { ok: false };
}

// ---------------------------------------------------------------------------------------------------
// Conversion

/** Properties Azure computes; never part of a desired state. */
const READ_ONLY_PROFILE = new Set([
  'id',
  'type',
  'location',
  'resourceGroup',
  'etag',
  'systemData',
  'apiVersion',
  'dependsOn',
  'resources',
  'comments',
  'condition',
  'copy',
  'scope',
]);
const READ_ONLY_ENDPOINT = new Set([
  'id',
  'type',
  'endpointMonitorStatus',
  'resourceGroup',
  'etag',
  'systemData',
  'apiVersion',
  'dependsOn',
  'comments',
  'condition',
  'copy',
  'scope',
]);
const PROFILE_PROPS = new Set([
  'profileStatus',
  'trafficRoutingMethod',
  'dnsConfig',
  'monitorConfig',
  'endpoints',
  'maxReturn',
  'trafficViewEnrollmentStatus',
  'allowedEndpointRecordTypes',
]);
const ENDPOINT_PROPS = new Set([
  'target',
  'targetResourceId',
  'endpointStatus',
  'weight',
  'priority',
  'endpointLocation',
  'minChildEndpoints',
  'minChildEndpointsIPv4',
  'minChildEndpointsIPv6',
  'geoMapping',
  'subnets',
  'customHeaders',
  'alwaysServe',
]);

class Importer {
  readonly issues: Diagnostic[] = [];

  constructor(private readonly ctx: TemplateContext | undefined) {}

  issue(severity: Severity, code: string, path: string, message: string, hint?: string): void {
    this.issues.push(hint === undefined ? { severity, code, path, message } : { severity, code, path, message, hint });
  }

  /** A value with literal expressions resolved, or undefined (and an issue) when it cannot be. */
  value(v: unknown, path: string, report = true): unknown {
    if (Array.isArray(v)) return v.map((x, i) => this.value(x, `${path}[${i}]`, report));
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x, `${path}.${k}`, report)]));
    if (!isExpression(v)) return v;
    const r = resolveExpression(v as string, this.ctx);
    if (r.ok) return r.value;
    if (!report) return undefined;
    this.issue(
      'error',
      'ARM_IMPORT_EXPRESSION',
      path,
      `the ARM template expression ${v} cannot be evaluated by tmkit import`,
      'replace it with a literal value, or import the deployed profile instead (az network traffic-manager profile show ...)',
    );
    return undefined;
  }

  profile(res: Obj, index: number): ProfileInput | undefined {
    const rawName = this.value(res.name, `profiles[${index}].name`);
    if (typeof rawName !== 'string' || rawName === '') {
      this.issue(
        'error',
        'ARM_IMPORT_NO_NAME',
        `profiles[${index}]`,
        `profile resource #${index + 1} has no literal name`,
        'give the resource a literal "name"',
      );
      return undefined;
    }
    const name = rawName;
    const at = `profiles[${name}]`;
    const flat = !isObj(res.properties);
    const props: Obj = flat ? res : (res.properties as Obj);
    if (!flat) {
      for (const k of Object.keys(res)) {
        if (k !== 'name' && k !== 'properties' && k !== 'tags' && !READ_ONLY_PROFILE.has(k)) {
          this.issue('warning', 'ARM_IMPORT_UNKNOWN_PROPERTY', `${at}.${k}`, `"${k}" is not part of tmkit/v1 and was dropped`);
        }
      }
    }
    if (typeof res.location === 'string' && !isExpression(res.location) && res.location.toLowerCase() !== 'global') {
      this.issue(
        'warning',
        'ARM_IMPORT_LOCATION',
        `${at}.location`,
        `Traffic Manager profiles live in location "global", not "${res.location}"; the location was dropped`,
      );
    }
    const out: Obj = { name };
    for (const [k, v] of Object.entries(props)) {
      if (flat && (k === 'name' || k === 'tags' || READ_ONLY_PROFILE.has(k))) continue;
      if (v === null || v === undefined) continue;
      // tmkit's own extension, not Azure's: never imported from ARM (a profile keeps its failback in tmkit/v1).
      if (k === 'failback') continue;
      if (!PROFILE_PROPS.has(k)) {
        this.issue(
          'warning',
          'ARM_IMPORT_UNKNOWN_PROPERTY',
          `${at}.${k}`,
          `"${k}" is not part of tmkit/v1 and was dropped`,
          k === 'recordType' ? 'tmkit infers the record type from the endpoint targets' : undefined,
        );
        continue;
      }
      if (k === 'endpoints') continue;
      const val = this.value(v, `${at}.${k}`);
      if (val === undefined) continue;
      if (k === 'dnsConfig' && isObj(val)) {
        out.dnsConfig = this.clean({ relativeName: val.relativeName, ttl: val.ttl });
      } else if (k === 'monitorConfig' && isObj(val)) {
        const m: MonitorConfigInput = this.clean({
          protocol: val.protocol,
          port: val.port,
          path: val.path,
          intervalInSeconds: val.intervalInSeconds,
          timeoutInSeconds: val.timeoutInSeconds,
          toleratedNumberOfFailures: val.toleratedNumberOfFailures,
          customHeaders: this.list<MonitorHeader>(val.customHeaders, ['name', 'value']),
          expectedStatusCodeRanges: this.list<StatusCodeRange>(val.expectedStatusCodeRanges, ['min', 'max']),
        });
        out.monitorConfig = m;
      } else if (k === 'allowedEndpointRecordTypes') {
        if (Array.isArray(val) && val.length > 0) out[k] = val;
      } else {
        out[k] = val;
      }
    }
    const tags = this.value(res.tags ?? (flat ? undefined : props.tags), `${at}.tags`);
    if (isObj(tags) && Object.keys(tags).length > 0) out.tags = tags;
    const endpoints = Array.isArray(props.endpoints) ? props.endpoints : [];
    out.endpoints = endpoints.flatMap((e, i) => {
      const ep = isObj(e) ? this.endpoint(e, at, i) : undefined;
      if (!ep) return [];
      // Azure prints a weight and a priority on every endpoint whatever the method; keep only the one the
      // routing method uses (the other is ignored, and validation would warn about it).
      if (out.trafficRoutingMethod !== 'Weighted') delete ep.weight;
      if (out.trafficRoutingMethod !== 'Priority') delete ep.priority;
      return [ep];
    });
    return out as unknown as ProfileInput;
  }

  endpoint(res: Obj, profileAt: string, index: number, typeOverride?: string): EndpointInput | undefined {
    let rawName = this.value(res.name, `${profileAt}.endpoints[${index}].name`);
    if (typeof rawName === 'string' && rawName.includes('/')) rawName = rawName.slice(rawName.lastIndexOf('/') + 1);
    if (typeof rawName !== 'string' || rawName === '') {
      this.issue(
        'error',
        'ARM_IMPORT_NO_NAME',
        `${profileAt}.endpoints[${index}]`,
        `endpoint #${index + 1} has no literal name`,
        'give the endpoint a literal "name"',
      );
      return undefined;
    }
    const at = `${profileAt}.endpoints[${rawName}]`;
    const flat = !isObj(res.properties);
    const props: Obj = flat ? res : (res.properties as Obj);
    const rawType = typeOverride ?? res.type;
    const type = typeof rawType === 'string' ? parseEndpointType(rawType) : undefined;
    if (!type) {
      this.issue(
        'error',
        'ARM_IMPORT_ENDPOINT_TYPE',
        `${at}.type`,
        `endpoint type ${JSON.stringify(rawType)} is not one of azureEndpoints, externalEndpoints, nestedEndpoints (short or Microsoft.Network/trafficManagerProfiles/... form)`,
      );
      return undefined;
    }
    const out: Obj = { name: rawName, type };
    for (const [k, v] of Object.entries(props)) {
      if (v === null || v === undefined) continue;
      if (flat && (k === 'name' || READ_ONLY_ENDPOINT.has(k))) continue;
      if (!flat && READ_ONLY_ENDPOINT.has(k)) continue;
      if (!ENDPOINT_PROPS.has(k)) {
        this.issue('warning', 'ARM_IMPORT_UNKNOWN_PROPERTY', `${at}.${k}`, `"${k}" is not part of tmkit/v1 and was dropped`);
        continue;
      }
      // A nested endpoint's target is the child profile's FQDN in Azure's zone: read-only, resolved below.
      if (k === 'target' && type === 'nestedEndpoints') continue;
      const val = this.value(v, `${at}.${k}`);
      if (val === undefined) continue;
      if (k === 'subnets') out.subnets = this.list<EndpointSubnet>(val, ['first', 'last', 'scope']) ?? [];
      else if (k === 'customHeaders') {
        const h = this.list<MonitorHeader>(val, ['name', 'value']);
        if (h) out.customHeaders = h;
      } else if (k === 'geoMapping') {
        if (Array.isArray(val) && val.length > 0) out.geoMapping = val;
      } else out[k] = val;
    }
    if (type === 'nestedEndpoints' && typeof props.target === 'string' && out.targetResourceId === undefined) {
      out.nestedTargetFqdn = props.target;
    }
    return out as unknown as EndpointInput;
  }

  /** A list of `{k...}` objects with nulls dropped; undefined for null or an empty list. */
  list<T>(v: unknown, keys: readonly string[]): T[] | undefined {
    if (!Array.isArray(v) || v.length === 0) return undefined;
    return v.map((x) => (isObj(x) ? this.clean(pick(x, keys)) : x)) as T[];
  }

  clean<T>(o: Obj): T {
    return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;
  }
}

/** Profile resources (with their endpoint child resources attached) from an ARM template's resource list. */
function templateProfiles(imp: Importer, resources: unknown[]): Obj[] {
  const profiles: Obj[] = [];
  const children: Array<{ parent: string; res: Obj; type: string }> = [];
  const visit = (list: unknown[], parent: string | undefined): void => {
    for (const r of list) {
      if (!isObj(r) || typeof r.type !== 'string') continue;
      const t = r.type.trim().toLowerCase();
      if (t === PROFILE_TYPE) {
        const copy: Obj = { ...r, properties: isObj(r.properties) ? { ...r.properties } : {} };
        profiles.push(copy);
        const name = imp.value(r.name, '$', false);
        if (Array.isArray(r.resources)) visit(r.resources, typeof name === 'string' ? name : undefined);
      } else if (parseEndpointType(r.type) && (parent !== undefined || t.startsWith(`${PROFILE_TYPE}/`))) {
        const name = imp.value(r.name, '$', false);
        const owner = typeof name === 'string' && name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : parent;
        if (owner === undefined) {
          imp.issue(
            'error',
            'ARM_IMPORT_ORPHAN_ENDPOINT',
            '$',
            `endpoint resource ${JSON.stringify(r.name)} names no profile (expected "<profile>/<endpoint>")`,
          );
        } else children.push({ parent: owner, res: { ...r, name }, type: r.type });
      }
    }
  };
  visit(resources, undefined);
  for (const c of children) {
    const owner = profiles.find((p) => imp.value(p.name, '$', false) === c.parent);
    if (!owner) {
      imp.issue(
        'error',
        'ARM_IMPORT_ORPHAN_ENDPOINT',
        `profiles[${c.parent}]`,
        `endpoint resource ${JSON.stringify(c.res.name)} belongs to profile "${c.parent}", which is not in the template`,
      );
      continue;
    }
    const props = owner.properties as Obj;
    props.endpoints = [...(Array.isArray(props.endpoints) ? props.endpoints : []), { ...c.res, type: c.type }];
  }
  return profiles;
}

/**
 * Converts Azure's JSON for one or more Traffic Manager profiles (or an ARM template) into a `tmkit/v1`
 * document input (not normalized: only what Azure printed, minus read-only values). Never throws.
 */
export function importArm(input: unknown, options: ArmImportOptions = {}): ArmImportResult {
  const kind = detectArmInput(input);
  let resources: Obj[] = [];
  let imp: Importer;
  if (kind === 'arm-template') {
    const t = input as Obj;
    imp = new Importer({ parameters: isObj(t.parameters) ? t.parameters : {}, variables: isObj(t.variables) ? t.variables : {} });
    resources = templateProfiles(imp, t.resources as unknown[]);
  } else {
    imp = new Importer(undefined);
    if (kind === 'arm-profile') resources = [input as Obj];
    else if (kind === 'arm-profile-list') resources = (Array.isArray(input) ? input : ((input as Obj).value as unknown[])) as Obj[];
    else {
      imp.issue(
        'error',
        'ARM_IMPORT_UNRECOGNIZED',
        '$',
        kind === 'tmkit'
          ? 'the input already is a tmkit document'
          : 'the input is not a Traffic Manager profile, a list of profiles or an ARM template',
        kind === 'tmkit'
          ? 'use it as it is'
          : 'export a profile with `az network traffic-manager profile show -g <group> -n <name>` (or the REST API) and import that JSON',
      );
      return { issues: imp.issues };
    }
  }

  const profiles = resources.flatMap((r, i) => {
    const p = imp.profile(r, i);
    return p ? [p] : [];
  });
  if (profiles.length === 0) {
    if (!imp.issues.some((x) => x.severity === 'error')) {
      imp.issue('error', 'ARM_IMPORT_NO_PROFILES', '$', 'the input contains no Microsoft.Network/trafficManagerProfiles resource');
    }
    return { issues: imp.issues };
  }

  // Nested endpoints: point at the child profile by name when it is part of this import.
  const byName = new Map(profiles.map((p) => [p.name.toLowerCase(), p.name]));
  for (const p of profiles) {
    for (const e of p.endpoints ?? []) {
      const raw = e as EndpointInput & { nestedTargetFqdn?: string };
      const fqdn = raw.nestedTargetFqdn;
      delete raw.nestedTargetFqdn;
      if (e.type !== 'nestedEndpoints') continue;
      const at = `profiles[${p.name}].endpoints[${e.name}].targetResourceId`;
      if (typeof e.targetResourceId === 'string') {
        const child = byName.get(childProfileName(e.targetResourceId).toLowerCase());
        // tmkit's own ids (`tmkit get --output arm`) name a profile of the runtime: back to the name it had.
        const own = profileNameOfTmkitId(e.targetResourceId);
        if (child !== undefined) e.targetResourceId = child;
        else if (own !== undefined) e.targetResourceId = own;
        else {
          imp.issue(
            'warning',
            'ARM_IMPORT_NESTED_OUTSIDE',
            at,
            `nested endpoint "${e.name}" points at profile "${childProfileName(e.targetResourceId)}", which is not part of this import; the id was kept`,
            'import the child profile together with its parent (pass an array of both profiles)',
          );
        }
        continue;
      }
      const target = fqdn?.toLowerCase().replace(/\.$/, '');
      const child =
        target === undefined
          ? undefined
          : profiles.find(
              (c) =>
                c !== p && typeof c.dnsConfig?.relativeName === 'string' && target.startsWith(`${c.dnsConfig.relativeName.toLowerCase()}.`),
            );
      if (child) e.targetResourceId = child.name;
      else {
        imp.issue(
          'error',
          'ARM_IMPORT_NESTED_TARGET',
          at,
          `nested endpoint "${e.name}" has no targetResourceId${fqdn ? ` and its target ${fqdn} matches no imported profile` : ''}`,
          "import the child profile too, or set targetResourceId to the child profile's name",
        );
      }
    }
  }

  const doc: DocumentInput = { apiVersion: API_VERSION, profiles };
  if (options.stack !== undefined) doc.stack = options.stack;
  return { document: canonicalDocumentInput(doc), issues: imp.issues };
}
