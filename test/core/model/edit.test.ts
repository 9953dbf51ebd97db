import fc from 'fast-check';
import {
  endpointEtag,
  findEndpoint,
  mergePatch,
  mergePatchFrom,
  withEndpoint,
  withEndpointPatch,
  withoutEndpoint,
  withSettingsPatch,
} from '../../../src/core/model/edit';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { ProfileInput } from '../../../src/core/model/types';
import { validateProfile } from '../../../src/core/validate';

const base: ProfileInput = {
  name: 'web',
  trafficRoutingMethod: 'Priority',
  dnsConfig: { relativeName: 'web', ttl: 30 },
  monitorConfig: { protocol: 'HTTP', port: 80, path: '/', intervalInSeconds: 30 },
  endpoints: [
    { name: 'a', type: 'externalEndpoints', target: '192.0.2.1' },
    { name: 'b', type: 'externalEndpoints', target: '192.0.2.2' },
  ],
};
const stored = normalizeProfile(base);

// RFC 7396 Appendix A, every example.
test.each([
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
])('mergePatch(%j, %j) = %j (RFC 7396 Appendix A)', (target, patch, result) => {
  expect(mergePatch(target, patch)).toEqual(result);
});

test('mergePatch never mutates its inputs', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (t, p) => {
      const [t0, p0] = [JSON.stringify(t), JSON.stringify(p)];
      mergePatch(t, p);
      return JSON.stringify(t) === t0 && JSON.stringify(p) === p0;
    }),
  );
});

test('withEndpoint replaces by name (case-insensitively) or appends; a new Priority endpoint gets the next free priority', () => {
  const replaced = withEndpoint(stored, { name: 'B', type: 'externalEndpoints', target: '192.0.2.9', priority: 2 });
  expect(replaced.created).toBe(false);
  expect(normalizeProfile(replaced.input).endpoints.map((e) => [e.name, e.target, e.priority])).toEqual([
    ['a', '192.0.2.1', 1],
    ['B', '192.0.2.9', 2],
  ]);
  const added = withEndpoint(stored, { name: 'c', type: 'externalEndpoints', target: '192.0.2.3' });
  expect(added.created).toBe(true);
  expect(normalizeProfile(added.input).endpoints.map((e) => [e.name, e.priority])).toEqual([
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ]);
  // Replacing without a priority keeps the endpoint's own one.
  expect(
    normalizeProfile(withEndpoint(stored, { name: 'a', type: 'externalEndpoints', target: '192.0.2.5' }).input).endpoints[0]!.priority,
  ).toBe(1);
  expect(stored.endpoints).toHaveLength(2); // input untouched
});

test('withoutEndpoint and withEndpointPatch address endpoints by name, undefined when absent', () => {
  expect(withoutEndpoint(stored, 'x')).toBeUndefined();
  expect(normalizeProfile(withoutEndpoint(stored, 'A')!).endpoints.map((e) => e.name)).toEqual(['b']);
  expect(withEndpointPatch(stored, 'x', {})).toBeUndefined();
  expect(normalizeProfile(withEndpointPatch(stored, 'b', { endpointStatus: 'Disabled' })!).endpoints[1]).toMatchObject({
    name: 'b',
    endpointStatus: 'Disabled',
    target: '192.0.2.2',
  });
});

test('withSettingsPatch merges settings, keeps endpoints, refuses endpoints and renames', () => {
  const r = withSettingsPatch(stored, { dnsConfig: { ttl: 60 }, monitorConfig: { path: '/health' }, tags: { team: 'web' } });
  if (!('input' in r)) throw new Error('expected an input');
  const p = normalizeProfile(r.input);
  expect(p.dnsConfig).toEqual({ relativeName: 'web', ttl: 60 });
  expect(p.monitorConfig).toMatchObject({ protocol: 'HTTP', port: 80, path: '/health', intervalInSeconds: 30 });
  expect(p.endpoints).toEqual(stored.endpoints);
  expect(p.tags).toEqual({ team: 'web' });
  expect(withSettingsPatch(stored, { endpoints: [] })).toMatchObject({ error: { code: 'BAD_REQUEST', path: 'profiles[web].endpoints' } });
  expect(withSettingsPatch(stored, { name: 'other' })).toMatchObject({ error: { code: 'NAME_MISMATCH' } });
});

test('an endpoint ETag changes exactly when that endpoint changes', () => {
  const a = findEndpoint(stored, 'a')!;
  const etag = endpointEtag('web', a);
  expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
  expect(endpointEtag('WEB', structuredClone(a))).toBe(etag);
  const otherChanged = normalizeProfile(
    withEndpoint(stored, { name: 'b', type: 'externalEndpoints', target: '192.0.2.8', priority: 2 }).input,
  );
  expect(endpointEtag('web', findEndpoint(otherChanged, 'a')!)).toBe(etag);
  expect(endpointEtag('web', { ...a, weight: 7 })).not.toBe(etag);
  expect(endpointEtag('other', a)).not.toBe(etag);
});

// Regression: a second endpoint written without a priority into a Weighted (any non-Priority) profile was
// refused with PRIORITY_PARTIAL, because the stored endpoints carry their derived priorities.
test.each(['Weighted', 'Performance', 'MultiValue'] as const)(
  'withEndpoint without a priority into a stored %s profile gives it the next free priority (valid)',
  async (method) => {
    const { validateProfile } = await import('../../../src/core/validate');
    const p = normalizeProfile({
      ...base,
      trafficRoutingMethod: method,
      endpoints: base.endpoints!.map((e) => ({ ...e, endpointLocation: 'westeurope' })),
    });
    const { input } = withEndpoint(p, { name: 'c', type: 'externalEndpoints', target: '192.0.2.3', endpointLocation: 'westus' });
    expect(validateProfile(input).filter((d) => d.severity === 'error')).toEqual([]);
    expect(normalizeProfile(input).endpoints.map((e) => [e.name, e.priority])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const empty = normalizeProfile({ ...base, trafficRoutingMethod: method, endpoints: [] });
    expect(
      withEndpoint(empty, { name: 'c', type: 'externalEndpoints', target: '192.0.2.3' }).input.endpoints![0]!.priority,
    ).toBeUndefined();
  },
);

test('withEndpoint without a priority into a Weighted (or any non-Priority) profile gives the next free one, so the profile stays valid', () => {
  // Regression: only Priority profiles got one, so PUT …/endpoints/{e} without priority into a Weighted
  // profile with endpoints failed with PRIORITY_PARTIAL ("priority is given on 2 of 3 endpoints").
  for (const method of ['Weighted', 'Performance', 'Geographic', 'MultiValue', 'Subnet'] as const) {
    const weighted = normalizeProfile({ ...base, trafficRoutingMethod: method });
    const added = withEndpoint(weighted, { name: 'c', type: 'externalEndpoints', target: '192.0.2.3' });
    expect(validateProfile(added.input).filter((d) => d.code.startsWith('PRIORITY'))).toEqual([]);
    expect(normalizeProfile(added.input).endpoints.map((e) => [e.name, e.priority])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const replaced = withEndpoint(weighted, { name: 'a', type: 'externalEndpoints', target: '192.0.2.5', weight: 9 });
    expect(normalizeProfile(replaced.input).endpoints.map((e) => [e.name, e.priority, e.weight])).toEqual([
      ['a', 1, 9],
      ['b', 2, 1],
    ]);
  }
});

/** JSON without nulls (a merge patch cannot set a value to null). */
const noNulls = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 3 }),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

test('mergePatchFrom(before, after) is the patch mergePatch needs: applying it to before gives after; equal values give {}', () => {
  fc.assert(
    fc.property(noNulls, noNulls, (before, after) => {
      expect(mergePatch(before, mergePatchFrom(before, after))).toEqual(after);
      const isObject = typeof after === 'object' && after !== null && !Array.isArray(after);
      expect(mergePatchFrom(after, structuredClone(after))).toEqual(isObject ? {} : after);
    }),
  );
  // Only what changed, nested: a removed key is null, an unchanged sibling is left out.
  expect(
    mergePatchFrom(
      { dnsConfig: { relativeName: 'a', ttl: 30 }, monitorConfig: { protocol: 'HTTP', path: '/' }, tags: { x: '1' } },
      { dnsConfig: { relativeName: 'a', ttl: 60 }, monitorConfig: { protocol: 'TCP' } },
    ),
  ).toEqual({ dnsConfig: { ttl: 60 }, monitorConfig: { protocol: 'TCP', path: null }, tags: null });
});
