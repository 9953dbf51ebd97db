import { findAzureRegion } from '../data';
import { parseEndpointType } from './names';
import {
  API_VERSION,
  DEFAULT_STACK,
  type Document,
  type DocumentInput,
  type Endpoint,
  type EndpointInput,
  type MonitorCheck,
  type MonitorCheckInput,
  type MonitorConfig,
  type MonitorConfigInput,
  type Profile,
  type ProfileInput,
} from './types';

/**
 * Azure's defaults, and ours where Azure documents none (marked "tmkit"). docs/document.md "Defaults" lists them.
 */
export const DEFAULTS = {
  profileStatus: 'Enabled',
  /** tmkit: Azure requires a TTL; 30 s is what most templates use and keeps failover quick. */
  ttl: 30,
  /** tmkit (portal default): HTTP on port 80, path `/`. */
  protocol: 'HTTP',
  portHttp: 80,
  portHttps: 443,
  path: '/',
  intervalInSeconds: 30,
  /** Azure: 10 s with a 30 s interval, 9 s with a 10 s interval. */
  timeoutFor: (interval: number): number => (interval === 10 ? 9 : 10),
  toleratedNumberOfFailures: 3,
  endpointStatus: 'Enabled',
  weight: 1,
  minChildEndpoints: 1,
  alwaysServe: 'Disabled',
  /** Azure docs: a MultiValue profile returns 2 records unless told otherwise. */
  maxReturn: 2,
  trafficViewEnrollmentStatus: 'Disabled',
  /** tmkit's failback property, when given: Azure's behaviour for whatever it leaves out. */
  failbackMode: 'Automatic',
  successesToRecover: 1,
  holdDownSeconds: 0,
  /** tmkit's performanceLatency property, when given. */
  performanceLatencySource: 'Measured',
  toleranceMs: 20,
  minSamples: 5,
} as const;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
/** A copy of a JSON value with every object's keys sorted. */
const sortedCopy = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(sortedCopy);
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedCopy(v[k]);
  return out;
};
/**
 * A copy of a list of user objects (headers, ranges, subnets), keys sorted: with every other object built in
 * a fixed order here, equal profiles normalize to the same JSON text (what the store hashes for ETags).
 */
const copyArr = <T extends object>(v: unknown): T[] => arr<T>(v).map((x) => sortedCopy(x) as T);

/** The monitorConfig properties tmkit adds to Azure's; none has a default written into the document. */
export const HEALTH_EXTENSIONS = ['certificateValidation', 'caCertificates', 'certificateExpiryWarningDays', 'degradedLatencyMs'] as const;

function normalizeMonitor(input: MonitorConfigInput | undefined): MonitorConfig {
  const m: MonitorConfigInput = isObj(input) ? input : {};
  const protocol = m.protocol ?? DEFAULTS.protocol;
  const intervalInSeconds = m.intervalInSeconds ?? DEFAULTS.intervalInSeconds;
  const out: MonitorConfig = {
    protocol,
    port: m.port ?? (protocol === 'HTTPS' ? DEFAULTS.portHttps : DEFAULTS.portHttp),
    intervalInSeconds,
    timeoutInSeconds: m.timeoutInSeconds ?? DEFAULTS.timeoutFor(intervalInSeconds),
    toleratedNumberOfFailures: m.toleratedNumberOfFailures ?? DEFAULTS.toleratedNumberOfFailures,
    customHeaders: copyArr(m.customHeaders),
    expectedStatusCodeRanges: copyArr(m.expectedStatusCodeRanges),
  };
  if (m.path !== undefined) out.path = m.path;
  else if (protocol !== 'TCP') out.path = DEFAULTS.path;
  // tmkit's health extensions (docs/health.md): kept only when written, so documents and stored profiles
  // without them stay exactly as they were (no plan diff, no Terraform drift).
  for (const k of HEALTH_EXTENSIONS) if (m[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = m[k];
  // Composite checks (docs/health.md "Composite checks"): absent stays absent, like the extensions above.
  if (m.checks !== undefined) out.checks = Array.isArray(m.checks) ? m.checks.filter(isObj).map((c) => normalizeCheck(c, out)) : m.checks;
  if (m.quorum !== undefined) out.quorum = m.quorum;
  return out;
}

/**
 * One composite check, every omitted value filled in from the profile's monitorConfig: protocol; port (the
 * profile's when the protocol is the profile's, else 80 for HTTP and 443 for HTTPS); path (HTTP/HTTPS: the
 * profile's, `/` when it has none); expectedStatusCodeRanges (the profile's); mustBeHealthy and monitoringOnly false.
 */
function normalizeCheck(c: MonitorCheckInput, m: MonitorConfig): MonitorCheck {
  const protocol = c.protocol ?? m.protocol;
  const port =
    c.port ??
    (protocol === m.protocol ? m.port : protocol === 'HTTPS' ? DEFAULTS.portHttps : protocol === 'HTTP' ? DEFAULTS.portHttp : m.port);
  const out: MonitorCheck = {
    name: c.name,
    protocol,
    port,
    expectedStatusCodeRanges:
      c.expectedStatusCodeRanges !== undefined ? copyArr(c.expectedStatusCodeRanges) : copyArr(m.expectedStatusCodeRanges),
    mustBeHealthy: c.mustBeHealthy ?? false,
    monitoringOnly: c.monitoringOnly ?? false,
  };
  if (c.path !== undefined) out.path = c.path;
  else if (protocol !== 'TCP') out.path = m.path ?? DEFAULTS.path;
  return out;
}

function normalizeEndpoint(e: EndpointInput, index: number, derivePriority: boolean): Endpoint {
  // typeof guard: String() throws on objects such as {"toString": 1}, and normalize() must never throw.
  const type = (typeof e.type === 'string' ? parseEndpointType(e.type) : undefined) ?? (e.type as Endpoint['type']);
  const out: Endpoint = {
    name: e.name,
    type,
    endpointStatus: e.endpointStatus ?? DEFAULTS.endpointStatus,
    weight: e.weight ?? DEFAULTS.weight,
    priority: derivePriority ? index + 1 : (e.priority ?? index + 1),
    geoMapping: arr<string>(e.geoMapping).slice(),
    subnets: copyArr(e.subnets),
    customHeaders: copyArr(e.customHeaders),
    alwaysServe: e.alwaysServe ?? DEFAULTS.alwaysServe,
  };
  if (e.target !== undefined) out.target = e.target;
  if (e.targetResourceId !== undefined) out.targetResourceId = e.targetResourceId;
  if (e.endpointLocation !== undefined) {
    out.endpointLocation =
      typeof e.endpointLocation === 'string' ? (findAzureRegion(e.endpointLocation)?.name ?? e.endpointLocation) : e.endpointLocation;
  }
  if (type === 'nestedEndpoints') out.minChildEndpoints = e.minChildEndpoints ?? DEFAULTS.minChildEndpoints;
  else if (e.minChildEndpoints !== undefined) out.minChildEndpoints = e.minChildEndpoints;
  if (e.minChildEndpointsIPv4 !== undefined) out.minChildEndpointsIPv4 = e.minChildEndpointsIPv4;
  if (e.minChildEndpointsIPv6 !== undefined) out.minChildEndpointsIPv6 = e.minChildEndpointsIPv6;
  return out;
}

export function normalizeProfile(p: ProfileInput): Profile {
  const endpointsIn = arr<EndpointInput>(p.endpoints).filter(isObj) as EndpointInput[];
  // Azure derives priorities from the endpoint order when none is given.
  const derivePriority = endpointsIn.every((e) => e.priority === undefined);
  const dns: Partial<ProfileInput['dnsConfig']> = isObj(p.dnsConfig) ? p.dnsConfig : {};
  const out: Profile = {
    name: p.name,
    profileStatus: p.profileStatus ?? DEFAULTS.profileStatus,
    trafficRoutingMethod: p.trafficRoutingMethod,
    dnsConfig: { relativeName: dns.relativeName as string, ttl: dns.ttl ?? DEFAULTS.ttl },
    monitorConfig: normalizeMonitor(p.monitorConfig),
    endpoints: endpointsIn.map((e, i) => normalizeEndpoint(e, i, derivePriority)),
    trafficViewEnrollmentStatus: p.trafficViewEnrollmentStatus ?? DEFAULTS.trafficViewEnrollmentStatus,
  };
  if (p.trafficRoutingMethod === 'MultiValue') out.maxReturn = p.maxReturn ?? DEFAULTS.maxReturn;
  else if (p.maxReturn !== undefined) out.maxReturn = p.maxReturn;
  if (p.allowedEndpointRecordTypes !== undefined) out.allowedEndpointRecordTypes = arr(p.allowedEndpointRecordTypes);
  if (p.tags !== undefined) out.tags = (isObj(p.tags) ? sortedCopy(p.tags) : p.tags) as Profile['tags'];
  // Absent stays absent (profiles stored before the property existed keep their hash, so no plan shows a change).
  if (isObj(p.failback)) {
    const f = p.failback;
    out.failback = {
      mode: f.mode ?? DEFAULTS.failbackMode,
      successesToRecover: f.successesToRecover ?? DEFAULTS.successesToRecover,
      holdDownSeconds: f.holdDownSeconds ?? DEFAULTS.holdDownSeconds,
    };
  }
  if (isObj(p.performanceLatency)) {
    const l = p.performanceLatency;
    out.performanceLatency = {
      source: l.source ?? DEFAULTS.performanceLatencySource,
      toleranceMs: l.toleranceMs ?? DEFAULTS.toleranceMs,
      minSamples: l.minSamples ?? DEFAULTS.minSamples,
    };
  }
  return out;
}

/**
 * Fills in every default Azure (or tmkit, where Azure has none) applies, so the rest of the system never
 * sees an omitted value. Pure and total: it never throws, even on a malformed document, so `validate()`
 * can run its semantic rules on whatever parts are well-formed. Does not validate.
 */
export function normalize(input: DocumentInput): Document {
  const doc: Partial<DocumentInput> = isObj(input) ? input : {};
  return {
    apiVersion: API_VERSION,
    stack: typeof doc.stack === 'string' ? doc.stack : DEFAULT_STACK,
    profiles: (arr<ProfileInput>(doc.profiles).filter(isObj) as ProfileInput[]).map(normalizeProfile),
  };
}
