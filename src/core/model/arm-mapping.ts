/**
 * The ARM → tmkit mapping (arm-import.ts): one profile resource, and each of its endpoints, as `tmkit/v1`
 * input; read-only and unknown properties dropped (unknown ones reported), literal expressions resolved.
 * Every problem becomes an issue with a `tmkit/v1` path; nothing is thrown.
 */
import type { Diagnostic, Severity } from '../diagnostics';
import { pick } from './arm-canonical';
import { ENDPOINT_PROPS, isObj, type Obj, PROFILE_PROPS, READ_ONLY_ENDPOINT, READ_ONLY_PROFILE } from './arm-shape';
import { isExpression, resolveExpression, type TemplateContext } from './arm-template';
import { parseEndpointType } from './names';
import type { EndpointInput, EndpointSubnet, MonitorConfigInput, MonitorHeader, ProfileInput, StatusCodeRange } from './types';

/** Converts profile and endpoint resources, collecting the issues. */
export class Importer {
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
      if (k === 'failback' || k === 'performanceLatency') continue;
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
        `endpoint type ${JSON.stringify(rawType)} is not one of azureEndpoints, externalEndpoints, nestedEndpoints ` +
          '(short or Microsoft.Network/trafficManagerProfiles/... form)',
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
