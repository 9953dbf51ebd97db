import type { Diagnostic } from '../diagnostics';
/**
 * The order of a plan's steps (diff.ts computes the changes, this module orders them): which change must
 * wait for which, and one stable order that respects every wait, or the cycle that forbids one.
 */
import { nestedChildren } from '../model/names';
import type { DeployedProfile, PlanStep, ProfileChange } from './types';

/** Profile → (profile its step must come after → why). */
type Dependencies = Map<string, Map<string, string>>;
type Need = (who: string, on: string, why: string) => void;

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A PUT whose profile nests a child that this plan creates comes after that create (children first). */
function childrenFirst(active: readonly ProfileChange[], need: Need): void {
  const byLower = new Map(active.map((c) => [c.profile.toLowerCase(), c]));
  for (const c of active) {
    if (c.action === 'delete') continue;
    for (const child of nestedChildren(c.after!)) {
      const created = byLower.get(child);
      if (created?.action === 'create') need(c.profile, created.profile, `after create of ${created.profile} (nested by this profile)`);
    }
  }
}

/**
 * A DELETE comes after every step that removes a reference to it: the PUT of a parent that stops nesting
 * it, or the DELETE of a parent that goes too (parents first).
 */
function referencesFirst(
  active: readonly ProfileChange[],
  byName: ReadonlyMap<string, ProfileChange>,
  deployed: readonly DeployedProfile[],
  need: Need,
): void {
  const deployedParents = new Map<string, string[]>(); // deployed nesting: child (lower-cased) → parents
  for (const d of deployed) {
    for (const child of nestedChildren(d.profile)) {
      const list = deployedParents.get(child);
      if (list) list.push(d.profile.name);
      else deployedParents.set(child, [d.profile.name]);
    }
  }
  for (const c of active) {
    if (c.action !== 'delete') continue;
    const me = c.profile.toLowerCase();
    for (const parentName of deployedParents.get(me) ?? []) {
      const parent = byName.get(parentName);
      if (!parent) continue;
      if (parent.action === 'delete') need(c.profile, parent.profile, `after delete of ${parent.profile} (which nests this profile)`);
      else if (!nestedChildren(parent.after!).includes(me))
        need(c.profile, parent.profile, `after ${parent.action} of ${parent.profile} (which stops nesting this profile)`);
    }
  }
}

/** A PUT that takes a relativeName another of our profiles gives up comes after that profile's DELETE or PUT. */
function freedNamesFirst(active: readonly ProfileChange[], byName: ReadonlyMap<string, ProfileChange>, need: Need): void {
  const holder = new Map<string, string>();
  for (const c of active) if (c.before) holder.set(c.before.dnsConfig.relativeName.toLowerCase(), c.profile);
  for (const c of active) {
    if (!c.after) continue;
    const rn = c.after.dnsConfig.relativeName.toLowerCase();
    if (c.before && c.before.dnsConfig.relativeName.toLowerCase() === rn) continue;
    const h = holder.get(rn);
    if (h === undefined || h === c.profile) continue;
    const other = byName.get(h)!;
    if (other.action === 'delete' || other.after!.dnsConfig.relativeName.toLowerCase() !== rn) {
      need(c.profile, h, `after ${other.action} of ${h} (which frees relativeName ${c.after.dnsConfig.relativeName})`);
    }
  }
}

/** Every wait between the changes, each change's in rule order (nesting, references, relativeNames). */
function dependencies(active: readonly ProfileChange[], deployed: readonly DeployedProfile[]): Dependencies {
  const byName = new Map(active.map((c) => [c.profile, c]));
  const deps: Dependencies = new Map(active.map((c) => [c.profile, new Map<string, string>()]));
  const need: Need = (who, on, why) => {
    if (who !== on && byName.has(on)) deps.get(who)!.set(on, why);
  };
  childrenFirst(active, need);
  referencesFirst(active, byName, deployed, need);
  freedNamesFirst(active, byName, need);
  return deps;
}

/**
 * Kahn's algorithm; among the ready changes the smallest key (PUTs before DELETEs, then name) goes first.
 * Changes caught in a cycle are left out.
 */
function stableOrder(active: readonly ProfileChange[], deps: Dependencies): ProfileChange[] {
  const byName = new Map(active.map((c) => [c.profile, c]));
  const key = (c: ProfileChange): string => `${c.action === 'delete' ? 1 : 0}:${c.profile}`;
  const waiting = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const c of active) {
    waiting.set(c.profile, deps.get(c.profile)!.size);
    for (const d of deps.get(c.profile)!.keys()) {
      const list = dependents.get(d);
      if (list) list.push(c.profile);
      else dependents.set(d, [c.profile]);
    }
  }
  /** Ready changes sorted by key, descending, so the next one is popped from the end. */
  const ready = active.filter((c) => waiting.get(c.profile) === 0).sort((a, b) => cmp(key(b), key(a)));
  const insert = (c: ProfileChange): void => {
    const k = key(c);
    let lo = 0;
    let hi = ready.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(key(ready[mid]!), k) > 0) lo = mid + 1;
      else hi = mid;
    }
    ready.splice(lo, 0, c);
  };
  const order: ProfileChange[] = [];
  while (ready.length > 0) {
    const next = ready.pop()!;
    order.push(next);
    for (const d of dependents.get(next.profile) ?? []) {
      const left = waiting.get(d)! - 1;
      waiting.set(d, left);
      if (left === 0) insert(byName.get(d)!);
    }
  }
  return order;
}

function toStep(c: ProfileChange, deps: Dependencies): PlanStep {
  const action = c.action as PlanStep['action'];
  const step: PlanStep = {
    action,
    profile: c.profile,
    method: action === 'delete' ? 'DELETE' : 'PUT',
    after: [...deps.get(c.profile)!.values()],
  };
  if (action === 'create') step.ifNoneMatch = '*';
  else step.ifMatch = c.baseEtag!;
  return step;
}

/** The changes left waiting, by name (so the message does not depend on the order the changes came in). */
function cycleError(pending: readonly ProfileChange[], deps: Dependencies): Diagnostic {
  const left = new Set(pending.map((c) => c.profile));
  const names = [...left].sort(cmp);
  return {
    severity: 'error',
    code: 'PLAN_ORDER_CYCLE',
    path: 'profiles',
    message:
      `these changes depend on each other in a cycle and cannot be applied one call at a time: ${names.join(', ')} ` +
      `(${names.map((n) => `${n} waits for ${[...deps.get(n)!.keys()].filter((d) => left.has(d)).join(', ')}`).join('; ')})`,
    hint: 'split the change into two plans (e.g. free a relativeName or remove a nested endpoint first, apply, then plan the rest)',
  };
}

/**
 * Orders the changes into steps the runtime accepts at every moment:
 * - a PUT whose profile nests a child that this plan creates comes after that create (children first);
 * - a DELETE comes after every step that removes a reference to it: the PUT of a parent that stops nesting
 *   it, or the DELETE of a parent that goes too (parents first) — so no nested endpoint ever points at a
 *   missing profile, including updates that add or remove nesting;
 * - a PUT that takes a relativeName another of our profiles gives up comes after that profile's DELETE or
 *   PUT (the runtime keeps FQDNs unique).
 * Ties break by phase (PUTs before DELETEs) then profile name, so the order is stable. A cycle (e.g. two
 * profiles swapping relativeNames) cannot be applied one call at a time and is reported as an error.
 * No-op changes get no step.
 */
export function orderSteps(
  changes: readonly ProfileChange[],
  deployed: readonly DeployedProfile[],
): { steps: PlanStep[]; errors: Diagnostic[] } {
  const active = changes.filter((c) => c.action !== 'no-op');
  const deps = dependencies(active, deployed);
  const order = stableOrder(active, deps);
  if (order.length < active.length) {
    const done = new Set(order);
    return {
      steps: [],
      errors: [
        cycleError(
          active.filter((c) => !done.has(c)),
          deps,
        ),
      ],
    };
  }
  return { steps: order.map((c) => toStep(c, deps)), errors: [] };
}
