import type { Diagnostic } from '../diagnostics';
import { childProfileName, nestedChildren } from '../model/names';
import type { Document, Profile } from '../model/types';
import { diffAttributes, REPLACE_PATHS, toJson } from './attributes';
import { orderSteps } from './order';
import type { DeployedProfile, Plan, PlanStep, PlanSummary, ProfileAction, ProfileChange } from './types';

/**
 * `diff(desired, deployed)` → `Plan` (README.md, Concepts: stack):
 * - only deployed profiles of the document's `stack` are compared: one that left the document is deleted,
 *   another stack's profile is never touched, and a desired name owned by another stack is an error;
 * - per profile: create / update / replace / delete / no-op with attribute changes (see attributes.ts);
 * - `steps`: an order the runtime accepts (see `orderSteps` in order.ts).
 * Pure: inputs are deep-copied into the plan, never mutated.
 */
export function diff(desired: Document, deployed: readonly DeployedProfile[]): Plan {
  const stack = desired.stack;
  const errors: Diagnostic[] = [];
  const deployedBy = new Map<string, DeployedProfile>();
  for (const d of deployed) deployedBy.set(d.profile.name, d);
  const desiredBy = new Map<string, Profile>();
  for (const p of desired.profiles) {
    if (desiredBy.has(p.name)) {
      errors.push({
        severity: 'error',
        code: 'PLAN_DUPLICATE_PROFILE',
        path: `profiles[${p.name}]`,
        profile: p.name,
        message: `profile ${p.name} appears more than once in the document`,
        hint: 'give each profile a unique name',
      });
      continue;
    }
    desiredBy.set(p.name, p);
  }

  const changes: ProfileChange[] = [];
  for (const [name, after] of desiredBy) {
    const dep = deployedBy.get(name);
    if (dep && dep.stack !== stack) {
      errors.push({
        severity: 'error',
        code: 'PLAN_PROFILE_OWNED_BY_OTHER_STACK',
        path: `profiles[${name}]`,
        profile: name,
        message: `profile ${name} is deployed by stack "${dep.stack}", not by this document's stack "${stack}"`,
        hint:
          `rename the profile, or move it: delete it from stack "${dep.stack}" first ` +
          `(or set "stack": "${dep.stack}" in this document if it is the same owner)`,
      });
      continue;
    }
    if (!dep) {
      changes.push({ profile: name, action: 'create', after: clone(after), attributes: [], replaceReasons: [] });
      continue;
    }
    const attributes = diffAttributes(dep.profile, after);
    const replaceReasons = attributes.filter((a) => a.forcesReplacement).map((a) => REPLACE_PATHS[a.path]!);
    const action: ProfileAction = attributes.length === 0 ? 'no-op' : replaceReasons.length > 0 ? 'replace' : 'update';
    changes.push({
      profile: name,
      action,
      before: clone(dep.profile),
      after: clone(after),
      baseEtag: dep.etag,
      attributes,
      replaceReasons,
    });
  }
  for (const dep of deployed) {
    if (dep.stack !== stack || desiredBy.has(dep.profile.name)) continue;
    changes.push({
      profile: dep.profile.name,
      action: 'delete',
      before: clone(dep.profile),
      baseEtag: dep.etag,
      attributes: [],
      replaceReasons: [],
    });
  }
  changes.sort((a, b) => cmp(a.profile, b.profile));

  errors.push(...referenceErrors(stack, changes, deployed));
  const ordered = errors.length === 0 ? orderSteps(changes, deployed) : { steps: [], errors: [] };
  errors.push(...ordered.errors);

  return {
    stack,
    changes,
    steps: errors.length === 0 ? ordered.steps : [],
    errors,
    summary: summarize(changes),
  };
}

function summarize(changes: readonly ProfileChange[]): PlanSummary {
  const count = (action: ProfileAction): number => changes.filter((c) => c.action === action).length;
  return { add: count('create'), change: count('update'), replace: count('replace'), destroy: count('delete'), unchanged: count('no-op') };
}

const clone = (p: Profile): Profile => toJson(p) as unknown as Profile;
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The profiles that exist once the plan is applied: other stacks' untouched, ours as desired. */
export function plannedProfiles(plan: Plan, deployed: readonly DeployedProfile[]): Map<string, Profile> {
  const out = new Map<string, Profile>();
  for (const d of deployed) out.set(d.profile.name, d.profile);
  for (const c of plan.changes) {
    if (c.action === 'delete') out.delete(c.profile);
    else if (c.after) out.set(c.profile, c.after);
  }
  return out;
}

/** What the runtime would refuse because of references between profiles, in rule order. */
function referenceErrors(stack: string, changes: readonly ProfileChange[], deployed: readonly DeployedProfile[]): Diagnostic[] {
  return [
    ...danglingNested(changes, deployed),
    ...deletesReferenced(stack, changes, deployed),
    ...relativeNamesTaken(stack, changes, deployed),
  ];
}

/** A nested endpoint whose child will not exist once the plan is applied. */
function danglingNested(changes: readonly ProfileChange[], deployed: readonly DeployedProfile[]): Diagnostic[] {
  const errors: Diagnostic[] = [];
  const afterNames = new Set<string>();
  for (const d of deployed) afterNames.add(d.profile.name.toLowerCase());
  for (const c of changes) if (c.action === 'delete') afterNames.delete(c.profile.toLowerCase());
  for (const c of changes) if (c.after) afterNames.add(c.profile.toLowerCase());

  for (const c of changes) {
    if (!c.after) continue;
    for (const e of c.after.endpoints) {
      if (e.type !== 'nestedEndpoints' || typeof e.targetResourceId !== 'string') continue;
      const child = childProfileName(e.targetResourceId);
      if (afterNames.has(child.toLowerCase())) continue;
      const leaving = changes.some((x) => x.profile.toLowerCase() === child.toLowerCase() && x.action === 'delete');
      errors.push({
        severity: 'error',
        code: 'PLAN_NESTED_TARGET_MISSING',
        path: `profiles[${c.profile}].endpoints[${e.name}].targetResourceId`,
        profile: c.profile,
        message: leaving
          ? `nested endpoint ${c.profile}/${e.name} points at profile ${child}, which this plan deletes (it left the document)`
          : `nested endpoint ${c.profile}/${e.name} points at profile ${child}, which is neither in the document nor deployed`,
        hint: `add profile ${child} to the document, or point the endpoint at an existing profile`,
      });
    }
  }
  return errors;
}

/** Another stack's profile nesting one we delete: the runtime would refuse the delete (409). */
function deletesReferenced(stack: string, changes: readonly ProfileChange[], deployed: readonly DeployedProfile[]): Diagnostic[] {
  const errors: Diagnostic[] = [];
  for (const c of changes) {
    if (c.action !== 'delete') continue;
    for (const d of deployed) {
      if (d.stack === stack) continue;
      if (nestedChildren(d.profile).includes(c.profile.toLowerCase())) {
        errors.push({
          severity: 'error',
          code: 'PLAN_DELETE_REFERENCED',
          path: `profiles[${c.profile}]`,
          profile: c.profile,
          message: `profile ${c.profile} left the document but profile ${d.profile.name} of stack "${d.stack}" nests it, so it cannot be deleted`,
          hint: `keep ${c.profile} in the document, or remove the nested endpoint from ${d.profile.name} (stack "${d.stack}") first`,
        });
      }
    }
  }
  return errors;
}

/** A relativeName held by another stack's profile: the runtime would refuse the PUT. */
function relativeNamesTaken(stack: string, changes: readonly ProfileChange[], deployed: readonly DeployedProfile[]): Diagnostic[] {
  const errors: Diagnostic[] = [];
  const foreignFqdn = new Map<string, DeployedProfile>();
  for (const d of deployed) if (d.stack !== stack) foreignFqdn.set(d.profile.dnsConfig.relativeName.toLowerCase(), d);
  for (const c of changes) {
    if (!c.after || c.action === 'no-op') continue;
    const holder = foreignFqdn.get(c.after.dnsConfig.relativeName.toLowerCase());
    if (holder && holder.profile.name !== c.profile) {
      errors.push({
        severity: 'error',
        code: 'PLAN_RELATIVE_NAME_TAKEN',
        path: `profiles[${c.profile}].dnsConfig.relativeName`,
        profile: c.profile,
        message: `relativeName ${c.after.dnsConfig.relativeName} is already used by profile ${holder.profile.name} of stack "${holder.stack}"`,
        hint: 'choose another relativeName',
      });
    }
  }
  return errors;
}

/** The plan's steps (the order `tmkit apply` executes), with the profile body each PUT sends. */
export function applyOrder(plan: Plan): Array<PlanStep & { body?: Profile }> {
  const by = new Map(plan.changes.map((c) => [c.profile, c]));
  return plan.steps.map((s) => (s.method === 'PUT' ? { ...s, body: clone(by.get(s.profile)!.after!) } : { ...s }));
}

/**
 * Whether a plan still fits the deployed state (`tmkit apply plan.json` runs this against the server's
 * `GET /v1/profiles` first): every profile the plan compared must still have the ETag it had, and every
 * profile it creates must still be absent. Empty when the plan can be applied; otherwise one
 * `PLAN_STALE` issue per profile that changed since, saying what changed.
 */
export function checkPlanBase(plan: Plan, current: readonly DeployedProfile[]): Diagnostic[] {
  const now = new Map(current.map((d) => [d.profile.name, d]));
  const out: Diagnostic[] = [];
  const stale = (profile: string, what: string): void => {
    out.push({
      severity: 'error',
      code: 'PLAN_STALE',
      path: `profiles[${profile}]`,
      profile,
      message: `profile ${profile} ${what} since the plan was made`,
      hint: 'someone deployed in between: run `tmkit plan` again, review the new plan, then apply it',
    });
  };
  for (const c of plan.changes) {
    const cur = now.get(c.profile);
    if (c.action === 'create') {
      if (cur) stale(c.profile, `was created (stack "${cur.stack}", ETag ${cur.etag})`);
      continue;
    }
    if (!cur) {
      stale(c.profile, 'was deleted');
      continue;
    }
    if (cur.stack !== plan.stack) {
      stale(c.profile, `moved to stack "${cur.stack}"`);
      continue;
    }
    if (cur.etag !== c.baseEtag) stale(c.profile, `changed (ETag ${c.baseEtag} → ${cur.etag})`);
  }
  // A profile of this stack the plan never saw: the plan would leave it alone although it left the document.
  const known = new Set(plan.changes.map((c) => c.profile));
  for (const d of current)
    if (d.stack === plan.stack && !known.has(d.profile.name)) stale(d.profile.name, `was added to stack "${plan.stack}"`);
  return out;
}
