import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Construct } from 'constructs';
import fc from 'fast-check';
import {
  App,
  AzureEndpoint,
  ExternalEndpoint,
  InvalidPropsError,
  NestedEndpoint,
  Profile,
  SynthError,
  markDocumentScope,
  synthDocument,
  validateConstructs,
  type ProfileProps,
} from '../../src/constructs';

const SUB = '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers';

/** The error a function throws (fails the test when it does not throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error, none was thrown');
}

describe('props rejected in the constructor, with the construct path', () => {
  const base: ProfileProps = { trafficRoutingMethod: 'Priority' };

  test.each<[string, string, ProfileProps, string]>([
    ['name from an invalid id', 'bad_id!', base, 'name (from the construct id)'],
    ['explicit invalid name', 'p', { ...base, name: '-starts-with-dash' }, 'name'],
    ['name too long', 'p', { ...base, name: 'a'.repeat(64) }, 'name'],
    ['unknown routing method', 'p', { trafficRoutingMethod: 'Fastest' as never }, 'trafficRoutingMethod'],
    ['missing routing method', 'p', {} as ProfileProps, 'trafficRoutingMethod is required'],
    ['profileStatus', 'p', { ...base, profileStatus: 'On' as never }, 'profileStatus'],
    ['negative ttl', 'p', { ...base, dnsConfig: { ttl: -1 } }, 'dnsConfig.ttl'],
    ['fractional ttl', 'p', { ...base, dnsConfig: { ttl: 1.5 } }, 'dnsConfig.ttl'],
    ['empty relativeName', 'p', { ...base, dnsConfig: { relativeName: '' } }, 'dnsConfig.relativeName'],
    ['port 0', 'p', { ...base, monitorConfig: { port: 0 } }, 'monitorConfig.port'],
    ['port 65536', 'p', { ...base, monitorConfig: { port: 65536 } }, 'monitorConfig.port'],
    ['protocol', 'p', { ...base, monitorConfig: { protocol: 'UDP' as never } }, 'monitorConfig.protocol'],
    ['interval 15', 'p', { ...base, monitorConfig: { intervalInSeconds: 15 as never } }, 'monitorConfig.intervalInSeconds'],
    [
      'timeout 10 with interval 10',
      'p',
      { ...base, monitorConfig: { intervalInSeconds: 10, timeoutInSeconds: 10 } },
      'monitorConfig.timeoutInSeconds',
    ],
    ['timeout 4', 'p', { ...base, monitorConfig: { timeoutInSeconds: 4 } }, 'monitorConfig.timeoutInSeconds'],
    [
      'tolerated failures 10',
      'p',
      { ...base, monitorConfig: { toleratedNumberOfFailures: 10 } },
      'monitorConfig.toleratedNumberOfFailures',
    ],
    ['path with TCP', 'p', { ...base, monitorConfig: { protocol: 'TCP', path: '/' } }, 'monitorConfig.path'],
    ['path not starting with /', 'p', { ...base, monitorConfig: { path: 'health' } }, 'monitorConfig.path'],
    [
      '9 custom headers',
      'p',
      { ...base, monitorConfig: { customHeaders: Array.from({ length: 9 }, (_, i) => ({ name: `h${i}`, value: 'v' })) } },
      'monitorConfig.customHeaders',
    ],
    [
      'status range min > max',
      'p',
      { ...base, monitorConfig: { expectedStatusCodeRanges: [{ min: 300, max: 200 }] } },
      'monitorConfig.expectedStatusCodeRanges[0]',
    ],
    [
      'status range below 100',
      'p',
      { ...base, monitorConfig: { expectedStatusCodeRanges: [{ min: 99, max: 200 }] } },
      'monitorConfig.expectedStatusCodeRanges[0]',
    ],
    [
      'certificateValidation',
      'p',
      { ...base, monitorConfig: { protocol: 'HTTPS', certificateValidation: 'On' as never } },
      'monitorConfig.certificateValidation',
    ],
    [
      'caCertificates not PEM',
      'p',
      { ...base, monitorConfig: { protocol: 'HTTPS', certificateValidation: 'Enabled', caCertificates: 'ca.pem' } },
      'monitorConfig.caCertificates',
    ],
    [
      'certificateExpiryWarningDays 400',
      'p',
      { ...base, monitorConfig: { certificateExpiryWarningDays: 400 } },
      'monitorConfig.certificateExpiryWarningDays',
    ],
    ['degradedLatencyMs 0', 'p', { ...base, monitorConfig: { degradedLatencyMs: 0 } }, 'monitorConfig.degradedLatencyMs'],
    [
      '11 checks',
      'p',
      { ...base, monitorConfig: { checks: Array.from({ length: 11 }, (_, i) => ({ name: `c${i}` })) } },
      'monitorConfig.checks',
    ],
    ['a check without a name', 'p', { ...base, monitorConfig: { checks: [{} as never] } }, 'monitorConfig.checks[0].name is required'],
    [
      'a check both mustBeHealthy and monitoringOnly',
      'p',
      { ...base, monitorConfig: { checks: [{ name: 'db', mustBeHealthy: true, monitoringOnly: true }] } },
      'monitorConfig.checks[0] cannot be both mustBeHealthy and monitoringOnly',
    ],
    [
      'a check path without /',
      'p',
      { ...base, monitorConfig: { checks: [{ name: 'a', path: 'health' }] } },
      'monitorConfig.checks[0].path',
    ],
    ['quorum 0', 'p', { ...base, monitorConfig: { checks: [{ name: 'a' }], quorum: 0 } }, 'monitorConfig.quorum'],
    ['maxReturn 9', 'p', { ...base, maxReturn: 9 }, 'maxReturn'],
    ['unknown record type', 'p', { ...base, allowedEndpointRecordTypes: ['CNAME' as never] }, 'allowedEndpointRecordTypes[0]'],
    ['non-string tag', 'p', { ...base, tags: { owner: 42 as never } }, 'tags.owner'],
    ['failback mode', 'p', { ...base, failback: { mode: 'manual' as never } }, 'failback.mode'],
    ['failback successesToRecover 11', 'p', { ...base, failback: { successesToRecover: 11 } }, 'failback.successesToRecover'],
    ['failback holdDownSeconds 3601', 'p', { ...base, failback: { holdDownSeconds: 3601 } }, 'failback.holdDownSeconds'],
  ])('Profile: %s', (_what, id, props, prop) => {
    const app = new App();
    const err = thrown(() => new Profile(app, id, props));
    expect(err).toBeInstanceOf(InvalidPropsError);
    expect((err as InvalidPropsError).constructPath).toBe(id);
    expect(err.message).toContain(`Profile at ${id}`);
    expect(err.message).toContain(prop);
  });

  type EndpointCase = [string, (p: Profile, other: Profile) => unknown, string];
  test.each<EndpointCase>([
    ['External weight 0', (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', weight: 0 }), 'weight'],
    ['External priority 1001', (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', priority: 1001 }), 'priority'],
    ['External without target', (p) => new ExternalEndpoint(p, 'e', {} as never), 'target is required'],
    ['External empty target', (p) => new ExternalEndpoint(p, 'e', { target: ' ' }), 'target'],
    [
      'External endpointStatus',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', endpointStatus: 'Off' as never }),
      'endpointStatus',
    ],
    [
      'External alwaysServe on a disabled endpoint',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', alwaysServe: 'Enabled', endpointStatus: 'Disabled' }),
      'alwaysServe',
    ],
    [
      'External subnet scope 33',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', subnets: [{ first: '10.0.0.0', scope: 33 }] }),
      'subnets[0].scope',
    ],
    [
      'External subnet with scope and last',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', subnets: [{ first: '10.0.0.0', last: '10.0.0.9', scope: 24 }] }),
      'subnets[0]',
    ],
    [
      'External subnet without first',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', subnets: [{} as never] }),
      'subnets[0]',
    ],
    ['External empty geo code', (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', geoMapping: [''] }), 'geoMapping[0]'],
    [
      'External header without name',
      (p) => new ExternalEndpoint(p, 'e', { target: 'a.example.com', customHeaders: [{ name: '', value: 'x' }] }),
      'customHeaders[0]',
    ],
    ['Azure without targetResourceId', (p) => new AzureEndpoint(p, 'e', {} as never), 'targetResourceId is required'],
    ['Azure with a name instead of an id', (p) => new AzureEndpoint(p, 'e', { targetResourceId: 'my-web-app' }), 'targetResourceId'],
    [
      'Nested with a profile name instead of the object',
      (p) => new NestedEndpoint(p, 'e', { targetProfile: 'child' as never }),
      'targetProfile',
    ],
    ['Nested pointing at its own profile', (p) => new NestedEndpoint(p, 'e', { targetProfile: p }), 'cannot nest itself'],
    ['Nested minChildEndpoints 0', (p, o) => new NestedEndpoint(p, 'e', { targetProfile: o, minChildEndpoints: 0 }), 'minChildEndpoints'],
    [
      'Nested minChildEndpointsIPv4 -1',
      (p, o) => new NestedEndpoint(p, 'e', { targetProfile: o, minChildEndpointsIPv4: -1 }),
      'minChildEndpointsIPv4',
    ],
    ['Nested with alwaysServe', (p, o) => new NestedEndpoint(p, 'e', { targetProfile: o, alwaysServe: 'Enabled' } as never), 'alwaysServe'],
  ])('%s', (_what, make, prop) => {
    const app = new App();
    const group = new Construct(app, 'Group');
    const p = new Profile(group, 'web', { trafficRoutingMethod: 'Weighted' });
    const other = new Profile(app, 'other', { trafficRoutingMethod: 'Weighted' });
    const err = thrown(() => make(p, other));
    expect(err).toBeInstanceOf(InvalidPropsError);
    expect((err as InvalidPropsError).constructPath).toBe('Group/web/e');
    expect(err.message).toContain('Group/web/e');
    expect(err.message).toContain(prop);
  });

  test('an endpoint outside a Profile is rejected', () => {
    const app = new App();
    const err = thrown(() => new ExternalEndpoint(app as never, 'loose', { target: 'a.example.com' }));
    expect(err).toBeInstanceOf(InvalidPropsError);
    expect(err.message).toMatch(/scope must be a Profile/);
  });

  test('every bad prop of one construct is listed in one error', () => {
    const app = new App();
    const err = thrown(
      () =>
        new Profile(app, 'p', {
          trafficRoutingMethod: 'Priority',
          dnsConfig: { ttl: -1 },
          monitorConfig: { port: 0, toleratedNumberOfFailures: 12 },
          maxReturn: 0,
        }),
    ) as InvalidPropsError;
    expect(err.problems.map((p) => p.split(' ')[0])).toEqual([
      'dnsConfig.ttl',
      'monitorConfig.port',
      'monitorConfig.toleratedNumberOfFailures',
      'maxReturn',
    ]);
  });

  test('valid boundary values are accepted', () => {
    const app = new App();
    const p = new Profile(app, 'a.b-c', {
      trafficRoutingMethod: 'Priority',
      dnsConfig: { ttl: 2147483647 },
      monitorConfig: {
        protocol: 'TCP',
        port: 65535,
        intervalInSeconds: 10,
        timeoutInSeconds: 9,
        toleratedNumberOfFailures: 0,
        expectedStatusCodeRanges: [{ min: 100, max: 999 }],
      },
    });
    expect(
      () =>
        new ExternalEndpoint(p, 'e', { target: '192.0.2.1', weight: 1000, priority: 1, subnets: [{ first: '2001:db8::', scope: 128 }] }),
    ).not.toThrow();
  });
});

describe('a construct whose props were rejected, with the error caught by user code (issue 16 item 1)', () => {
  test('a rejected Profile is left out of the document and synth fails with the recorded error, never a TypeError', () => {
    const app = new App({ outdir: '/nonexistent' });
    const err = thrown(() => new Profile(app, 'bad', { trafficRoutingMethod: 'Fastest' as never }));
    expect(err).toBeInstanceOf(InvalidPropsError);
    const ok = new Profile(app, 'ok', { trafficRoutingMethod: 'Priority' });
    new ExternalEndpoint(ok, 'a', { target: 'a.example.com' });

    expect(synthDocument(app).profiles.map((p) => p.name)).toEqual(['ok']);
    const failure = thrown(() => app.synth());
    expect(failure).toBeInstanceOf(SynthError);
    const d = (failure as SynthError).diagnostics.find((x) => x.code === 'INVALID_PROPS')!;
    expect(d).toMatchObject({ severity: 'error', path: 'profiles[bad]', constructPath: 'bad' });
    expect(d.message).toContain('trafficRoutingMethod must be one of');
    expect(failure.message).toContain('[bad] error  profiles[bad]  INVALID_PROPS');
    // A foreign framework's node.validate() walk (CDKTF) reports it on the construct too.
    expect(app.node.findChild('bad').node.validate().join('\n')).toContain('INVALID_PROPS');
  });

  test('a rejected endpoint inside a valid profile is left out and reported with its path', () => {
    const app = new App({ outdir: '/nonexistent' });
    const web = new Profile(app, 'web', { trafficRoutingMethod: 'Weighted' });
    new ExternalEndpoint(web, 'good', { target: 'good.example.com' });
    expect(() => new ExternalEndpoint(web, 'heavy', { target: 'heavy.example.com', weight: 0 })).toThrow(InvalidPropsError);
    expect(synthDocument(app).profiles[0]!.endpoints!.map((e) => e.name)).toEqual(['good']);
    expect(validateConstructs(app).filter((x) => x.severity === 'error')).toEqual([
      expect.objectContaining({ code: 'INVALID_PROPS', path: 'profiles[web].endpoints[heavy]', constructPath: 'web/heavy' }),
    ]);
    expect(() => app.synthesize()).toThrow(SynthError);
  });
});

/** A tree that breaks rules only visible with the whole tree. */
function brokenTree(app: Construct): void {
  const child = new Profile(app, 'child', { trafficRoutingMethod: 'Weighted' });
  new ExternalEndpoint(child, 'one', { target: 'one.example.com' });
  const parent = new Profile(app, 'parent', { trafficRoutingMethod: 'Performance' });
  new NestedEndpoint(parent, 'eu', { targetProfile: child }); // Performance needs endpointLocation
  new ExternalEndpoint(parent, 'us', { target: 'us.example.com', endpointLocation: 'westus' });
  const prio = new Profile(app, 'prio', { trafficRoutingMethod: 'Priority' });
  new ExternalEndpoint(prio, 'a', { target: 'a.example.com', priority: 1 });
  new ExternalEndpoint(prio, 'b', { target: 'b.example.com', priority: 1 }); // duplicate priority
  new Profile(app, 'dup', { trafficRoutingMethod: 'Weighted', dnsConfig: { relativeName: 'prio' } }); // relativeName taken
  const geo = new Profile(app, 'geo', { trafficRoutingMethod: 'Geographic' });
  new ExternalEndpoint(geo, 'x', { target: 'x.example.com', geoMapping: ['XX-NOPE'] });
}

describe('whole-tree validation', () => {
  test('synth reports every problem at once, each with its construct path, and writes nothing', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tmkit-synth-'));
    try {
      const app = new App({ outdir });
      brokenTree(app);
      const err = thrown(() => app.synth());
      expect(err).toBeInstanceOf(SynthError);
      const errors = (err as SynthError).diagnostics.filter((d) => d.severity === 'error');
      expect(errors.map((d) => [d.constructPath, d.code])).toEqual(
        expect.arrayContaining([
          ['parent/eu', 'ENDPOINT_LOCATION_REQUIRED'],
          ['geo/x', 'GEO_CODE_UNKNOWN'],
        ]),
      );
      expect(errors.some((d) => d.code === 'PRIORITY_DUPLICATE' && d.constructPath.startsWith('prio'))).toBe(true);
      expect(errors.some((d) => d.code === 'RELATIVE_NAME_DUPLICATE')).toBe(true);
      // One message lists them all with construct paths.
      for (const d of errors) expect(err.message).toContain(`[${d.constructPath}] error  ${d.path}  ${d.code}`);
      expect(existsSync(join(outdir, 'tmkit.out.json'))).toBe(false);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('node.validate() on a construct returns the errors about that construct (CDK-style hook)', () => {
    const app = new App();
    brokenTree(app);
    const eu = app.node.findChild('parent').node.findChild('eu');
    const messages = eu.node.validate();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('ENDPOINT_LOCATION_REQUIRED');
    expect(app.node.findChild('child').node.validate()).toEqual([]);
  });

  test('warnings do not fail synth; they are returned', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tmkit-synth-'));
    try {
      const app = new App({ outdir });
      const geo = new Profile(app, 'geo', { trafficRoutingMethod: 'Geographic' });
      new ExternalEndpoint(geo, 'fr', { target: 'fr.example.com', geoMapping: ['FR'] });
      const result = app.synth();
      expect(result.file).toBe(join(outdir, 'tmkit.out.json'));
      expect(result.warnings.map((w) => [w.constructPath, w.code])).toEqual(
        expect.arrayContaining([
          ['geo', 'GEO_WORLD_MISSING'],
          ['geo/fr', 'GEO_ENDPOINT_NOT_NESTED'],
        ]),
      );
      expect(JSON.parse(readFileSync(result.file, 'utf8'))).toEqual(result.document);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('validations other constructs add with node.addValidation are reported too', () => {
    const app = new App();
    const custom = new Construct(app, 'Custom');
    custom.node.addValidation({ validate: () => ['custom rule broken'] });
    expect(() => app.synthesize()).toThrow(/\[Custom\] error .*CONSTRUCT_VALIDATION\s+custom rule broken/);
  });

  test('a diagnostic about two same-named profiles is attached to both', () => {
    const app = new App();
    new Profile(app, 'a', { trafficRoutingMethod: 'Weighted', name: 'same' });
    new Profile(app, 'b', { trafficRoutingMethod: 'Weighted', name: 'same', dnsConfig: { relativeName: 'other' } });
    const dup = validateConstructs(app).filter((d) => d.code === 'PROFILE_NAME_DUPLICATE');
    expect(dup.map((d) => d.constructPath).sort()).toEqual(['a', 'b']);
  });
});

describe('synthesis', () => {
  function build(order: 'ab' | 'ba'): App {
    const app = new App({ stack: 'prod' });
    const make = (name: string): void => {
      const p = new Profile(app, name, { trafficRoutingMethod: 'Weighted', tags: { z: '1', a: '2' } });
      new ExternalEndpoint(p, 'second', { target: `${name}-2.example.com`, weight: 2 });
      new ExternalEndpoint(p, 'first', { target: `${name}-1.example.com` });
    };
    for (const n of order === 'ab' ? ['alpha', 'beta'] : ['beta', 'alpha']) make(n);
    return app;
  }

  test('deterministic: same tree, same bytes; profiles sorted by name; endpoints in construct order', () => {
    const a = JSON.stringify(synthDocument(build('ab')));
    expect(JSON.stringify(synthDocument(build('ab')))).toBe(a);
    expect(JSON.stringify(synthDocument(build('ba')))).toBe(a);
    const doc = synthDocument(build('ba'));
    expect(doc.stack).toBe('prod');
    expect(doc.profiles.map((p) => p.name)).toEqual(['alpha', 'beta']);
    expect(doc.profiles[0]!.endpoints!.map((e) => e.name)).toEqual(['second', 'first']);
    expect(Object.keys(doc.profiles[0]!)).toEqual(['name', 'trafficRoutingMethod', 'dnsConfig', 'tags', 'endpoints']);
    expect(Object.keys(doc.profiles[0]!.tags!)).toEqual(['a', 'z']);
  });

  test('property: any creation order and nesting of the same profiles gives the same bytes', () => {
    const spec = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(spec, fc.infiniteStream(fc.boolean()), (names, wrap) => {
        const make = (order: string[], nest: boolean): string => {
          const app = new App();
          for (const n of order) {
            const scope = nest && wrap.next().value ? new Construct(app, `Wrapper-${n}`) : app;
            const p = new Profile(scope, n, { trafficRoutingMethod: 'Priority', dnsConfig: { ttl: n.length } });
            p.addExternalEndpoint('b', { target: `b.${n}.example.com` });
            p.addExternalEndpoint('a', { target: `a.${n}.example.com` });
          }
          return JSON.stringify(synthDocument(app));
        };
        const reference = make([...names].sort(), false);
        expect(make([...names].reverse(), true)).toBe(reference);
        expect(JSON.parse(reference).profiles.map((p: { name: string }) => p.name)).toEqual([...names].sort());
      }),
      { numRuns: 100 },
    );
  });

  test('only what the props set is written; relativeName defaults to the name', () => {
    const app = new App();
    const p = new Profile(app, 'web', { trafficRoutingMethod: 'Priority' });
    p.addExternalEndpoint('one', { target: '192.0.2.1' });
    p.addAzureEndpoint('two', { targetResourceId: `${SUB}/Microsoft.Web/sites/app`, endpointLocation: 'westeurope' });
    expect(synthDocument(app)).toEqual({
      apiVersion: 'tmkit/v1',
      profiles: [
        {
          name: 'web',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'web' },
          endpoints: [
            { name: 'one', type: 'externalEndpoints', target: '192.0.2.1' },
            { name: 'two', type: 'azureEndpoints', targetResourceId: `${SUB}/Microsoft.Web/sites/app`, endpointLocation: 'westeurope' },
          ],
        },
      ],
    });
  });

  test('the nested endpoint names the child profile by its (possibly explicit) name', () => {
    const app = new App();
    const child = new Profile(app, 'Child', { trafficRoutingMethod: 'Weighted', name: 'child-eu' });
    child.addExternalEndpoint('a', { target: 'a.example.com' });
    const parent = new Profile(app, 'parent', { trafficRoutingMethod: 'Priority' });
    parent.addNestedEndpoint('eu', { targetProfile: child, minChildEndpoints: 1 });
    expect(synthDocument(app).profiles[1]!.endpoints).toEqual([
      { name: 'eu', type: 'nestedEndpoints', targetResourceId: 'child-eu', minChildEndpoints: 1 },
    ]);
    expect(validateConstructs(app).filter((d) => d.severity === 'error')).toEqual([]);
  });

  test('props objects changed after construction do not change the output', () => {
    const app = new App();
    const tags = { team: 'a' };
    const p = new Profile(app, 'web', { trafficRoutingMethod: 'Weighted', tags });
    const geoMapping = ['WORLD'];
    p.addExternalEndpoint('e', { target: 'e.example.com', geoMapping });
    tags.team = 'b';
    geoMapping.push('FR');
    const doc = synthDocument(app);
    expect(doc.profiles[0]!.tags).toEqual({ team: 'a' });
    expect(doc.profiles[0]!.endpoints![0]!.geoMapping).toEqual(['WORLD']);
  });

  test('outdir: props win over $TMKIT_OUTDIR, which wins over the default', () => {
    const saved = process.env.TMKIT_OUTDIR;
    try {
      process.env.TMKIT_OUTDIR = '/tmp/from-env';
      expect(new App().outdir).toBe('/tmp/from-env');
      expect(new App({ outdir: '/tmp/from-props' }).outdir).toBe('/tmp/from-props');
      delete process.env.TMKIT_OUTDIR;
      expect(new App().outdir).toBe(join(process.cwd(), 'tmkit.out'));
    } finally {
      if (saved === undefined) delete process.env.TMKIT_OUTDIR;
      else process.env.TMKIT_OUTDIR = saved;
    }
  });
});

describe('under a root that is not the tmkit App (e.g. a CDKTF stack)', () => {
  test('profiles are found anywhere below the scope and validated through node.validate()', () => {
    const root = new Construct(undefined as never, '');
    const stack = new Construct(root, 'Stack');
    const inner = new Construct(stack, 'Module');
    const p = new Profile(inner, 'web', { trafficRoutingMethod: 'Priority' });
    new ExternalEndpoint(p, 'a', { target: 'a.example.com', priority: 1 });
    new ExternalEndpoint(p, 'b', { target: 'b.example.com', priority: 1 });
    expect(synthDocument(stack).profiles.map((x) => x.name)).toEqual(['web']);
    // What a foreign framework does before synthesizing: validate every construct.
    const errors = root.node.findAll().flatMap((c) => c.node.validate().map((m) => `${c.node.path}: ${m}`));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.startsWith('Stack/Module/web'))).toBe(true);
    expect(errors.join('\n')).toContain('PRIORITY_DUPLICATE');
  });

  test('diagnostics about the document as a whole are reported by the document scope', () => {
    const root = new Construct(undefined as never, '');
    const stack = new Construct(root, 'Stack');
    markDocumentScope(stack, { stack: 'not a valid stack name!' });
    new Profile(stack, 'web', { trafficRoutingMethod: 'Weighted' });
    const all = root.node.findAll().flatMap((c) => c.node.validate().map((m) => [c.node.path, m]));
    expect(all).toEqual([['Stack', expect.stringContaining('STACK_NAME')]]);
  });

  test('hooks share one validation, and validate again once the tree grows', () => {
    const root = new Construct(undefined as never, '');
    const p = new Profile(root, 'web', { trafficRoutingMethod: 'Priority' });
    const a = new ExternalEndpoint(p, 'a', { target: 'a.example.com', priority: 1 });
    expect(a.node.validate()).toEqual([]);
    const b = new ExternalEndpoint(p, 'b', { target: 'b.example.com', priority: 1 });
    expect([...a.node.validate(), ...b.node.validate()].join('\n')).toContain('PRIORITY_DUPLICATE');
  });

  test('each marked document scope is its own document: a nested endpoint into another scope is reported', () => {
    const root = new Construct(undefined as never, '');
    const a = new Construct(root, 'A');
    const b = new Construct(root, 'B');
    markDocumentScope(a, { stack: 'a' });
    markDocumentScope(b, { stack: 'b' });
    const child = new Profile(b, 'child', { trafficRoutingMethod: 'Weighted' });
    child.addExternalEndpoint('x', { target: 'x.example.com' });
    const parent = new Profile(a, 'parent', { trafficRoutingMethod: 'Weighted' });
    const eu = parent.addNestedEndpoint('eu', { targetProfile: child });
    expect(synthDocument(a)).toMatchObject({ stack: 'a', profiles: [{ name: 'parent' }] });
    expect(eu.node.validate().join('\n')).toContain('NESTED_TARGET_NOT_FOUND');
    expect(child.node.validate()).toEqual([]);
  });
});

test('a misspelt enum prop is rejected with the value it most likely means (issue 16 item 8)', () => {
  const err = thrown(() => new Profile(new App(), 'p', { trafficRoutingMethod: 'Performace' as never }));
  expect(err.message).toContain(
    'trafficRoutingMethod must be one of "Performance", "Priority", "Weighted", "Geographic", "MultiValue", "Subnet" (did you mean "Performance"?) (got "Performace")',
  );
});

test('the health extensions (issue 31) are synthesized only when set', () => {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'tmkit-ext-')) });
  const p = new Profile(app, 'web', {
    trafficRoutingMethod: 'Priority',
    monitorConfig: { protocol: 'HTTPS', certificateValidation: 'Enabled', certificateExpiryWarningDays: 30, degradedLatencyMs: 500 },
  });
  p.addExternalEndpoint('a', { target: '192.0.2.1' });
  const plain = new Profile(app, 'plain', { trafficRoutingMethod: 'Priority', monitorConfig: { protocol: 'HTTPS' } });
  plain.addExternalEndpoint('a', { target: '192.0.2.2' });
  expect(p.toProfileInput().monitorConfig).toEqual({
    protocol: 'HTTPS',
    certificateValidation: 'Enabled',
    certificateExpiryWarningDays: 30,
    degradedLatencyMs: 500,
  });
  expect(plain.toProfileInput().monitorConfig).toEqual({ protocol: 'HTTPS' });
});

test('composite checks are synthesized as written (normalize fills in the rest)', () => {
  const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'tmkit-checks-')) });
  const p = new Profile(app, 'web', {
    trafficRoutingMethod: 'Priority',
    monitorConfig: {
      path: '/healthz',
      checks: [
        { name: 'api', path: '/api' },
        { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
        { name: 'metrics', monitoringOnly: true },
      ],
      quorum: 1,
    },
  });
  p.addExternalEndpoint('a', { target: '192.0.2.1' });
  expect(p.toProfileInput().monitorConfig).toEqual({
    path: '/healthz',
    checks: [
      { name: 'api', path: '/api' },
      { name: 'db', protocol: 'TCP', port: 5432, mustBeHealthy: true },
      { name: 'metrics', monitoringOnly: true },
    ],
    quorum: 1,
  });
});
