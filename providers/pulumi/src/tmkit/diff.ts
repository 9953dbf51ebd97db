/**
 * Diff for tmkit:index:Profile and tmkit:index:Endpoint: the plan engine's attribute diff
 * (core/plan/attributes.ts, what `tmkit plan` shows) of the old and new inputs, both normalized, so a value
 * left out and its default are the same, endpoints are matched by name rather than position, and a
 * display-name location equals its canonical one. Each change is reported at its Pulumi path in the inputs
 * (`endpoints[1].weight`). Replacements: profileName and dnsConfig.relativeName (the profile's DNS identity,
 * as the plan engine says), profileName, endpointName and endpointType for an Endpoint (its id). A value not
 * known yet is a change at its path. Pure.
 */
import { normalizeProfile } from '../../../../src/core/model/normalize';
import type { EndpointInput, ProfileInput } from '../../../../src/core/model/types';
import { diffAttributes } from '../../../../src/core/plan/attributes';
import type { AttributeChange } from '../../../../src/core/plan/types';
import type { DiffKind, DiffResult } from '../diff';
import { isObject, isUnknown, reveal, type Plain, type PlainMap, type PropertyMap } from '../values';
import { endpointInput, ownsEndpoints, profileInput } from './convert';
import { toPulumiPath } from './paths';

/** Stands in for a nested value not known yet: it equals nothing, so it is a change at its path. */
const PENDING = '\u2063(not known yet)';

function pending(v: Plain): Plain {
  if (isUnknown(v)) return PENDING;
  if (Array.isArray(v)) return v.map(pending);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, pending(x)]));
  return v;
}

class Detailed {
  readonly detailed: Record<string, DiffKind> = {};
  readonly replaces = new Set<string>();
  readonly tops = new Set<string>();

  add(path: string, kind: 'add' | 'delete' | 'update', replace: boolean): void {
    const k: DiffKind = replace ? `${kind}-replace` : kind;
    if (this.detailed[path] === undefined || replace) this.detailed[path] = k;
    const top = /^[^.[]*/.exec(path)![0] || path;
    this.tops.add(top);
    if (replace) this.replaces.add(top);
  }

  result(news: PlainMap): DiffResult {
    const stables = Object.keys(news)
      .filter((k) => !this.tops.has(k))
      .sort();
    return {
      changes: Object.keys(this.detailed).length > 0,
      replaces: [...this.replaces].sort(),
      stables,
      detailedDiff: this.detailed,
      deleteBeforeReplace: false,
    };
  }
}

const KIND: Record<AttributeChange['kind'], 'add' | 'delete' | 'update'> = {
  add: 'add',
  remove: 'delete',
  change: 'update',
  reorder: 'update',
};

/** Top-level inputs whose value is not known yet; reported as changes, and left at their old value for the model diff. */
function unknownTops(oldP: PlainMap, newP: PlainMap, d: Detailed, replaceKeys: ReadonlySet<string>): PlainMap {
  const out: PlainMap = { ...newP };
  for (const [k, v] of Object.entries(newP)) {
    if (!isUnknown(v)) continue;
    d.add(k, 'update', replaceKeys.has(k));
    if (oldP[k] === undefined) delete out[k];
    else out[k] = oldP[k]!;
  }
  return out;
}

const PROFILE_REPLACE = new Set(['profileName', 'dnsConfig']);

/**
 * Profile: settings always; endpoints only when the new inputs declare them (a Profile that declares none
 * never touches endpoints). Taking ownership compares with the endpoints last seen (outputs of an import).
 */
export function diffProfile(oldInputs: PropertyMap, olds: PropertyMap, news: PropertyMap): DiffResult {
  const oldP = reveal(oldInputs);
  const newP = reveal(news);
  const d = new Detailed();
  const newKnown = pending(unknownTops(oldP, newP, d, PROFILE_REPLACE)) as PlainMap;
  const before: ProfileInput = profileInput(oldP);
  const after: ProfileInput = profileInput(newKnown);
  const owns = ownsEndpoints(newP);
  if (owns && !ownsEndpoints(oldP)) {
    const seen = reveal(olds).endpoints;
    before.endpoints = (Array.isArray(seen) ? profileInput({ endpoints: seen }).endpoints : []) ?? [];
  }
  if (!owns) {
    delete before.endpoints;
    delete after.endpoints;
  }
  for (const c of diffAttributes(normalizeProfile(before), normalizeProfile(after))) {
    const root = c.kind === 'remove' ? oldP : newKnown;
    const path = toPulumiPath(c.path, root, { name: 'profileName' }) || c.path;
    d.add(path, KIND[c.kind], c.path === 'name' || c.forcesReplacement === true);
  }
  return d.result(newP);
}

const ENDPOINT_REPLACE = new Set(['profileName', 'endpointName', 'endpointType', 'name', 'type']);
const ONE = '_';

/** The endpoint normalized on its own (in a one-endpoint profile), under a fixed name. */
function normalized(e: EndpointInput) {
  return normalizeProfile({
    name: ONE,
    trafficRoutingMethod: 'Weighted',
    dnsConfig: { relativeName: ONE },
    endpoints: [{ ...e, name: ONE }],
  }).endpoints[0]!;
}

/**
 * Endpoint: its properties, normalized; a priority left out keeps the stored one (the server gives an
 * endpoint written without one the next free priority), so it is no change.
 */
export function diffEndpoint(oldInputs: PropertyMap, olds: PropertyMap, news: PropertyMap): DiffResult {
  const oldP = reveal(oldInputs);
  const newP = reveal(news);
  const d = new Detailed();
  const newKnown = pending(unknownTops(oldP, newP, d, ENDPOINT_REPLACE)) as PlainMap;
  const before = endpointInput(oldP);
  const after = endpointInput(newKnown);
  const oldOut = reveal(olds);
  if (after.priority === undefined) {
    const stored = before.priority ?? oldOut.priority;
    if (typeof stored === 'number') after.priority = stored;
    if (before.priority === undefined && typeof stored === 'number') before.priority = stored;
  }
  if (oldP.profileName !== newKnown.profileName && !isUnknown(newP.profileName)) d.add('profileName', 'update', true);
  if (before.name !== after.name && !isUnknown(newP.endpointName))
    d.add(newP.endpointName !== undefined ? 'endpointName' : 'name', 'update', true);
  const [b, a] = [normalized(before), normalized(after)];
  const typeAt = newP.endpointType !== undefined && newP.endpointType !== null ? 'endpointType' : 'type';
  if (b.type !== a.type && !isUnknown(newP[typeAt])) d.add(typeAt, 'update', true);
  for (const c of diffAttributes({ endpoints: [b] }, { endpoints: [{ ...a, type: b.type }] })) {
    const rel = c.path.replace(/^endpoints\[_\]\.?/, '');
    if (rel === '') continue;
    const root = c.kind === 'remove' ? oldP : newKnown;
    d.add(toPulumiPath(rel, root) || rel, KIND[c.kind], false);
  }
  return d.result(newP);
}
