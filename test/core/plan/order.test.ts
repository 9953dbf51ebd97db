/**
 * orderSteps (src/core/plan/order.ts): the order of a plan's steps. Through diff() (the examples moved here
 * from diff.test.ts) and on its own: no-op changes get no step, ties break PUTs first then by name, each
 * step carries its precondition, and the order does not depend on the order the changes come in.
 */
import fc from 'fast-check';
import type { ProfileInput } from '../../../src/core/model/types';
import { diff, orderSteps, type DeployedProfile, type ProfileChange } from '../../../src/core/plan';
import { deployedOf, doc, webAfter } from './fixtures';

describe('ordering through diff', () => {
  test('two profiles swapping relativeNames form a cycle, reported as an error', () => {
    const mk = (name: string, rn: string) => ({
      name,
      trafficRoutingMethod: 'Priority' as const,
      dnsConfig: { relativeName: rn },
      endpoints: [{ name: 'x', type: 'externalEndpoints', target: `${name}.example.net` }],
    });
    const plan = diff(doc('web', [mk('a', 'two'), mk('b', 'one')]), deployedOf(doc('web', [mk('a', 'one'), mk('b', 'two')])));
    expect(plan.errors.map((e) => e.code)).toEqual(['PLAN_ORDER_CYCLE']);
    expect(plan.steps).toEqual([]);
  });

  test('a relativeName freed by a deleted profile is taken only after the delete', () => {
    const mk = (name: string, rn: string) => ({
      name,
      trafficRoutingMethod: 'Priority' as const,
      dnsConfig: { relativeName: rn },
      endpoints: [{ name: 'x', type: 'externalEndpoints', target: `${name}.example.net` }],
    });
    const plan = diff(doc('web', [mk('b', 'www')]), deployedOf(doc('web', [mk('a', 'www')])));
    expect(plan.steps.map((s) => `${s.method} ${s.profile}`)).toEqual(['DELETE a', 'PUT b']);
    expect(plan.steps[1]!.after[0]).toMatch(/frees relativeName www/);
  });

  test('children are created before the parents that nest them', () => {
    const after = webAfter();
    const desired = doc('web', after);
    const plan = diff(desired, []);
    const order = plan.steps.map((s) => s.profile);
    expect(order.indexOf('contoso-eu')).toBeLessThan(order.indexOf('contoso-geo'));
    expect(plan.steps.find((s) => s.profile === 'contoso-geo')!.after).toEqual(['after create of contoso-eu (nested by this profile)']);
  });
});

describe('ordering when updates add or remove nesting', () => {
  const leaf = (name: string) => ({
    name,
    trafficRoutingMethod: 'Priority' as const,
    dnsConfig: { relativeName: name },
    endpoints: [{ name: 'x', type: 'externalEndpoints', target: `${name}.example.net` }],
  });
  const parent = (...children: string[]) => ({
    name: 'parent',
    trafficRoutingMethod: 'Weighted' as const,
    dnsConfig: { relativeName: 'parent' },
    endpoints: [
      { name: 'own', type: 'externalEndpoints', target: 'own.example.net' },
      ...children.map((c) => ({ name: `to-${c}`, type: 'nestedEndpoints', targetResourceId: c })),
    ],
  });

  test.each([
    [
      'parent switches from old child to new child',
      [parent('old'), leaf('old')],
      [parent('new'), leaf('new')],
      ['PUT new', 'PUT parent', 'DELETE old'],
    ],
    ['parent stops nesting a child that goes away', [parent('c'), leaf('c')], [parent()], ['PUT parent', 'DELETE c']],
    ['parent starts nesting a new child', [parent()], [parent('c'), leaf('c')], ['PUT c', 'PUT parent']],
    [
      'a chain of three is deleted top-down',
      [
        { ...parent('mid'), name: 'top', dnsConfig: { relativeName: 'top' } },
        { ...parent('low'), name: 'mid', dnsConfig: { relativeName: 'mid' } },
        leaf('low'),
      ],
      [],
      ['DELETE top', 'DELETE mid', 'DELETE low'],
    ],
    [
      'a chain of three is created bottom-up',
      [],
      [
        { ...parent('mid'), name: 'top', dnsConfig: { relativeName: 'top' } },
        { ...parent('low'), name: 'mid', dnsConfig: { relativeName: 'mid' } },
        leaf('low'),
      ],
      ['PUT low', 'PUT mid', 'PUT top'],
    ],
  ])('%s', (_what, before, after, expected) => {
    const plan = diff(doc('web', after), deployedOf(doc('web', before)));
    expect(plan.errors).toEqual([]);
    expect(plan.steps.map((s) => `${s.method} ${s.profile}`)).toEqual(expected);
  });
});

describe('orderSteps on its own', () => {
  const mk = (name: string, rn = name, children: string[] = []): ProfileInput => ({
    name,
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: rn },
    endpoints: [
      { name: 'x', type: 'externalEndpoints', target: `${name}.example.net`, priority: 1 },
      ...children.map((c, i) => ({ name: `to-${c}`, type: 'nestedEndpoints', targetResourceId: c, priority: i + 2 })),
    ],
  });

  test('no-op changes get no step; with nothing to wait for, PUTs come first, then DELETEs, each by name', () => {
    const before = deployedOf(doc('web', [mk('d1'), mk('u2'), mk('keep'), mk('d0'), mk('u1')]));
    const after = doc('web', [mk('u2', 'u2', []), mk('keep'), mk('u1', 'u1-new'), mk('c9'), mk('c0')]);
    after.profiles[0]!.endpoints[0]!.weight = 7;
    const { changes } = diff(after, before);
    expect(changes.find((c) => c.profile === 'keep')!.action).toBe('no-op');
    const { steps, errors } = orderSteps([...changes].reverse(), before);
    expect(errors).toEqual([]);
    expect(steps.map((s) => `${s.method} ${s.profile}`)).toEqual(['PUT c0', 'PUT c9', 'PUT u1', 'PUT u2', 'DELETE d0', 'DELETE d1']);
    expect(steps.every((s) => s.after.length === 0)).toBe(true);
  });

  test('a create is guarded by If-None-Match: *, every other step by the ETag it was planned against', () => {
    const before = deployedOf(doc('web', [mk('gone'), mk('upd')]), '7');
    const { changes } = diff(doc('web', [mk('upd', 'upd2'), mk('new')]), before);
    const { steps } = orderSteps(changes, before);
    expect(steps.map((s) => [s.action, s.profile, s.ifMatch ?? null, s.ifNoneMatch ?? null])).toEqual([
      ['create', 'new', null, '*'],
      ['replace', 'upd', '"upd-7"', null],
      ['delete', 'gone', '"gone-7"', null],
    ]);
  });

  test('a cycle names every profile in it and what each waits for, by name whatever order the changes came in', () => {
    const before = deployedOf(doc('web', [mk('a', 'one'), mk('b', 'two'), mk('c')]));
    const { changes } = diff(doc('web', [mk('a', 'two'), mk('b', 'one'), mk('c', 'c2')]), before);
    const { steps, errors } = orderSteps([...changes].reverse(), before);
    expect(steps).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe('PLAN_ORDER_CYCLE');
    expect(errors[0]!.message).toContain('cannot be applied one call at a time: a, b (a waits for b; b waits for a)');
  });

  // Random estates of one stack: unique relativeNames drawn from a small pool (so profiles take names others
  // give up, and may swap them: cycles), nesting only later names of the same state.
  const NAMES = ['a', 'b', 'c', 'd', 'e'];
  const stateArb = fc.subarray(NAMES).chain((names) =>
    fc
      .tuple(
        fc.shuffledSubarray(['r1', 'r2', 'r3', 'r4', 'r5', 'r6'], { minLength: names.length, maxLength: names.length }),
        fc.tuple(...names.map((_, i) => fc.subarray(names.slice(i + 1)))),
        fc.tuple(...names.map(() => fc.boolean())),
      )
      .map(([rns, kids, deviate]) =>
        names.map((n, i) => {
          const p = mk(n, rns[i]!, kids[i]!);
          if (deviate[i]) p.endpoints![0]!.weight = 5;
          return p;
        }),
      ),
  );

  test('the order depends on the changes, not on the order they come in', () => {
    fc.assert(
      fc.property(
        stateArb,
        stateArb,
        fc.array(fc.double({ noNaN: true }), { minLength: NAMES.length, maxLength: NAMES.length }),
        (before, after, keys) => {
          const deployed: DeployedProfile[] = deployedOf(doc('web', before));
          const { changes } = diff(doc('web', after), deployed);
          const shuffled: ProfileChange[] = changes
            .map((c, i) => [keys[i]!, c] as const)
            .sort((x, y) => x[0] - y[0])
            .map(([, c]) => c);
          const a = orderSteps(changes, deployed);
          const flat = (r: typeof a) => ({
            steps: r.steps.map((s) => [s.method, s.profile, s.ifMatch, s.ifNoneMatch, s.after]),
            errors: r.errors,
          });
          expect(flat(orderSteps(shuffled, deployed))).toEqual(flat(a));
          // Every change that does something gets exactly one step, unless a cycle forbids any order.
          const active = changes
            .filter((c) => c.action !== 'no-op')
            .map((c) => c.profile)
            .sort();
          if (a.errors.length === 0) expect(a.steps.map((s) => s.profile).sort()).toEqual(active);
          else expect(a.steps).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
