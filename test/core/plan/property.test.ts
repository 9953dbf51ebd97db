import fc from 'fast-check';
import { childProfileName } from '../../../src/core/model/names';
import type { Profile, ProfileInput } from '../../../src/core/model/types';
import { applyAttributeChanges, applyOrder, diff, type DeployedProfile } from '../../../src/core/plan';
import { deployedOf, doc } from './fixtures';

/**
 * Properties of diff + applyOrder on random estates:
 * - executing the steps one by one on the deployed state yields exactly the desired state, other stacks untouched;
 * - at no step does a nested endpoint point at a missing profile, and relativeNames stay unique;
 * - each update's attribute changes, applied to the deployed profile, give the desired profile;
 * - planning again after applying finds nothing to do.
 */
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];

const endpointArb = (self: string, children: string[]) =>
  fc
    .record({
      name: fc.constantFrom('e1', 'e2', 'e3', 'e 4'),
      weight: fc.integer({ min: 1, max: 3 }),
      geo: fc.subarray(['GEO-EU', 'FR', 'WORLD', 'US']),
      status: fc.constantFrom('Enabled', 'Enabled', 'Disabled'),
      header: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
      nestIn: children.length > 0 ? fc.option(fc.constantFrom(...children), { nil: undefined }) : fc.constant(undefined),
    })
    .map((e) => ({
      name: e.name,
      ...(e.nestIn !== undefined
        ? {
            type: 'nestedEndpoints',
            targetResourceId:
              e.nestIn.length % 2
                ? e.nestIn
                : `/subscriptions/s/resourceGroups/r/providers/Microsoft.Network/trafficManagerProfiles/${e.nestIn}`,
          }
        : { type: 'externalEndpoints', target: `${self}-${e.name.replace(' ', '')}.example.net` }),
      weight: e.weight,
      geoMapping: e.geo,
      endpointStatus: e.status as 'Enabled' | 'Disabled',
      ...(e.header !== undefined ? { customHeaders: [{ name: 'host', value: e.header }] } : {}),
    }));

/** A state: a subset of NAMES; a profile may nest only later names in that subset (acyclic). */
const stateArb = fc.subarray(NAMES, { minLength: 0 }).chain((names) =>
  fc.tuple(
    ...names.map((n, i) =>
      fc
        .record({
          method: fc.constantFrom('Weighted', 'Priority', 'Geographic'),
          ttl: fc.constantFrom(10, 30),
          suffix: fc.constantFrom('', '-v2'),
          interval: fc.constantFrom(10, 30),
          tags: fc.option(fc.dictionary(fc.constantFrom('team', 'env x'), fc.constantFrom('1', '2')), { nil: undefined }),
          endpoints: fc.uniqueArray(endpointArb(n, names.slice(i + 1)), { selector: (e) => e.name, maxLength: 3 }),
        })
        .map(
          (p): ProfileInput => ({
            name: n,
            trafficRoutingMethod: p.method as ProfileInput['trafficRoutingMethod'],
            dnsConfig: { relativeName: `${n}${p.suffix}`, ttl: p.ttl },
            monitorConfig: { intervalInSeconds: p.interval },
            ...(p.tags !== undefined ? { tags: p.tags } : {}),
            endpoints: p.endpoints as ProfileInput['endpoints'],
          }),
        ),
    ),
  ),
);

const children = (p: Profile): string[] =>
  p.endpoints.filter((e) => e.type === 'nestedEndpoints').map((e) => childProfileName(e.targetResourceId!));

function checkInvariants(state: Map<string, DeployedProfile>, where: string): void {
  const fqdns = new Set<string>();
  for (const { profile } of state.values()) {
    for (const c of children(profile)) {
      if (!state.has(c)) throw new Error(`${where}: ${profile.name} nests missing ${c}`);
    }
    const rn = profile.dnsConfig.relativeName.toLowerCase();
    if (fqdns.has(rn)) throw new Error(`${where}: relativeName ${rn} used twice`);
    fqdns.add(rn);
  }
}

const foreign = (): DeployedProfile[] =>
  deployedOf(
    doc('other', [
      {
        name: 'z',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'z' },
        endpoints: [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'zz' }],
      },
      {
        name: 'zz',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'zz' },
        endpoints: [{ name: 'x', type: 'externalEndpoints', target: 'x.example.net' }],
      },
    ]),
  );

test('applying the plan step by step turns the deployed state into the desired one, never dangling', () => {
  fc.assert(
    fc.property(stateArb, stateArb, (beforeIn, afterIn) => {
      const deployed = [...deployedOf(doc('web', beforeIn)), ...foreign()];
      const desired = doc('web', afterIn);
      const plan = diff(desired, deployed);
      if (plan.errors.length > 0) {
        // Only possible failure for these estates: a desired profile nesting one that does not exist afterwards.
        expect(plan.errors.every((e) => e.code === 'PLAN_NESTED_TARGET_MISSING')).toBe(true);
        expect(plan.steps).toEqual([]);
        return;
      }
      for (const c of plan.changes) {
        if (c.action === 'update' || c.action === 'replace') {
          expect(applyAttributeChanges(c.before!, c.attributes)).toEqual(JSON.parse(JSON.stringify(c.after)));
        }
        if (c.action === 'no-op') expect(c.attributes).toEqual([]);
      }
      const state = new Map(deployed.map((d) => [d.profile.name, d]));
      checkInvariants(state, 'before');
      let n = 0;
      for (const step of applyOrder(plan)) {
        const cur = state.get(step.profile);
        if (step.method === 'PUT') {
          if (step.ifNoneMatch === '*') expect(cur).toBeUndefined();
          else expect(cur?.etag).toBe(step.ifMatch);
          state.set(step.profile, { profile: step.body!, etag: `"${step.profile}-${++n}-new"`, stack: 'web' });
        } else {
          expect(cur?.etag).toBe(step.ifMatch);
          state.delete(step.profile);
        }
        checkInvariants(state, `after ${step.method} ${step.profile}`);
      }
      const webNow = [...state.values()]
        .filter((d) => d.stack === 'web')
        .map((d) => d.profile)
        .sort((a, b) => a.name.localeCompare(b.name));
      expect(webNow).toEqual([...desired.profiles].sort((a, b) => a.name.localeCompare(b.name)));
      expect([...state.values()].filter((d) => d.stack === 'other')).toEqual(foreign());
      const again = diff(desired, [...state.values()]);
      expect(again.changes.every((c) => c.action === 'no-op')).toBe(true);
      expect(again.steps).toEqual([]);
    }),
    { numRuns: 400 },
  );
});
