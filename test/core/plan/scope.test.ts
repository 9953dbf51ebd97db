import fc from 'fast-check';
import { normalize } from '../../../src/core/model/normalize';
import type { DocumentInput, ProfileInput } from '../../../src/core/model/types';
import { desiredDocument, planScope, profileSummary, renderJson, type DeployedProfile } from '../../../src/core/plan';
import { planReport } from '../../../src/client/deploy';
import { testGeo } from './geo';

/**
 * The scoped read's promise (core/plan/scope.ts, client readDeployedFor): a plan made against only the
 * deployed profiles planScope names — diagnostics, changes, failover times, lints and the routing preview —
 * is the plan made against every deployed profile. Random estates over three stacks, with cross-stack
 * nesting, names equal but for case, shared relativeNames, nesting loops and missing children.
 */
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const STACKS = ['web', 'other', 'third'];
const FQDNS = ['a', 'b', 'c', 'x', 'y', 'shared'];
const geo = testGeo();

const endpointsArb = (self: string, nestable: string[]) =>
  fc
    .uniqueArray(
      fc.record({
        name: fc.constantFrom('e1', 'e2', 'e3'),
        weight: fc.integer({ min: 1, max: 3 }),
        geo: fc.subarray(['GEO-EU', 'FR', 'WORLD']),
        status: fc.constantFrom('Enabled', 'Enabled', 'Disabled'),
        nestIn: nestable.length > 0 ? fc.option(fc.constantFrom(...nestable), { nil: undefined }) : fc.constant(undefined),
      }),
      { selector: (e) => e.name, maxLength: 3 },
    )
    .map((eps) =>
      eps.map((e) => ({
        name: e.name,
        ...(e.nestIn !== undefined
          ? { type: 'nestedEndpoints', targetResourceId: e.nestIn, minChildEndpoints: 1 }
          : { type: 'externalEndpoints', target: `${self}-${e.name}.example.net` }),
        weight: e.weight,
        geoMapping: e.geo,
        endpointStatus: e.status,
      })),
    );

const profileArb = (name: string, nestable: string[]) =>
  fc
    .record({
      method: fc.constantFrom('Weighted', 'Priority', 'Geographic'),
      fqdn: fc.constantFrom(name, name, ...FQDNS),
      ttl: fc.constantFrom(10, 30),
      endpoints: endpointsArb(name, nestable),
    })
    .map(
      (p) =>
        ({
          name,
          trafficRoutingMethod: p.method,
          dnsConfig: { relativeName: p.fqdn, ttl: p.ttl },
          endpoints: p.endpoints,
        }) as unknown as ProfileInput,
    );

/** Deployed: a subset of NAMES, each in one stack, nesting only later names (a valid estate). */
const deployedArb = fc
  .subarray(NAMES)
  .chain((names) => fc.tuple(...names.map((n, i) => fc.tuple(fc.constantFrom(...STACKS), profileArb(n, names.slice(i + 1))))))
  .map((rows) => {
    const seen = new Set<string>();
    const out: DeployedProfile[] = [];
    for (const [stack, input] of rows) {
      const profile = normalize({ apiVersion: 'tmkit/v1', stack, profiles: [input] } as DocumentInput).profiles[0]!;
      if (seen.has(profile.dnsConfig.relativeName.toLowerCase())) continue; // deployed FQDNs are unique
      seen.add(profile.dnsConfig.relativeName.toLowerCase());
      out.push({ profile, stack, etag: `"${profile.name}-1"` });
    }
    return out;
  });

/** The document of stack "web": any names (maybe another case), nesting any name (deployed, its own, missing). */
const documentArb = fc
  .uniqueArray(fc.constantFrom(...NAMES, 'A', 'C', 'zz'), { selector: (n) => n.toLowerCase(), maxLength: 4 })
  .chain((names) => fc.tuple(...names.map((n) => profileArb(n, [...NAMES, 'B', 'missing']))))
  .map((profiles) => ({ apiVersion: 'tmkit/v1', stack: 'web', profiles }));

test('a plan against the scoped profiles is the plan against every deployed profile', () => {
  fc.assert(
    fc.property(deployedArb, documentArb, (deployed, raw) => {
      const summaries = deployed.map((d) => profileSummary(d.profile, d.stack, d.etag));
      const scope = new Set(planScope(raw, summaries));
      const scoped = deployed.filter((d) => scope.has(d.profile.name));

      const full = desiredDocument(raw, deployed);
      const part = desiredDocument(raw, scoped);
      expect(part.diagnostics).toEqual(full.diagnostics);
      if (!full.document) return;
      const a = planReport(full.document, { deployed }, { geo });
      const b = planReport(part.document!, { deployed: scoped }, { geo });
      expect(renderJson(b)).toEqual(renderJson(a));
    }),
    { numRuns: 400 },
  );
});

test('the scope of one new profile on a large server is that profile alone', () => {
  const deployed: DeployedProfile[] = Array.from({ length: 2000 }, (_, i) => ({
    profile: normalize({
      apiVersion: 'tmkit/v1',
      profiles: [{ name: `p${i}`, trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: `p${i}` }, endpoints: [] }],
    } as DocumentInput).profiles[0]!,
    stack: `s${i % 10}`,
    etag: `"${i}"`,
  }));
  const summaries = deployed.map((d) => profileSummary(d.profile, d.stack, d.etag));
  const raw = {
    apiVersion: 'tmkit/v1',
    stack: 'solo',
    profiles: [{ name: 'solo', trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'solo' }, endpoints: [] }],
  };
  expect(planScope(raw, summaries)).toEqual([]);
  // Nesting p7 (which nests nothing) and sharing p9's relativeName pulls in exactly those two.
  const raw2 = {
    ...raw,
    profiles: [
      {
        ...raw.profiles[0]!,
        dnsConfig: { relativeName: 'P9' },
        endpoints: [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'p7' }],
      },
    ],
  };
  expect(planScope(raw2, summaries)).toEqual(['p7', 'p9']);
});
