import { Construct } from 'constructs';
import {
  CERTIFICATE_VALIDATIONS,
  MONITOR_PROTOCOLS,
  TRAFFIC_ROUTING_METHODS,
  type AllowedEndpointRecordType,
  type CertificateValidation,
  type EndpointInput,
  type MonitorConfigInput,
  type MonitorHeader,
  type MonitorProtocol,
  type ProfileInput,
  type ProfileStatus,
  type StatusCodeRange,
  type TrafficRoutingMethod,
  type TrafficViewEnrollmentStatus,
} from '../core/model/types';
import { HEALTH_EXTENSIONS } from '../core/model/normalize';
import { parsePemCertificates } from '../core/validate/pem';
import { checkHeaders, copyData, PROFILE_NAME, PropChecker } from './props-check';
import {
  AzureEndpoint,
  ExternalEndpoint,
  NestedEndpoint,
  type AzureEndpointProps,
  type ExternalEndpointProps,
  type NestedEndpointProps,
} from './endpoints';
import { addTreeValidation, rejectIfInvalid } from './synth';
import { isEndpointNode, PROFILE_SYMBOL, type ProfileNode } from './tree';
import { RoutingTest, type RoutingTestAssertions } from './routing-test';

/** DNS settings of a profile (ARM `dnsConfig`). */
export interface ProfileDnsConfig {
  /**
   * DNS label(s) under the zone; the profile answers at `<relativeName>.<zone>`. Dots are allowed
   * (`partners.contoso`); each label 1–63 characters, the whole name at most 253.
   * @default the profile's `name`
   */
  readonly relativeName?: string;
  /**
   * TTL of the DNS answers, in seconds, 0–2147483647 (0 disables resolver caching).
   * @default 30 (tmkit; Azure requires a value)
   */
  readonly ttl?: number;
}

/** Endpoint health probing of a profile (ARM `monitorConfig`). */
export interface ProfileMonitorConfig {
  /**
   * Probe protocol: `HTTP`, `HTTPS` (certificate not validated) or `TCP` (connect only).
   * @default 'HTTP'
   */
  readonly protocol?: MonitorProtocol;
  /**
   * Probe port, 1–65535.
   * @default 80 for HTTP and TCP, 443 for HTTPS
   */
  readonly port?: number;
  /**
   * Relative path probed with HTTP/HTTPS (`/health`). Must be omitted for TCP.
   * @default '/' for HTTP and HTTPS
   */
  readonly path?: string;
  /**
   * Seconds between probes: 30, or 10 for fast probing.
   * @default 30
   */
  readonly intervalInSeconds?: 10 | 30;
  /**
   * Seconds a probe may take: 5–10 with a 30 s interval, 5–9 with a 10 s interval.
   * @default 10 (interval 30) or 9 (interval 10)
   */
  readonly timeoutInSeconds?: number;
  /**
   * Consecutive failed probes tolerated before an endpoint is Degraded, 0–9 (0: the first failure).
   * @default 3
   */
  readonly toleratedNumberOfFailures?: number;
  /**
   * Headers sent with every HTTP/HTTPS probe, at most 8; an endpoint header with the same name wins.
   * A `Host` value may not contain `*`.
   * @default none
   */
  readonly customHeaders?: MonitorHeader[];
  /**
   * Status code ranges counted as healthy in addition to 200 (200 is always healthy), at most 8, each
   * `{min, max}` with 100 ≤ min ≤ max ≤ 999.
   * @default only 200 is healthy
   */
  readonly expectedStatusCodeRanges?: StatusCodeRange[];
  /**
   * tmkit: check HTTPS endpoints' certificates (chain to the system CAs or `caCertificates`, host name =
   * the target or the custom `Host` header, validity dates); a failed check is a failed probe with the
   * reason (`certificate expired 3 days ago`, `hostname mismatch: …`, `self-signed`).
   * @default 'Disabled' (Azure: any certificate is accepted)
   */
  readonly certificateValidation?: CertificateValidation;
  /**
   * tmkit: PEM CA certificates a probed chain must lead to instead of the system CAs (with
   * `certificateValidation: 'Enabled'`), at most 64 KiB.
   * @default the system CAs
   */
  readonly caCertificates?: string;
  /**
   * tmkit: days before a certificate expires that it is warned about in status, the dashboard and
   * `tmkit_endpoint_certificate_expiry_seconds` (the probe still passes), 0–365; 0 never warns.
   * @default 14 (with `certificateValidation: 'Enabled'`)
   */
  readonly certificateExpiryWarningDays?: number;
  /**
   * tmkit: a probe slower than this many milliseconds (1–60000, below the timeout) counts as a failure
   * (`slow: 812 ms > 500 ms`) under the same tolerated-failures rule.
   * @default no latency rule
   */
  readonly degradedLatencyMs?: number;
  /**
   * tmkit: composite health checks, 1–10 (docs/health.md "Composite checks"). Every check is probed for every
   * endpoint in each round with this profile's interval, timeout and tolerance; the endpoint is Online while
   * every `mustBeHealthy` check and at least `quorum` of the others pass. Replaces the single probe.
   * @default the single probe of protocol/port/path
   */
  readonly checks?: ProfileMonitorCheck[];
  /**
   * tmkit: how many checks that are neither `mustBeHealthy` nor `monitoringOnly` must pass (1 to their number).
   * @default all of them
   */
  readonly quorum?: number;
}

/** tmkit: one composite health check (docs/health.md "Composite checks"). */
export interface ProfileMonitorCheck {
  /** Unique in the profile (case-insensitive): 1–32 letters, digits, `-` and `_`. */
  readonly name: string;
  /**
   * @default the profile's protocol
   */
  readonly protocol?: MonitorProtocol;
  /**
   * @default the profile's port when the protocol is the profile's, else 80 (HTTP) or 443 (HTTPS)
   */
  readonly port?: number;
  /**
   * HTTP/HTTPS only.
   * @default the profile's path
   */
  readonly path?: string;
  /**
   * @default the profile's expectedStatusCodeRanges
   */
  readonly expectedStatusCodeRanges?: StatusCodeRange[];
  /**
   * The endpoint is Degraded when this check fails (past the tolerance), whatever the others say.
   * @default false
   */
  readonly mustBeHealthy?: boolean;
  /**
   * Probed and reported, never counted.
   * @default false
   */
  readonly monitoringOnly?: boolean;
}

/**
 * Where Performance routing takes its latencies from (a tmkit extension; docs/routing.md "Measured
 * latency"). Without it: the distance model, as Azure.
 */
export interface ProfilePerformanceLatency {
  /**
   * `Measured`: the probe round trips each probing location measures; `Model`: the distance model.
   * @default 'Measured'
   */
  readonly source?: 'Model' | 'Measured';
  /**
   * Endpoints within this many ms of the best count as equal, and the one answered stays until another is
   * better by more, 0–1000.
   * @default 20
   */
  readonly toleranceMs?: number;
  /**
   * Successful probes a location needs of an endpoint before its measurement ranks it, 1–100.
   * @default 5
   */
  readonly minSamples?: number;
}

/**
 * How a Degraded endpoint comes back (a tmkit extension; docs/health.md "Failback"). Without it: Azure's
 * behaviour, Online again after one good probe.
 */
export interface ProfileFailback {
  /**
   * `Automatic`: Online once recovered. `Manual`: `AwaitingFailback` once recovered (routing treats it as
   * Degraded) until `tmkit endpoint failback`.
   * @default 'Automatic'
   */
  readonly mode?: 'Automatic' | 'Manual';
  /**
   * Consecutive good probes before a Degraded endpoint counts as recovered, 1–10.
   * @default 1
   */
  readonly successesToRecover?: number;
  /**
   * Seconds since the endpoint failed before it can count as recovered, 0–3600.
   * @default 0
   */
  readonly holdDownSeconds?: number;
}

/** Props of a Traffic Manager profile. Property names are Azure Resource Manager's. */
export interface ProfileProps {
  /**
   * Profile name (unique in the document): 1–63 characters, letters, digits, `-` and `.`, starting and
   * ending with a letter or digit.
   * @default the construct id
   */
  readonly name?: string;
  /**
   * How DNS answers are chosen: `Performance` (closest region), `Priority` (failover), `Weighted`,
   * `Geographic`, `MultiValue` (several IP answers) or `Subnet` (by client address range).
   */
  readonly trafficRoutingMethod: TrafficRoutingMethod;
  /**
   * `Disabled` answers NXDOMAIN and stops probing.
   * @default 'Enabled'
   */
  readonly profileStatus?: ProfileStatus;
  /**
   * DNS name and TTL.
   * @default relativeName = name, ttl 30
   */
  readonly dnsConfig?: ProfileDnsConfig;
  /**
   * Health probing.
   * @default HTTP on port 80, path `/`, every 30 s, timeout 10 s, 3 tolerated failures
   */
  readonly monitorConfig?: ProfileMonitorConfig;
  /**
   * MultiValue only: how many healthy endpoints one answer holds, 1–8.
   * @default 2 for MultiValue profiles
   */
  readonly maxReturn?: number;
  /**
   * Traffic View enrollment (`Enabled` | `Disabled`); stored, no effect on answers.
   * @default 'Disabled'
   */
  readonly trafficViewEnrollmentStatus?: TrafficViewEnrollmentStatus;
  /**
   * Which endpoint address kinds the profile accepts (`DomainName`, `IPv4Address`, `IPv6Address`, `Any`).
   * @default unrestricted
   */
  readonly allowedEndpointRecordTypes?: AllowedEndpointRecordType[];
  /**
   * Free-form tags (string values).
   * @default none
   */
  readonly tags?: Record<string, string>;
  /**
   * How endpoints come back after an outage (tmkit extension; ARM export omits it).
   * @default Azure's: Automatic, after one good probe
   */
  readonly failback?: ProfileFailback;
  /**
   * Performance only: rank by measured probe latency (tmkit extension; ARM export omits it).
   * @default the distance model
   */
  readonly performanceLatency?: ProfilePerformanceLatency;
}

/**
 * A Traffic Manager profile: a DNS name answered by a routing method over its endpoints. Add endpoints
 * as children (`new ExternalEndpoint(profile, 'us', {...})` or `profile.addExternalEndpoint(...)`); their
 * order is the document order (Azure derives priorities from it when none is given).
 */
export class Profile extends Construct implements ProfileNode {
  /** True for a tmkit `Profile` (also from another copy of the library). */
  static isProfile(x: unknown): x is Profile {
    return typeof x === 'object' && x !== null && PROFILE_SYMBOL in x;
  }

  /** The profile's `name` in the document. */
  readonly profileName: string;
  /** The DNS name relative to the zone. */
  readonly relativeName: string;
  readonly trafficRoutingMethod: TrafficRoutingMethod;
  private readonly props: ProfileProps;

  constructor(scope: Construct, id: string, props: ProfileProps) {
    super(scope, id);
    Object.defineProperty(this, PROFILE_SYMBOL, { value: true });
    const p: ProfileProps = props ?? ({} as ProfileProps);
    const c = new PropChecker('Profile', this.node.path);
    const name = p.name ?? id;
    if (typeof name !== 'string' || !PROFILE_NAME.test(name)) {
      c.fail(
        p.name === undefined ? 'name (from the construct id)' : 'name',
        'must be 1–63 characters of letters, digits, "-" and ".", starting and ending with a letter or digit' +
          (p.name === undefined ? '; pass props.name to choose a different profile name' : ''),
        name,
      );
    }
    if (p.trafficRoutingMethod === undefined) c.fail('trafficRoutingMethod', `is required (one of ${TRAFFIC_ROUTING_METHODS.join(', ')})`);
    else c.oneOf('trafficRoutingMethod', p.trafficRoutingMethod, TRAFFIC_ROUTING_METHODS);
    c.oneOf('profileStatus', p.profileStatus, ['Enabled', 'Disabled']);
    c.oneOf('trafficViewEnrollmentStatus', p.trafficViewEnrollmentStatus, ['Enabled', 'Disabled']);
    if (p.dnsConfig !== undefined) {
      c.string('dnsConfig.relativeName', p.dnsConfig.relativeName);
      c.int('dnsConfig.ttl', p.dnsConfig.ttl, 0, 2147483647);
    }
    const m = p.monitorConfig;
    if (m !== undefined) {
      c.oneOf('monitorConfig.protocol', m.protocol, MONITOR_PROTOCOLS);
      c.int('monitorConfig.port', m.port, 1, 65535);
      c.oneOf('monitorConfig.intervalInSeconds', m.intervalInSeconds, [10, 30]);
      c.int('monitorConfig.timeoutInSeconds', m.timeoutInSeconds, 5, m.intervalInSeconds === 10 ? 9 : 10);
      c.int('monitorConfig.toleratedNumberOfFailures', m.toleratedNumberOfFailures, 0, 9);
      if (m.protocol === 'TCP' && m.path !== undefined)
        c.fail('monitorConfig.path', 'must be omitted with protocol TCP (TCP probes only connect)', m.path);
      else if (m.path !== undefined && (typeof m.path !== 'string' || !m.path.startsWith('/')))
        c.fail('monitorConfig.path', 'must be a relative path starting with "/"', m.path);
      checkHeaders(c, 'monitorConfig.customHeaders', m.customHeaders);
      c.oneOf('monitorConfig.certificateValidation', m.certificateValidation, CERTIFICATE_VALIDATIONS);
      if (m.caCertificates !== undefined) {
        const pem = typeof m.caCertificates === 'string' ? parsePemCertificates(m.caCertificates) : { problem: 'it is not a string' };
        if (pem.problem !== undefined) c.fail('monitorConfig.caCertificates', `must be PEM CA certificates (${pem.problem})`, '(PEM text)');
      }
      c.int('monitorConfig.certificateExpiryWarningDays', m.certificateExpiryWarningDays, 0, 365);
      c.int('monitorConfig.degradedLatencyMs', m.degradedLatencyMs, 1, 60_000);
      if (c.array('monitorConfig.checks', m.checks, 10)) {
        m.checks!.forEach((k, i) => {
          const at = `monitorConfig.checks[${i}]`;
          if (k === null || typeof k !== 'object') {
            c.fail(at, 'must be an object { name, protocol?, port?, path?, … }', k);
            return;
          }
          c.string(`${at}.name`, k.name, true);
          c.oneOf(`${at}.protocol`, k.protocol, MONITOR_PROTOCOLS);
          c.int(`${at}.port`, k.port, 1, 65535);
          if (k.path !== undefined && (typeof k.path !== 'string' || !k.path.startsWith('/')))
            c.fail(`${at}.path`, 'must be a relative path starting with "/"', k.path);
          c.oneOf(`${at}.mustBeHealthy`, k.mustBeHealthy, [true, false]);
          c.oneOf(`${at}.monitoringOnly`, k.monitoringOnly, [true, false]);
          if (k.mustBeHealthy === true && k.monitoringOnly === true)
            c.fail(at, 'cannot be both mustBeHealthy and monitoringOnly; keep one of the two');
        });
      }
      c.int('monitorConfig.quorum', m.quorum, 1, 10);
      if (c.array('monitorConfig.expectedStatusCodeRanges', m.expectedStatusCodeRanges, 8)) {
        m.expectedStatusCodeRanges!.forEach((r, i) => {
          const ok =
            r !== null &&
            typeof r === 'object' &&
            Number.isInteger(r.min) &&
            Number.isInteger(r.max) &&
            r.min >= 100 &&
            r.max <= 999 &&
            r.min <= r.max;
          if (!ok) c.fail(`monitorConfig.expectedStatusCodeRanges[${i}]`, 'must be { min, max } integers with 100 <= min <= max <= 999', r);
        });
      }
    }
    c.int('maxReturn', p.maxReturn, 1, 8);
    if (c.array('allowedEndpointRecordTypes', p.allowedEndpointRecordTypes)) {
      p.allowedEndpointRecordTypes!.forEach((t, i) => {
        c.oneOf(`allowedEndpointRecordTypes[${i}]`, t, ['DomainName', 'IPv4Address', 'IPv6Address', 'Any']);
      });
    }
    if (p.tags !== undefined) {
      if (typeof p.tags !== 'object' || p.tags === null || Array.isArray(p.tags))
        c.fail('tags', 'must be an object of string values', p.tags);
      else for (const [k, v] of Object.entries(p.tags)) if (typeof v !== 'string') c.fail(`tags.${k}`, 'must be a string', v);
    }
    if (p.failback !== undefined) {
      if (typeof p.failback !== 'object' || p.failback === null)
        c.fail('failback', 'must be an object { mode?, successesToRecover?, holdDownSeconds? }', p.failback);
      else {
        c.oneOf('failback.mode', p.failback.mode, ['Automatic', 'Manual']);
        c.int('failback.successesToRecover', p.failback.successesToRecover, 1, 10);
        c.int('failback.holdDownSeconds', p.failback.holdDownSeconds, 0, 3600);
      }
    }
    if (p.performanceLatency !== undefined) {
      const l = p.performanceLatency;
      if (typeof l !== 'object' || l === null) c.fail('performanceLatency', 'must be an object { source?, toleranceMs?, minSamples? }', l);
      else {
        c.oneOf('performanceLatency.source', l.source, ['Model', 'Measured']);
        c.int('performanceLatency.toleranceMs', l.toleranceMs, 0, 1000);
        c.int('performanceLatency.minSamples', l.minSamples, 1, 100);
      }
    }
    rejectIfInvalid(this, c, 'Profile', typeof name === 'string' && name !== '' ? `profiles[${name}]` : '$');

    // A private deep copy: later changes to the caller's objects cannot bypass the checks above.
    this.props = copyData(p);
    this.profileName = name;
    this.relativeName = p.dnsConfig?.relativeName ?? name;
    this.trafficRoutingMethod = p.trafficRoutingMethod;
    addTreeValidation(this);
  }

  /** Adds an External endpoint (FQDN or IP target) as the next endpoint of this profile. */
  addExternalEndpoint(id: string, props: ExternalEndpointProps): ExternalEndpoint {
    return new ExternalEndpoint(this, id, props);
  }

  /** Adds an Azure endpoint (an Azure resource by ARM id) as the next endpoint of this profile. */
  addAzureEndpoint(id: string, props: AzureEndpointProps): AzureEndpoint {
    return new AzureEndpoint(this, id, props);
  }

  /** Adds a nested endpoint (a child profile) as the next endpoint of this profile. */
  addNestedEndpoint(id: string, props: NestedEndpointProps): NestedEndpoint {
    return new NestedEndpoint(this, id, props);
  }

  /**
   * Declares a routing test of this profile (docs/testing.md), written by `App.synth()` to
   * `tmkit.tests.json` for `tmkit test` and `tmkit plan`:
   * `web.expect('DE goes to West Europe', { client: '5.9.0.1', expect: ['weu'] })`.
   */
  expect(name: string, assertions: RoutingTestAssertions): RoutingTest {
    return new RoutingTest(this, `test:${name.replace(/\//g, '∕')}`, { ...assertions, profile: this, name });
  }

  /** The profile as a document entry: only the props that were set, and its endpoints in order. */
  toProfileInput(): ProfileInput {
    const p = this.props;
    const out: ProfileInput = {
      name: this.profileName,
      trafficRoutingMethod: p.trafficRoutingMethod,
      dnsConfig: { relativeName: this.relativeName, ...(p.dnsConfig?.ttl === undefined ? {} : { ttl: p.dnsConfig.ttl }) },
      endpoints: this.node.children.filter(isEndpointNode).map((e): EndpointInput => e.toEndpointInput()),
    };
    if (p.profileStatus !== undefined) out.profileStatus = p.profileStatus;
    if (p.monitorConfig !== undefined) out.monitorConfig = copyMonitor(p.monitorConfig);
    if (p.maxReturn !== undefined) out.maxReturn = p.maxReturn;
    if (p.trafficViewEnrollmentStatus !== undefined) out.trafficViewEnrollmentStatus = p.trafficViewEnrollmentStatus;
    if (p.allowedEndpointRecordTypes !== undefined) out.allowedEndpointRecordTypes = [...p.allowedEndpointRecordTypes];
    if (p.tags !== undefined) out.tags = { ...p.tags };
    if (p.failback !== undefined) {
      const f = p.failback;
      out.failback = {
        ...(f.mode !== undefined ? { mode: f.mode } : {}),
        ...(f.successesToRecover !== undefined ? { successesToRecover: f.successesToRecover } : {}),
        ...(f.holdDownSeconds !== undefined ? { holdDownSeconds: f.holdDownSeconds } : {}),
      };
    }
    if (p.performanceLatency !== undefined) {
      const l = p.performanceLatency;
      out.performanceLatency = {
        ...(l.source !== undefined ? { source: l.source } : {}),
        ...(l.toleranceMs !== undefined ? { toleranceMs: l.toleranceMs } : {}),
        ...(l.minSamples !== undefined ? { minSamples: l.minSamples } : {}),
      };
    }
    return out;
  }
}

function copyMonitor(m: ProfileMonitorConfig): MonitorConfigInput {
  const out: MonitorConfigInput = {};
  if (m.protocol !== undefined) out.protocol = m.protocol;
  if (m.port !== undefined) out.port = m.port;
  if (m.path !== undefined) out.path = m.path;
  if (m.intervalInSeconds !== undefined) out.intervalInSeconds = m.intervalInSeconds;
  if (m.timeoutInSeconds !== undefined) out.timeoutInSeconds = m.timeoutInSeconds;
  if (m.toleratedNumberOfFailures !== undefined) out.toleratedNumberOfFailures = m.toleratedNumberOfFailures;
  if (m.customHeaders !== undefined) out.customHeaders = m.customHeaders.map((h) => ({ name: h.name, value: h.value }));
  if (m.expectedStatusCodeRanges !== undefined)
    out.expectedStatusCodeRanges = m.expectedStatusCodeRanges.map((r) => ({ min: r.min, max: r.max }));
  for (const k of HEALTH_EXTENSIONS) if (m[k] !== undefined) (out as Record<string, unknown>)[k] = m[k];
  if (m.checks !== undefined)
    out.checks = m.checks.map((k) => ({
      name: k.name,
      ...(k.protocol !== undefined ? { protocol: k.protocol } : {}),
      ...(k.port !== undefined ? { port: k.port } : {}),
      ...(k.path !== undefined ? { path: k.path } : {}),
      ...(k.expectedStatusCodeRanges !== undefined
        ? { expectedStatusCodeRanges: k.expectedStatusCodeRanges.map((r) => ({ min: r.min, max: r.max })) }
        : {}),
      ...(k.mustBeHealthy !== undefined ? { mustBeHealthy: k.mustBeHealthy } : {}),
      ...(k.monitoringOnly !== undefined ? { monitoringOnly: k.monitoringOnly } : {}),
    }));
  if (m.quorum !== undefined) out.quorum = m.quorum;
  return out;
}
