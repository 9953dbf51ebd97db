/**
 * The tmkit provider functions, routing assertions in HCL (docs/terraform.md, "Provider functions"):
 *
 *   provider::tmkit::resolve(profile, client, down...)  → tuple of strings, the endpoints `client` may be answered
 *   provider::tmkit::worst_case_failover(profile)        → number, seconds (null when nothing is probed)
 *
 * `profile` is a `tmkit_profile` with inline `endpoint` blocks: the resource itself (`tmkit_profile.web`), or
 * an object of the same attributes (an HCL object, a `jsondecode`d file), so its parameter is dynamic; or a
 * list of them, the profile first, then the profiles its nested endpoints reach. It is
 * checked with the core's rules (parseDocument) and computed with the pure core (routing `resolve`, plan
 * `failoverTimes`): the same engine as the DNS server and `tmkit plan`, offline, no server, no provider
 * configuration. Unknown values ("known after apply") that the answer depends on make the result unknown;
 * the others (the computed id and fqdn of a profile not created yet, tags, ...) do not.
 */
import { profileFqdn } from '../../../../src/core/model/names';
import { API_VERSION, type Profile, type ProfileInput } from '../../../../src/core/model/types';
import { parsePrefix } from '../../../../src/core/net/ip';
import { failoverTimes } from '../../../../src/core/plan/failover';
import type { GeoLookup } from '../../../../src/core/ports';
import { buildSnapshot, resolve } from '../../../../src/core/routing';
import { closestValue } from '../../../../src/core/validate/util';
import { parseDocument } from '../../../../src/core/validate';
import { Dynamic, isObject, isUnknown, UNKNOWN, type Value, type ValueObject } from '../cty';
import type { ProviderFunction } from '../provider';
import { FunctionArgumentError } from '../tfprotov6';
import { profileSchema } from './schemas';
import { tfPath } from './tf-diagnostics';
import { profileFromTf } from './to-model';

const ZONE = 'functions.tmkit.invalid';

/** The attributes and blocks a profile object may have: tmkit_profile's (so the resource itself is accepted). */
const PROFILE_KEYS = [...Object.keys(profileSchema.block.attributes ?? {}), ...Object.keys(profileSchema.block.blocks ?? {})];
const ENDPOINT_BLOCK = profileSchema.block.blocks!.endpoint!.block;
/** An inline endpoint block's, plus what a tmkit_external_endpoint resource adds (so `endpoint = [tmkit_external_endpoint.a]` works). */
const ENDPOINT_KEYS = [
  ...Object.keys(ENDPOINT_BLOCK.attributes ?? {}),
  ...Object.keys(ENDPOINT_BLOCK.blocks ?? {}),
  'id',
  'profile_id',
  'timeouts',
];
/** Blocks that are one object in the resource (a list of one) and may be written as the object itself. */
const SINGLE_BLOCKS = ['dns_config', 'monitor_config', 'failback', 'performance_latency'];

/**
 * ARM paths (relative to the profile, as profileFromTf reports unknowns) that a function's answer does not
 * read and whose absence (an unknown value is left out) no rule minds: unknown there, the function still answers.
 */
const IGNORED_BY_BOTH = [/^tags$/, /^trafficViewEnrollmentStatus$/, /^dnsConfig\.relativeName$/, /^endpoints\[[^\]]*\]\.customHeaders/];
// performanceLatency: offline there are no measurements, so the function answers with the distance model either way.
const IGNORED_BY_RESOLVE = [...IGNORED_BY_BOTH, /^monitorConfig/, /^failback/, /^performanceLatency/, /^dnsConfig\.ttl$/];
const IGNORED_BY_FAILOVER = [
  ...IGNORED_BY_BOTH,
  /^monitorConfig\.(protocol|port|path|customHeaders|expectedStatusCodeRanges|certificateValidation|caCertificates|certificateExpiryWarningDays|degradedLatencyMs|checks|quorum)/,
  /^failback/,
  /^performanceLatency/,
  /^endpoints\[[^\]]*\]\.weight$/,
];

const fail = (argument: number, message: string): never => {
  throw new FunctionArgumentError(argument, message);
};

/** A plain value from a dynamic argument (the Dynamic wrapper dropped, recursively: HCL objects can hold dynamics). */
function plain(v: Value): Value {
  if (v instanceof Dynamic) return plain(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (isObject(v)) {
    const out: ValueObject = {};
    for (const [k, e] of Object.entries(v)) out[k] = plain(e);
    return out;
  }
  return v;
}

/**
 * The profile object in the resource's form: known attribute names only (a misspelt one is an error, not
 * ignored), single blocks written as an object turned into a list of one, `dns_config` defaulting to the
 * profile's name (routing does not depend on the DNS name).
 */
function profileObject(v: Value, argument: number, at: string): ValueObject {
  if (!isObject(v))
    fail(
      argument,
      `${at}a tmkit_profile is required: pass the resource (tmkit_profile.web), an object of its attributes ` +
        '({ name = "web", traffic_routing_method = "Priority", endpoint = [{ name = "a", target = "192.0.2.1" }] }), ' +
        'or a list of them: the profile first, then the profiles its nested endpoints reach',
    );
  const o = v as ValueObject;
  const unsupported = (keys: string[], allowed: string[], where: string): void => {
    for (const k of keys) {
      if (allowed.includes(k)) continue;
      const near = closestValue(k, allowed);
      fail(argument, `${at}${where}"${k}" is not an attribute of tmkit_profile${near ? ` (did you mean "${near}"?)` : ''}`);
    }
  };
  unsupported(Object.keys(o), PROFILE_KEYS, '');
  const out: ValueObject = { ...o };
  for (const b of SINGLE_BLOCKS) if (isObject(out[b])) out[b] = [out[b]!];
  const eps = out.endpoint;
  if (isObject(eps)) fail(argument, `${at}endpoint must be a list of endpoint objects (one per inline endpoint block)`);
  if (Array.isArray(eps)) {
    out.endpoint = eps.map((e, i) => {
      if (isUnknown(e)) return e;
      if (!isObject(e)) return fail(argument, `${at}endpoint[${i}] must be an object of the endpoint block's attributes`);
      unsupported(Object.keys(e), ENDPOINT_KEYS, `endpoint[${i}]: `);
      const ep: ValueObject = { ...e };
      if (isObject(ep.subnet)) ep.subnet = [ep.subnet];
      return ep;
    });
  }
  if (
    (out.dns_config === null || out.dns_config === undefined || (Array.isArray(out.dns_config) && out.dns_config.length === 0)) &&
    typeof out.name === 'string'
  )
    out.dns_config = [{ relative_name: out.name }];
  return out;
}

/** An ARM path of the core (`profiles[web].endpoints[a].priority`) in Terraform's words (`endpoint "a": priority`). */
function tfWhere(path: string, several: boolean): string {
  const top = /^profiles\[([^\]]*)\]\.?(.*)$/.exec(path);
  const rel = top ? top[2]! : path;
  const who = several && top ? `profile "${top[1]}" ` : '';
  return who + tfWhereIn(rel);
}
function tfWhereIn(rel: string): string {
  const m = /^endpoints\[([^\]]*)\]\.?(.*)$/.exec(rel);
  const show = (p: ReturnType<typeof tfPath>, raw: string): string =>
    p
      ? p
          .map((s) => ('attribute' in s ? `.${s.attribute}` : 'index' in s ? `[${s.index}]` : `["${s.key}"]`))
          .join('')
          .slice(1)
      : raw;
  if (m) return `endpoint "${m[1]}"${m[2] ? `: ${show(tfPath('endpoint', m[2]), m[2])}` : ''}`;
  return rel === '' ? 'the profile' : show(tfPath('profile', rel), rel);
}

interface Checked {
  /** The profile asked about (the argument's first). */
  profile: Profile;
  /** It and the profiles its nested endpoints reach, by name. */
  all: Map<string, Profile>;
}

/** One profile object of the argument in ARM names; undefined when a value the function reads is unknown. */
function profileInput(v: Value, argument: number, at: string, ignored: readonly RegExp[]): ProfileInput | undefined {
  if (isUnknown(v)) return undefined;
  const o = profileObject(v, argument, at);
  const c = profileFromTf(o);
  const unknown = c.unknown;
  if (isUnknown(o.name)) unknown.push('name');
  // profileFromTf leaves out a block whose name is not known yet: that is an unknown endpoint, not none.
  if (Array.isArray(o.endpoint) && o.endpoint.some((e) => isUnknown(e) || (isObject(e) && isUnknown(e.name)))) unknown.push('endpoints');
  if (unknown.some((u) => !ignored.some((re) => re.test(u)))) return undefined;
  if (c.problems.length > 0) fail(argument, `${at}${c.problems.map((p) => p.summary).join('; ')}`);
  if (typeof o.name !== 'string' || o.name === '') fail(argument, `${at}name is required (the profile's name, e.g. name = "web")`);
  const input: ProfileInput = { ...c.value };
  if (!input.dnsConfig.relativeName) input.dnsConfig = { ...input.dnsConfig, relativeName: input.name };
  return input;
}

/**
 * The profile of argument `argument` (an object, or a list: the profile, then the profiles its nested
 * endpoints reach), validated together with the core's rules; undefined when a value the function reads is
 * unknown (the result is then unknown). `ignored`: unknown ARM paths the function does not read.
 */
function checkedProfile(arg: Value, argument: number, ignored: readonly RegExp[]): Checked | undefined {
  const v = plain(arg);
  if (isUnknown(v)) return undefined;
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0) fail(argument, 'a tmkit_profile is required, got an empty list');
  const inputs: ProfileInput[] = [];
  for (const [i, item] of list.entries()) {
    const input = profileInput(item, argument, Array.isArray(v) ? `[${i}]: ` : '', ignored);
    if (!input) return undefined;
    inputs.push(input);
  }
  const { document, diagnostics } = parseDocument({ apiVersion: API_VERSION, profiles: inputs });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0 || !document)
    fail(
      argument,
      errors
        .map((d) => `${tfWhere(d.path, inputs.length > 1)}: ${d.message}${d.hint ? ` (${d.hint})` : ''} [tmkit rule ${d.code}]`)
        .join('; ') || 'the profile is not valid',
    );
  const all = new Map(document!.profiles.map((p) => [p.name, p] as const));
  return { profile: all.get(inputs[0]!.name)!, all };
}

let geo: GeoLookup | undefined;
/** The country database for Geographic and Performance profiles (loaded on first need; an error says how to install it). */
async function geoLookup(): Promise<GeoLookup> {
  if (geo) return geo;
  const { MmdbGeoLookup, countryDatabaseInstalled, geoDatabaseMissing } = await import('../../../../src/geo');
  if (!countryDatabaseInstalled()) throw new Error(`provider::tmkit::resolve: ${geoDatabaseMissing().message}`);
  geo = await MmdbGeoLookup.open();
  return geo;
}
const NO_GEO: GeoLookup = { locate: () => undefined, latencyMs: () => undefined };

/** `client`: an IP address, or a CIDR prefix (a resolver's EDNS Client Subnet). */
function clientOf(v: Value): { address: string; prefix?: number } {
  if (typeof v !== 'string') return fail(1, 'client must be an IP address or a CIDR prefix, e.g. "81.2.69.142" or "2a02:908::/32"');
  const p = parsePrefix(v.trim());
  if ('error' in p) return fail(1, `client "${v}" is not an IP address or a CIDR prefix: ${p.error}`);
  const address = v.trim().split('/')[0]!;
  return v.includes('/') ? { address, prefix: p.length } : { address };
}

export const resolveFunction: ProviderFunction = {
  signature: {
    summary: 'The endpoints a tmkit_profile answers a client with',
    description:
      'The names of the endpoints the profile (a tmkit_profile with inline endpoint blocks, or an object of its attributes) ' +
      'may answer `client` (an IP address, or a CIDR prefix as EDNS Client Subnet) with, sorted: one for Priority, ' +
      'Geographic, Subnet and Performance, every candidate for Weighted, the answer set for MultiValue; [] for ' +
      'no answer (NODATA, NXDOMAIN); the endpoints of a nested profile as child/endpoint. Every endpoint is Online except ' +
      'those named in `down` (endpoint, or child/endpoint), which are Degraded. ' +
      "The same engine as tmkit's DNS server; Geographic and Performance place the client with the country database.",
    parameters: [
      {
        name: 'profile',
        type: 'dynamic',
        allowUnknown: true,
        description:
          'a tmkit_profile (tmkit_profile.web) or an object of its attributes with endpoint = [ ... ]; or a list: the profile, ' +
          'then the profiles its nested endpoints reach',
      },
      { name: 'client', type: 'string', allowUnknown: true, description: 'client IP address, or CIDR prefix (ECS)' },
    ],
    variadic: { name: 'down', type: 'string', description: 'endpoints to treat as down (Degraded): a name, or child/endpoint' },
    // A tuple of strings, not list(string): HCL's == compares types too, and a list never equals the tuple
    // literal an assertion writes (`resolve(...) == ["weu"]` would always be false).
    returnType: 'dynamic',
  },
  async call(args) {
    const [profileArg, clientArg, ...downArgs] = args;
    if (isUnknown(clientArg ?? null)) return UNKNOWN;
    const client = clientOf(clientArg ?? null);
    const checked = checkedProfile(profileArg ?? null, 0, IGNORED_BY_RESOLVE);
    if (!checked) return UNKNOWN;
    const { profile: p, all } = checked;
    // `down`: an endpoint of the profile, or `child/endpoint` in a profile its nested endpoints reach.
    const paths = [
      ...p.endpoints.map((e) => ({ name: e.name, key: `${p.name}/${e.name}` })),
      ...[...all.values()]
        .filter((q) => q !== p)
        .flatMap((q) => q.endpoints.map((e) => ({ name: `${q.name}/${e.name}`, key: `${q.name}/${e.name}` }))),
    ];
    const down = new Set<string>();
    downArgs.forEach((d, i) => {
      if (typeof d !== 'string') return;
      const hit = paths.find((x) => x.name.toLowerCase() === d.toLowerCase());
      if (!hit) {
        const names = paths.map((x) => x.name);
        const near = closestValue(d, names);
        fail(
          2 + i,
          `"${d}" is not an endpoint of profile ${p.name} (it has ${names.join(', ') || 'none'}${near ? `; did you mean "${near}"?` : ''})`,
        );
      }
      down.add(hit!.key);
    });
    const needsGeo = [...all.values()].some((q) => q.trafficRoutingMethod === 'Geographic' || q.trafficRoutingMethod === 'Performance');
    const snap = buildSnapshot({
      zone: ZONE,
      profiles: all.values(),
      geo: needsGeo ? await geoLookup() : NO_GEO,
      health: { verdict: (profile, endpoint) => (down.has(`${profile}/${endpoint}`) ? 'Degraded' : 'Online') },
    });
    const r = resolve(snap, {
      name: profileFqdn(p.dnsConfig.relativeName, ZONE),
      type: 'ANY',
      clientAddress: client.address,
      ...(client.prefix !== undefined ? { ecsSourcePrefix: client.prefix } : {}),
    });
    const out = new Set<string>();
    const own = `${p.name}/`;
    for (const o of r.outcomes) {
      if (o.probability <= 0 || o.records.length === 0) continue;
      for (const e of o.endpoints) out.add(e.startsWith(own) ? e.slice(own.length) : e);
    }
    return new Dynamic(['tuple', [...out].map(() => 'string' as const)], [...out].sort());
  },
};

export const worstCaseFailoverFunction: ProviderFunction = {
  signature: {
    summary: "A tmkit_profile's worst-case failover time, in seconds",
    description:
      'From the settings alone: interval × (tolerated failures + 1) + timeout + TTL, the longest a client can still be ' +
      'sent to an endpoint after it went down (tmkit plan prints the same figure). null when no endpoint is probed ' +
      '(Always Serve, or none enabled: traffic never moves).',
    parameters: [
      {
        name: 'profile',
        type: 'dynamic',
        allowUnknown: true,
        description:
          'a tmkit_profile (tmkit_profile.web) or an object of its attributes with endpoint = [ ... ]; or a list: the profile, ' +
          'then the profiles its nested endpoints reach',
      },
    ],
    returnType: 'number',
  },
  call(args) {
    const checked = checkedProfile(args[0] ?? null, 0, IGNORED_BY_FAILOVER);
    if (!checked) return UNKNOWN;
    return failoverTimes(checked.all, [checked.profile.name]).get(checked.profile.name)?.seconds ?? null;
  },
};

export const tmkitFunctions: Record<string, ProviderFunction> = {
  resolve: resolveFunction,
  worst_case_failover: worstCaseFailoverFunction,
};
