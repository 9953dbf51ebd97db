/**
 * Canonical key order (shared with the constructs' synthesis so every document tmkit writes looks alike):
 * `canonicalDocumentInput`, re-exported by arm-import.ts.
 */
import { isObj, type Obj } from './arm-shape';
import type { DocumentInput, EndpointInput, ProfileInput } from './types';

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
  'performanceLatency',
  'endpoints',
] as const;
const FAILBACK_KEYS = ['mode', 'successesToRecover', 'holdDownSeconds'] as const;
const PERFORMANCE_LATENCY_KEYS = ['source', 'toleranceMs', 'minSamples'] as const;
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

export function pick(src: Obj, keys: readonly string[], map: (key: string, value: unknown) => unknown = (_k, v) => v): Obj {
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
    if (k === 'performanceLatency' && isObj(v)) return pick(v, PERFORMANCE_LATENCY_KEYS);
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
