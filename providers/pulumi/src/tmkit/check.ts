/**
 * Check for tmkit:index:Profile and tmkit:index:Endpoint: tmkit's own validator (the rules `tmkit
 * validate` and the API apply) on what the program gives, every failure at its Pulumi property path, before
 * anything is written. Runs offline: rules that need the other deployed profiles (does a nested endpoint's
 * child exist) and those of the profile an Endpoint joins (its routing method's) are the server's, at create
 * and update, which names the path as well. Values not known yet (preview) are not judged. Pure.
 */
import type { Diagnostic } from '../../../../src/core/diagnostics';
import { parseEndpointType } from '../../../../src/core/model/names';
import { validateProfile } from '../../../../src/core/validate';
import { itemSegment } from '../../../../src/core/validate/util';
import { splitPath } from '../diff';
import type { CheckFailure, CheckResult } from '../provider';
import { isObject, isUnknown, reveal, type Plain, type PlainMap, type PropertyMap } from '../values';
import { pathIndex, pathKey } from '../wire';
import { ENDPOINT_INPUTS, PROFILE_ARM_TYPE, PROFILE_INPUTS, endpointInput, profileInput } from './convert';
import { toPulumiPath } from './paths';

/** Stands in for a value not known yet while the validator runs; failures at or under it are dropped. */
const PENDING = '\u2063(not known yet)';

/** Rules that need the deployed profiles as context; the server checks them on every write. */
const SERVER_RULES = new Set(['NESTED_TARGET_NOT_FOUND']);

const RESOURCE_GROUP =
  'tmkit has no resource groups: remove resourceGroupName (a profile is named by profileName alone, and an endpoint by profileName and endpointName)';

/** `v` with every Unknown replaced by PENDING, and the Pulumi paths (as segments) where they were. */
function pendingOf(v: Plain, path: string, segs: string[], pending: string[][]): Plain {
  if (isUnknown(v)) {
    pending.push(segs);
    return PENDING;
  }
  if (Array.isArray(v)) return v.map((x, i) => pendingOf(x, pathIndex(path, i), [...segs, String(i)], pending));
  if (isObject(v)) {
    const out: PlainMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = pendingOf(x, pathKey(path, k), [...segs, k], pending);
    return out;
  }
  return v;
}

function under(path: string, pending: readonly string[][]): boolean {
  const segs = splitPath(path);
  return pending.some((p) => p.length <= segs.length && p.every((s, i) => s === segs[i]));
}

/** The reason the engine prints after "property X has a problem:": the rule's message, what to do, its code. */
export function reasonOf(d: Diagnostic): string {
  const message = d.code === 'UNKNOWN_PROPERTY' ? d.message.replace(' is ignored;', ';') : d.message;
  return `${message}${d.hint ? ` (${d.hint})` : ''} [${d.code}]`;
}

/** The diagnostics under `prefix` that `keep` accepts, each with its Pulumi path in `root` (pending paths left out). */
function located(
  diagnostics: readonly Diagnostic[],
  prefix: string,
  root: Plain,
  rename: Record<string, string>,
  pending: readonly string[][],
  keep: (d: Diagnostic) => boolean,
): Array<{ property: string; d: Diagnostic }> {
  const out: Array<{ property: string; d: Diagnostic }> = [];
  for (const d of diagnostics) {
    if (!keep(d)) continue;
    if (d.path !== prefix && !d.path.startsWith(`${prefix}.`) && !d.path.startsWith(`${prefix}[`)) continue;
    const property = toPulumiPath(d.path.slice(prefix.length), root, rename);
    if (!under(property, pending)) out.push({ property, d });
  }
  return out;
}

/** Diagnostics under `prefix` as failures at their Pulumi path in `root`; warnings other than unknown properties are left out. */
function failuresOf(
  diagnostics: readonly Diagnostic[],
  prefix: string,
  root: Plain,
  rename: Record<string, string>,
  pending: readonly string[][],
): CheckFailure[] {
  return located(
    diagnostics,
    prefix,
    root,
    rename,
    pending,
    (d) => (d.severity === 'error' || d.code === 'UNKNOWN_PROPERTY') && !SERVER_RULES.has(d.code),
  ).map(({ property, d }) => ({ property, reason: reasonOf(d) }));
}

/** Rule warnings under `prefix` (e.g. WEIGHT_IGNORED on an inline endpoint) as `path: reason`, for the engine to show. */
function warningsOf(
  diagnostics: readonly Diagnostic[],
  prefix: string,
  root: Plain,
  rename: Record<string, string>,
  pending: readonly string[][],
): string[] {
  return located(diagnostics, prefix, root, rename, pending, (d) => d.severity === 'warning' && d.code !== 'UNKNOWN_PROPERTY').map(
    ({ property, d }) => `${property === '' ? '' : `${property}: `}${reasonOf(d)}`,
  );
}

function unknownKeys(plain: PlainMap, allowed: readonly string[], what: string, failures: CheckFailure[]): void {
  for (const k of Object.keys(plain)) {
    if (allowed.includes(k)) continue;
    failures.push({
      property: k,
      reason: k === 'resourceGroupName' ? RESOURCE_GROUP : `unknown property "${k}": a ${what} takes ${allowed.join(', ')}`,
    });
  }
}

const known = (v: Plain | undefined): boolean => v !== undefined && v !== null && !isUnknown(v);

/** Check of tmkit:index:Profile. `profileName` defaults to the resource's logical name. */
export function checkProfile(news: PropertyMap, logicalName: string): CheckResult {
  const inputs: PropertyMap = { ...news };
  if (inputs.profileName === undefined || inputs.profileName === null) inputs.profileName = logicalName;
  const failures: CheckFailure[] = [];
  const plain = reveal(inputs);
  unknownKeys(plain, PROFILE_INPUTS, 'Profile', failures);
  const location = plain.location;
  if (known(location) && (typeof location !== 'string' || location.toLowerCase() !== 'global')) {
    failures.push({
      property: 'location',
      reason: 'a Traffic Manager profile is global: location is "global" (as Azure requires) or left out',
    });
  }
  const type = plain.type;
  if (known(type) && (typeof type !== 'string' || type.toLowerCase() !== PROFILE_ARM_TYPE.toLowerCase())) {
    failures.push({ property: 'type', reason: `type is ARM's resource type, "${PROFILE_ARM_TYPE}", or left out` });
  }
  const pending: string[][] = [];
  const sane = pendingOf(plain, '', [], pending) as PlainMap;
  const model = profileInput(sane);
  const prefix = `profiles${itemSegment(model, 0, true)}`;
  const diagnostics = validateProfile(model);
  failures.push(...failuresOf(diagnostics, prefix, sane, { name: 'profileName' }, pending));
  return { inputs, failures, warnings: warningsOf(diagnostics, prefix, sane, { name: 'profileName' }, pending) };
}

const SYNTHETIC = '\u2063endpoint-check';

/**
 * Check of tmkit:index:Endpoint: the endpoint's own rules (type, target, weight, priority, locations,
 * geo codes, subnets, headers, child minimums). `endpointName` defaults to `name`, then the logical name.
 */
export function checkEndpoint(news: PropertyMap, logicalName: string): CheckResult {
  const inputs: PropertyMap = { ...news };
  if (inputs.endpointName === undefined || inputs.endpointName === null) inputs.endpointName = inputs.name ?? logicalName;
  const failures: CheckFailure[] = [];
  const plain = reveal(inputs);
  unknownKeys(plain, ENDPOINT_INPUTS, 'Endpoint', failures);
  const profile = plain.profileName;
  if (profile === undefined || profile === null)
    failures.push({
      property: 'profileName',
      reason: 'profileName is required: the name of the profile the endpoint belongs to (e.g. `profile.name`)',
    });
  else if (!isUnknown(profile) && (typeof profile !== 'string' || profile === ''))
    failures.push({ property: 'profileName', reason: "profileName must be a non-empty string (the profile's name)" });

  const endpointType = plain.endpointType ?? plain.type;
  const typeProperty = plain.endpointType !== undefined && plain.endpointType !== null ? 'endpointType' : 'type';
  let typeReported = false;
  if (endpointType === undefined || endpointType === null) {
    failures.push({ property: 'endpointType', reason: 'endpointType is required: ExternalEndpoints, AzureEndpoints or NestedEndpoints' });
    typeReported = true;
  } else if (!isUnknown(endpointType) && (typeof endpointType !== 'string' || parseEndpointType(endpointType) === undefined)) {
    failures.push({
      property: typeProperty,
      reason: `${typeProperty} ${JSON.stringify(endpointType)} is not an endpoint type: ExternalEndpoints, AzureEndpoints or NestedEndpoints`,
    });
    typeReported = true;
  }
  const both = (a: string, b: string, same: (x: string, y: string) => boolean, what: string): void => {
    const x = plain[a];
    const y = plain[b];
    if (typeof x === 'string' && typeof y === 'string' && !same(x, y))
      failures.push({ property: b, reason: `${b} ${JSON.stringify(y)} and ${a} ${JSON.stringify(x)} differ: ${what}` });
  };
  both('endpointName', 'name', (x, y) => x === y, "give the endpoint's name once, as endpointName");
  both(
    'endpointType',
    'type',
    (x, y) => parseEndpointType(x) !== undefined && parseEndpointType(x) === parseEndpointType(y),
    'give the type once, as endpointType',
  );

  const pending: string[][] = [];
  const sane = pendingOf(plain, '', [], pending) as PlainMap;
  const endpoint = endpointInput(sane) as unknown as PlainMap;
  // The endpoint alone, in a profile without a routing method (whose rules are the profile's).
  const model = { name: SYNTHETIC, dnsConfig: { relativeName: 'endpoint-check' }, endpoints: [endpoint] };
  const prefix = `profiles[${SYNTHETIC}].endpoints${itemSegment(endpoint, 0, true)}`;
  const rename = { name: 'endpointName', type: typeProperty };
  for (const f of failuresOf(validateProfile(model), prefix, sane, rename, pending)) {
    if (typeReported && f.property === typeProperty) continue;
    failures.push(f);
  }
  return { inputs, failures };
}
