import { normalize } from '../../../src/core/model/normalize';
import type { Profile } from '../../../src/core/model/types';
import { formatDiagnostic, hasErrors, parseDocument, validate, validateProfile, type Diagnostic } from '../../../src/core/validate';
import { doc, ext, leaf, nested, one, profile, range, webApp } from './helpers';

const pairs = (d: Diagnostic[]): string[] => d.map((x) => `${x.code} ${x.path}`);
const deployed = (...profiles: Record<string, unknown>[]): Profile[] => normalize(doc(...profiles) as never).profiles;

describe('a whole document', () => {
  test('the design document example is valid', () => {
    const example = {
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'contoso',
          profileStatus: 'Enabled',
          trafficRoutingMethod: 'Performance',
          dnsConfig: { relativeName: 'contoso', ttl: 30 },
          monitorConfig: {
            protocol: 'HTTPS',
            port: 443,
            path: '/health',
            intervalInSeconds: 30,
            timeoutInSeconds: 10,
            toleratedNumberOfFailures: 3,
            customHeaders: [{ name: 'host', value: 'contoso.com' }],
            expectedStatusCodeRanges: [{ min: 200, max: 299 }],
          },
          endpoints: [
            {
              name: 'us',
              type: 'externalEndpoints',
              target: 'contoso-us.example.net',
              endpointLocation: 'westus',
              endpointStatus: 'Enabled',
            },
            { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'contoso-eu', endpointLocation: 'westeurope', minChildEndpoints: 1 },
            { name: 'app', type: 'azureEndpoints', targetResourceId: webApp('app') },
          ],
        },
        profile('contoso-eu', 'Weighted', [
          ext('prod', 'prod.example.net', { weight: 9 }),
          ext('canary', 'canary.example.net', { weight: 1 }),
        ]),
      ],
    };
    expect(validate(example)).toEqual([]);
  });

  test('a document breaking ten different rules yields exactly those ten diagnostics', () => {
    const bad = {
      apiVersion: 'tmkit/v0',
      profiles: [
        profile('web', 'Priority', [ext('a', 'a.example.com', { priority: 0 }), ext('b', '300.1.1.1', { priority: 2 })], {
          dnsConfig: { relativeName: 'web', ttl: -5 },
          monitorConfig: { timeoutInSeconds: 11 },
        }),
        profile('geo', 'Geographic', [
          nested('n1', 'missing', { geoMapping: ['WORLD', 'ZZ'] }),
          nested('n2', 'web', { geoMapping: ['WORLD'] }),
        ]),
        profile('sub', 'Subnet', [
          ext('e0', 'e0.example.com', { subnets: [{ first: '10.0.0.0', scope: 8 }] }),
          ext('e1', 'e1.example.com', { subnets: [{ first: '10.1.0.0', scope: 16 }] }),
          ext('e2', 'e2.example.com'),
        ]),
        profile('mv', 'MultiValue', [ext('v4', '192.0.2.1'), ext('v6', '2001:db8::1')], { maxReturn: 9 }),
      ],
    };
    expect(pairs(validate(bad))).toEqual([
      'API_VERSION apiVersion',
      'TTL_RANGE profiles[web].dnsConfig.ttl',
      'MONITOR_TIMEOUT_RANGE profiles[web].monitorConfig.timeoutInSeconds',
      'PRIORITY_RANGE profiles[web].endpoints[a].priority',
      'TARGET_INVALID profiles[web].endpoints[b].target',
      'GEO_CODE_UNKNOWN profiles[geo].endpoints[n1].geoMapping[1]',
      'GEO_CODE_DUPLICATE profiles[geo].endpoints[n2].geoMapping[0]',
      'NESTED_TARGET_NOT_FOUND profiles[geo].endpoints[n1].targetResourceId',
      'SUBNET_OVERLAP profiles[sub].endpoints[e1].subnets[0]',
      'MAX_RETURN_RANGE profiles[mv].maxReturn',
    ]);
  });

  test('paths fall back to the index when a name is missing or not a string', () => {
    const d = validate(
      doc(
        {
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'x' },
          endpoints: [{ type: 'externalEndpoints', target: 'a.example.com', weight: 0 }],
        },
        { name: 7, trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'y' } },
      ),
    );
    expect(pairs(d)).toEqual([
      'REQUIRED_PROPERTY profiles[0].name',
      'REQUIRED_PROPERTY profiles[0].endpoints[0].name',
      'WEIGHT_RANGE profiles[0].endpoints[0].weight',
      'INVALID_TYPE profiles[1].name',
    ]);
  });

  test('structural problems: wrong types, non-object items, unknown properties with a suggestion', () => {
    const d = validate({
      apiVersion: 'tmkit/v1',
      stack: 5,
      profiles: [
        'nope',
        { name: 'p', trafficroutingmethod: 'Priority', trafficRoutingMethod: 'Priority', dnsConfig: 'p', endpoints: {}, tags: { team: 1 } },
      ],
    });
    expect(pairs(d)).toEqual([
      'INVALID_TYPE stack',
      'INVALID_TYPE profiles[0]',
      'INVALID_TYPE profiles[p].dnsConfig',
      'INVALID_TYPE profiles[p].endpoints',
      'INVALID_TYPE profiles[p].tags.team',
      'UNKNOWN_PROPERTY profiles[p].trafficroutingmethod',
    ]);
    expect(d.find((x) => x.code === 'UNKNOWN_PROPERTY')!.hint).toBe('did you mean "trafficRoutingMethod"?');
    expect(validate({ apiVersion: 'tmkit/v1' }).map((x) => `${x.code} ${x.path}`)).toEqual(['REQUIRED_PROPERTY profiles']);
  });

  test('a wrongly typed value gets one diagnostic, not a cascade of rule failures', () => {
    expect(
      pairs(validate(one('Priority', [ext('a', 'a.example.com', { priority: '1', weight: null, geoMapping: 'WORLD', subnets: [5] })]))),
    ).toEqual([
      'INVALID_TYPE profiles[p].endpoints[a].weight',
      'INVALID_TYPE profiles[p].endpoints[a].priority',
      'INVALID_TYPE profiles[p].endpoints[a].geoMapping',
      'INVALID_TYPE profiles[p].endpoints[a].subnets[0]',
    ]);
  });

  test('diagnostics are ordered by profile, document-level first', () => {
    const d = validate({
      ...doc(leaf('a', { dnsConfig: { relativeName: 'a', ttl: -1 } }), leaf('b', { dnsConfig: { relativeName: 'A' } })),
      apiVersion: 'x',
    });
    expect(pairs(d)).toEqual([
      'API_VERSION apiVersion',
      'TTL_RANGE profiles[a].dnsConfig.ttl',
      'RELATIVE_NAME_DUPLICATE profiles[b].dnsConfig.relativeName',
    ]);
  });

  test('strictAzure adds only Azure rules', () => {
    const d = one('MultiValue', [ext('a', '192.168.1.1'), ext('b', '8.8.8.8')]);
    expect(validate(d)).toEqual([]);
    expect(pairs(validate(d, { strictAzure: true }))).toEqual(['TARGET_NOT_PUBLIC profiles[p].endpoints[a].target']);
  });
});

describe('context: deployed profiles not in the document', () => {
  test('a nested endpoint may name a deployed profile', () => {
    const d = doc(profile('p', 'Priority', [nested('n', 'child')]));
    expect(pairs(validate(d))).toEqual(['NESTED_TARGET_NOT_FOUND profiles[p].endpoints[n].targetResourceId']);
    expect(validate(d, { context: deployed(leaf('child')) })).toEqual([]);
  });

  test('deployed profiles are never reported on', () => {
    const ctx = deployed(leaf('child', { dnsConfig: { relativeName: 'child', ttl: -1 }, monitorConfig: { intervalInSeconds: 7 } }));
    expect(validate(doc(profile('p', 'Priority', [nested('n', 'child')])), { context: ctx })).toEqual([]);
  });

  test('relativeName is unique against deployed profiles too', () => {
    const d = validate(doc(leaf('p', { dnsConfig: { relativeName: 'Shop' } })), {
      context: deployed(leaf('other', { dnsConfig: { relativeName: 'shop' } })),
    });
    expect(pairs(d)).toEqual(['RELATIVE_NAME_DUPLICATE profiles[p].dnsConfig.relativeName']);
    expect(d[0]!.message).toContain('deployed profile "other"');
  });

  test('a document profile replaces the deployed profile of the same name', () => {
    expect(
      validate(doc(leaf('p', { dnsConfig: { relativeName: 'shop' } })), {
        context: deployed(leaf('P', { dnsConfig: { relativeName: 'shop' } })),
      }),
    ).toEqual([]);
  });

  test('cycles through deployed profiles are found and reported on the document side only', () => {
    const ctx = deployed(profile('b', 'Priority', [nested('back', 'a')]));
    const d = validate(doc(profile('a', 'Priority', [nested('n', 'b')])), { context: ctx });
    expect(pairs(d)).toEqual(['NESTING_CYCLE profiles[a].endpoints[n].targetResourceId']);
    expect(d[0]!.message).toContain('a → b → a');
  });

  test('nesting depth counts deployed levels', () => {
    const chainOf = (n: number): Record<string, unknown>[] =>
      range(n).map((i) => (i === n - 1 ? leaf(`n${i}`) : profile(`n${i}`, 'Priority', [nested('next', `n${i + 1}`)])));
    const top = doc(profile('top', 'Priority', [nested('n', 'n0')]));
    expect(validate(top, { context: deployed(...chainOf(9)) })).toEqual([]);
    expect(pairs(validate(top, { context: deployed(...chainOf(10)) }))).toEqual([
      'NESTING_DEPTH profiles[top].endpoints[n].targetResourceId',
    ]);
  });

  test('a deployed MultiValue child is checked for both address families', () => {
    const ctx = deployed(profile('mv', 'MultiValue', [ext('a', '192.0.2.1')]));
    const d = validate(doc(profile('p', 'Priority', [nested('n', 'mv', { minChildEndpointsIPv4: 1, minChildEndpointsIPv6: 0 })])), {
      context: ctx,
    });
    expect(pairs(d)).toEqual(['NESTED_MULTIVALUE_CHILD profiles[p].endpoints[n].targetResourceId']);
  });
});

describe('validateProfile', () => {
  test('paths still start with profiles[name]', () => {
    expect(pairs(validateProfile(profile('p', 'Priority', [ext('a', 'a.example.com', { priority: 0 })])))).toEqual([
      'PRIORITY_RANGE profiles[p].endpoints[a].priority',
    ]);
  });
  test('without a name the index 0 is used', () => {
    expect(pairs(validateProfile({ trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: 'x' } }))).toEqual([
      'REQUIRED_PROPERTY profiles[0].name',
    ]);
    expect(pairs(validateProfile(null))).toEqual(['INVALID_TYPE profiles[0]']);
  });
  test('checks against the context', () => {
    const p = profile('p', 'Priority', [nested('n', 'child')], { dnsConfig: { relativeName: 'taken' } });
    const ctx = deployed(leaf('child'), leaf('other', { dnsConfig: { relativeName: 'taken' } }));
    expect(pairs(validateProfile(p, { context: ctx }))).toEqual(['RELATIVE_NAME_DUPLICATE profiles[p].dnsConfig.relativeName']);
  });
});

describe('parseDocument, hasErrors, formatDiagnostic', () => {
  test('returns the normalized document only without errors', () => {
    const ok = parseDocument(one('Priority', [ext('a', 'a.example.com', { weight: 3 })]));
    expect(ok.diagnostics.map((d) => d.code)).toEqual(['WEIGHT_IGNORED']);
    expect(ok.document?.profiles[0]?.endpoints[0]).toMatchObject({ weight: 3, priority: 1, endpointStatus: 'Enabled' });
    const bad = parseDocument(one('Priority', [ext('a', 'a.example.com', { weight: 0 })]));
    expect(bad.document).toBeUndefined();
    expect(hasErrors(bad.diagnostics)).toBe(true);
    expect(hasErrors(ok.diagnostics)).toBe(false);
    expect(hasErrors([])).toBe(false);
  });
  test('formats one line', () => {
    expect(
      formatDiagnostic({ severity: 'error', code: 'PRIORITY_RANGE', path: 'profiles[x].endpoints[y].priority', message: 'm', hint: 'h' }),
    ).toBe('error  profiles[x].endpoints[y].priority  PRIORITY_RANGE  m (h)');
    expect(formatDiagnostic({ severity: 'warning', code: 'C', path: 'p', message: 'm' })).toBe('warning  p  C  m');
  });
});
