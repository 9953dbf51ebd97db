/**
 * The per-profile index the Terraform provider checks endpoints with (providers/terraform/src/tmkit/context.ts):
 * it finds exactly the stored endpoints one endpoint can clash with, stays in step with the listing's profile
 * as writes land, and validating an endpoint with just those finds the errors the validator finds on it in the
 * whole profile (the cross-endpoint rules: priority, geographic codes, target address, address family,
 * subnets, the Subnet fallback), with a profile of 200 endpoints.
 */
import type { ProfileEntry } from '../../../src/core/api';
import { withEndpoint } from '../../../src/core/model/edit';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { EndpointInput, ProfileInput } from '../../../src/core/model/types';
import { validateProfile } from '../../../src/core/validate';
import { ProfileIndex } from '../../../providers/terraform/src/tmkit/context';

function entry(method: ProfileInput['trafficRoutingMethod'], endpoints: EndpointInput[]): ProfileEntry {
  const profile = normalizeProfile({ name: 'web', trafficRoutingMethod: method, dnsConfig: { relativeName: 'web' }, endpoints });
  return { name: 'web', stack: 'terraform', etag: '"x"', profile };
}

/** 200 endpoints: e0..e199, priorities 1..200, one address each, a geographic code each (Geographic). */
const many = (over: (i: number) => Partial<EndpointInput> = () => ({})): EndpointInput[] =>
  Array.from({ length: 200 }, (_, i) => ({
    name: `e${i}`,
    type: 'externalEndpoints',
    target: `10.0.${i >> 8}.${i & 255}`,
    priority: i + 1,
    ...over(i),
  }));

/** The error codes on endpoint `e` when the validator sees the whole profile with it written. */
function whole(en: ProfileEntry, e: EndpointInput): string[] {
  const prefix = `profiles[web].endpoints[${e.name}]`;
  return validateProfile(withEndpoint(en.profile, e).input)
    .filter((d) => d.severity === 'error' && (d.path === prefix || d.path.startsWith(`${prefix}.`)))
    .map((d) => d.code)
    .sort();
}

/** The same from the index: the endpoint last, after the stored endpoints it can clash with. */
function probed(en: ProfileEntry, e: EndpointInput): string[] {
  const ix = new ProfileIndex(en);
  const { endpoints: _all, ...settings } = en.profile;
  const related = ix.relatedTo(e);
  expect(related.length).toBeLessThan(10);
  const prefix = `profiles[web].endpoints[${e.name}]`;
  return validateProfile({ ...settings, endpoints: [...related, e] })
    .filter((d) => d.severity === 'error' && (d.path === prefix || d.path.startsWith(`${prefix}.`)))
    .map((d) => d.code)
    .sort();
}

test('an endpoint is paired with the holders of its priority, codes and address, one endpoint per address family, nothing else', () => {
  const en = entry(
    'Geographic',
    many((i) => ({ geoMapping: i < 4 ? [['WORLD', 'DE', 'FR', 'US'][i]!] : [] })),
  );
  const ix = new ProfileIndex(en);
  const names = (e: EndpointInput): string[] => ix.relatedTo(e).map((x) => x.name);
  expect(names({ name: 'new', type: 'externalEndpoints', target: '10.0.0.7', priority: 4, geoMapping: ['FR'] })).toEqual([
    'e0',
    'e2',
    'e3',
    'e7',
  ]);
  // Itself is never its own clash (an update), nor what `except` names (an endpoint being replaced).
  expect(names({ name: 'e2', type: 'externalEndpoints', target: '10.0.0.2', priority: 3 })).toEqual(['e0']);
  expect(
    ix.relatedTo({ name: 'new', type: 'externalEndpoints', target: 'www.example.com', priority: 3 }, new Set(['e2'])).map((x) => x.name),
  ).toEqual(['e0']);
});

test("put and remove keep the index and the listing's profile in step", () => {
  const en = entry('Priority', many().slice(0, 3));
  const ix = new ProfileIndex(en);
  ix.put(
    normalizeProfile({
      name: 'web',
      trafficRoutingMethod: 'Priority',
      dnsConfig: { relativeName: 'web' },
      endpoints: [{ name: 'E1', type: 'externalEndpoints', target: '10.9.9.9', priority: 7 }],
    }).endpoints[0]!,
  );
  expect(en.profile.endpoints.map((e) => [e.name, e.priority])).toEqual([
    ['e0', 1],
    ['E1', 7],
    ['e2', 3],
  ]);
  expect(ix.relatedTo({ name: 'x', type: 'externalEndpoints', target: '10.0.0.1', priority: 2 }).map((e) => e.name)).toEqual(['e0']);
  expect(ix.relatedTo({ name: 'x', type: 'externalEndpoints', target: '10.9.9.9', priority: 7 }).map((e) => e.name)).toEqual(['e0', 'E1']);
  ix.remove('e0');
  expect(en.profile.endpoints.map((e) => e.name)).toEqual(['E1', 'e2']);
  expect(ix.size).toBe(2);
  expect(ix.get('e1')?.target).toBe('10.9.9.9');
});

type Case = [string, ProfileInput['trafficRoutingMethod'], ((i: number) => Partial<EndpointInput>) | undefined, Partial<EndpointInput>];
test.each<Case>([
  ['a duplicate priority', 'Priority', undefined, { target: '10.1.0.1', priority: 57 }],
  ['a duplicate target address', 'Weighted', undefined, { target: '10.0.0.9' }],
  ['an FQDN among IPv4 targets', 'Weighted', undefined, { target: 'www.example.com' }],
  ['an IPv6 target among IPv4 ones', 'Priority', undefined, { target: '2001:db8::1', priority: 500 }],
  [
    'a geographic code another endpoint has',
    'Geographic',
    (i: number) => ({ geoMapping: [i === 0 ? 'WORLD' : `US-${['CA', 'NY', 'TX', 'WA'][i % 4]}`].slice(0, i < 5 ? 1 : 0) }),
    { target: '10.1.0.1', geoMapping: ['US-TX'] },
  ],
  [
    'an overlapping subnet',
    'Subnet',
    (i: number) => (i === 0 ? {} : { subnets: [{ first: `192.168.${i}.0`, scope: 24 }] }),
    { target: '10.1.0.1', subnets: [{ first: '192.168.7.128', scope: 25 }] },
  ],
  [
    'a second Subnet fallback',
    'Subnet',
    (i: number) => (i === 0 ? {} : { subnets: [{ first: `192.168.${i}.0`, scope: 24 }] }),
    { target: '10.1.0.1' },
  ],
  ['no clash at all', 'Priority', undefined, { target: '10.1.0.1', priority: 900 }],
])('%s: the index finds the errors the whole profile has on the endpoint', (_what, method, over, e) => {
  const en = entry(method, many(over));
  const endpoint: EndpointInput = { name: 'new', type: 'externalEndpoints', ...e };
  const expected = whole(en, endpoint);
  expect(probed(en, endpoint)).toEqual(expected);
});
