import { applyAttributeChanges, applyOrder, checkPlanBase, diff, diffAttributes, parsePath } from '../../../src/core/plan';
import { dataStack, deployedOf, doc, webBefore, webScenario } from './fixtures';

describe('diff: actions per profile', () => {
  const { desired, deployed } = webScenario();
  const plan = diff(desired, deployed);
  const action = (name: string): string | undefined => plan.changes.find((c) => c.profile === name)?.action;

  test.each([
    ['contoso-web', 'update'],
    ['contoso-geo', 'update'],
    ['contoso-eu', 'no-op'],
    ['status', 'replace'],
    ['old-api', 'delete'],
    ['contoso-api', 'create'],
  ])('%s → %s', (name, expected) => {
    expect(action(name)).toBe(expected);
  });

  test("another stack's profile is never part of the plan", () => {
    expect(action('data-api')).toBeUndefined();
    expect(plan.steps.map((s) => s.profile)).not.toContain('data-api');
  });

  test('summary counts each action', () => {
    expect(plan.summary).toEqual({ add: 1, change: 2, replace: 1, destroy: 1, unchanged: 1 });
    expect(plan.errors).toEqual([]);
  });

  test('endpoints are matched by name, not position', () => {
    const web = plan.changes.find((c) => c.profile === 'contoso-web')!;
    expect(web.attributes.map((a) => [a.path, a.kind])).toEqual([
      ['endpoints[legacy]', 'remove'],
      ['endpoints[eu-west].weight', 'change'],
      ['endpoints[us-east].weight', 'change'],
      ['endpoints[eu-canary]', 'add'],
    ]);
    expect(web.attributes[1]).toMatchObject({ before: 50, after: 40 });
    expect(web.baseEtag).toBe('"contoso-web-1"');
  });

  test('a geo mapping change is one whole-list change on the endpoint', () => {
    const geo = plan.changes.find((c) => c.profile === 'contoso-geo')!;
    expect(geo.attributes).toEqual([
      { path: 'endpoints[europe].geoMapping', kind: 'change', before: ['GEO-EU'], after: ['GEO-EU', 'GEO-ME'] },
    ]);
  });

  test('a changed relativeName forces a replace and says why', () => {
    const st = plan.changes.find((c) => c.profile === 'status')!;
    expect(st.attributes).toEqual([
      { path: 'dnsConfig.relativeName', kind: 'change', before: 'status', after: 'status-v2', forcesReplacement: true },
    ]);
    expect(st.replaceReasons[0]).toMatch(/old name stops answering/);
  });

  test('diff never mutates its inputs', () => {
    const s = webScenario();
    const snapshot = JSON.stringify(s);
    const p = diff(s.desired, s.deployed);
    p.changes.forEach((c) => {
      if (c.after) c.after.endpoints.push({ name: 'x' } as never);
    });
    expect(JSON.stringify(s)).toBe(snapshot);
  });
});

describe('diff: stack scoping and reference errors', () => {
  test('a desired name owned by another stack is an error, and the plan has no steps', () => {
    const desired = doc('web', [
      {
        name: 'data-api',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'data2' },
        endpoints: [{ name: 'x', type: 'externalEndpoints', target: 'x.example.net' }],
      },
    ]);
    const plan = diff(desired, dataStack());
    expect(plan.errors.map((e) => e.code)).toEqual(['PLAN_PROFILE_OWNED_BY_OTHER_STACK']);
    expect(plan.errors[0]!.message).toMatch(/stack "data"/);
    expect(plan.steps).toEqual([]);
  });

  test("an empty document deletes only its own stack's profiles", () => {
    const deployed = [...deployedOf(doc('web', webBefore())), ...dataStack()];
    const plan = diff(doc('web', []), deployed);
    expect(plan.changes.map((c) => c.action)).toEqual(Array(5).fill('delete'));
    expect(plan.changes.map((c) => c.profile)).not.toContain('data-api');
    // parents before children: contoso-geo goes before contoso-eu
    const order = plan.steps.map((s) => s.profile);
    expect(order.indexOf('contoso-geo')).toBeLessThan(order.indexOf('contoso-eu'));
  });

  test.each([
    ['child neither in the document nor deployed', [], /neither in the document nor deployed/],
    ['child that this plan deletes', webBefore().filter((p) => p.name === 'contoso-eu'), /which this plan deletes/],
  ])('nested endpoint pointing at a %s is an error', (_what, extraDeployed, message) => {
    const parent = webBefore().find((p) => p.name === 'contoso-geo')!;
    const desired = doc('web', [parent]);
    const plan = diff(desired, deployedOf(doc('web', extraDeployed)));
    expect(plan.errors.map((e) => e.code)).toEqual(['PLAN_NESTED_TARGET_MISSING']);
    expect(plan.errors[0]!.path).toBe('profiles[contoso-geo].endpoints[europe].targetResourceId');
    expect(plan.errors[0]!.message).toMatch(message);
  });

  test("nesting another stack's profile is fine; deleting a profile another stack nests is an error", () => {
    const foreignParent = deployedOf(
      doc('other', [
        {
          name: 'front',
          trafficRoutingMethod: 'Priority',
          dnsConfig: { relativeName: 'front' },
          endpoints: [{ name: 'n', type: 'nestedEndpoints', targetResourceId: 'contoso-eu' }],
        },
      ]),
    );
    const deployed = [...deployedOf(doc('web', webBefore())), ...foreignParent];
    const plan = diff(
      doc(
        'web',
        webBefore().filter((p) => p.name !== 'contoso-eu' && p.name !== 'contoso-geo'),
      ),
      deployed,
    );
    expect(plan.errors.map((e) => e.code)).toEqual(['PLAN_DELETE_REFERENCED']);
    expect(plan.errors[0]!.message).toMatch(/front of stack "other" nests it/);
  });

  test('a relativeName held by another stack is an error', () => {
    const desired = doc('web', [
      {
        name: 'mine',
        trafficRoutingMethod: 'Priority',
        dnsConfig: { relativeName: 'DATA' },
        endpoints: [{ name: 'x', type: 'externalEndpoints', target: 'x.example.net' }],
      },
    ]);
    const plan = diff(desired, dataStack());
    expect(plan.errors.map((e) => e.code)).toEqual(['PLAN_RELATIVE_NAME_TAKEN']);
  });
});

describe('diff: identical documents', () => {
  test('no changes, no steps', () => {
    const d = doc('web', webBefore());
    const plan = diff(d, deployedOf(d));
    expect(plan.summary).toEqual({ add: 0, change: 0, replace: 0, destroy: 0, unchanged: 5 });
    expect(plan.steps).toEqual([]);
  });

  test('object key order does not count as a change', () => {
    const reverseKeys = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverseKeys)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverseKeys(x)]),
            )
          : v;
    const d = doc('web', webBefore());
    const shuffled = deployedOf(d).map((x) => ({ ...x, profile: reverseKeys(x.profile) as typeof x.profile }));
    expect(JSON.stringify(shuffled[0]!.profile)).not.toBe(JSON.stringify(d.profiles[0]));
    expect(diff(d, shuffled).summary.unchanged).toBe(5);
  });
});

describe('attribute paths', () => {
  test.each([
    ['endpoints[eu].weight', [{ prop: 'endpoints' }, { key: 'eu' }, { prop: 'weight' }]],
    [
      'endpoints["my ep"].customHeaders[host].value',
      [{ prop: 'endpoints' }, { key: 'my ep' }, { prop: 'customHeaders' }, { key: 'host' }, { prop: 'value' }],
    ],
    ['tags["a]b"]', [{ prop: 'tags' }, { key: 'a]b' }]],
    ['dnsConfig.ttl', [{ prop: 'dnsConfig' }, { prop: 'ttl' }]],
  ])('%s parses', (path, segs) => {
    expect(parsePath(path)).toEqual(segs);
  });

  test('names needing quotes are JSON-quoted and round-trip through apply', () => {
    const [a] = doc('web', [
      {
        name: 'p',
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: 'p' },
        tags: { 'team x': 'a' },
        endpoints: [{ name: 'my ep', type: 'externalEndpoints', target: 'a.example.net', customHeaders: [{ name: 'host', value: 'a' }] }],
      },
    ]).profiles;
    const [b] = doc('web', [
      {
        name: 'p',
        trafficRoutingMethod: 'Weighted',
        dnsConfig: { relativeName: 'p' },
        tags: { 'team x': 'b' },
        endpoints: [{ name: 'my ep', type: 'externalEndpoints', target: 'a.example.net', customHeaders: [{ name: 'host', value: 'b' }] }],
      },
    ]).profiles;
    const changes = diffAttributes(a!, b!);
    expect(changes.map((c) => c.path)).toEqual(['tags["team x"]', 'endpoints["my ep"].customHeaders[host].value']);
    expect(applyAttributeChanges(a!, changes)).toEqual(JSON.parse(JSON.stringify(b)));
  });

  test('reordering endpoints is a reorder change, and applying it restores the order', () => {
    const before = doc('web', webBefore()).profiles[0]!;
    const after = { ...before, endpoints: [before.endpoints[2]!, before.endpoints[0]!, before.endpoints[1]!] };
    const changes = diffAttributes(before, after);
    expect(changes).toEqual([
      { path: 'endpoints', kind: 'reorder', before: ['eu-west', 'us-east', 'legacy'], after: ['legacy', 'eu-west', 'us-east'] },
    ]);
    expect(applyAttributeChanges(before, changes).endpoints.map((e) => e.name)).toEqual(['legacy', 'eu-west', 'us-east']);
  });
});

describe('applyOrder', () => {
  test('gives every PUT its body and the right precondition', () => {
    const { desired, deployed } = webScenario();
    const steps = applyOrder(diff(desired, deployed));
    expect(steps.map((s) => [s.method, s.profile, s.ifMatch ?? s.ifNoneMatch])).toEqual([
      ['PUT', 'contoso-api', '*'],
      ['PUT', 'contoso-geo', '"contoso-geo-1"'],
      ['PUT', 'contoso-web', '"contoso-web-1"'],
      ['PUT', 'status', '"status-1"'],
      ['DELETE', 'old-api', '"old-api-1"'],
    ]);
    expect(steps[0]!.body).toEqual(desired.profiles.find((p) => p.name === 'contoso-api'));
    expect(steps[4]!.body).toBeUndefined();
  });
});

test('profile names in nested references match case-insensitively (as routing and ARM do)', () => {
  const parent = {
    name: 'front',
    trafficRoutingMethod: 'Priority' as const,
    dnsConfig: { relativeName: 'front' },
    endpoints: [
      {
        name: 'n',
        type: 'nestedEndpoints',
        targetResourceId: '/subscriptions/s/resourceGroups/r/providers/Microsoft.Network/trafficManagerProfiles/Child-EU',
      },
    ],
  };
  const child = {
    name: 'child-eu',
    trafficRoutingMethod: 'Priority' as const,
    dnsConfig: { relativeName: 'child' },
    endpoints: [{ name: 'x', type: 'externalEndpoints', target: 'x.example.net' }],
  };
  const created = diff(doc('web', [parent, child]), []);
  expect(created.errors).toEqual([]);
  expect(created.steps.map((s) => s.profile)).toEqual(['child-eu', 'front']);
  const removed = diff(doc('web', []), deployedOf(doc('web', [parent, child])));
  expect(removed.steps.map((s) => s.profile)).toEqual(['front', 'child-eu']);
});

describe('checkPlanBase (stale plans)', () => {
  const { desired, deployed } = webScenario();
  const plan = diff(desired, deployed);
  const web = deployed.filter((d) => d.stack === 'web');

  test('the state the plan was made against: applicable', () => {
    expect(checkPlanBase(plan, deployed)).toEqual([]);
  });

  test.each<[string, () => typeof deployed, RegExp]>([
    [
      'an updated profile changed',
      () => deployed.map((d) => (d.profile.name === 'contoso-web' ? { ...d, etag: '"x"' } : d)),
      /contoso-web changed \(ETag "contoso-web-1" → "x"\)/,
    ],
    [
      'a no-op profile changed',
      () => deployed.map((d) => (d.profile.name === 'contoso-eu' ? { ...d, etag: '"x"' } : d)),
      /contoso-eu changed/,
    ],
    ['a profile to delete is gone', () => deployed.filter((d) => d.profile.name !== 'old-api'), /old-api was deleted/],
    [
      'a profile to create exists',
      () => [...deployed, { ...web[0]!, profile: { ...web[0]!.profile, name: 'contoso-api' } }],
      /contoso-api was created/,
    ],
    [
      'a profile was added to the stack',
      () => [...deployed, { ...web[0]!, profile: { ...web[0]!.profile, name: 'extra' } }],
      /extra was added to stack "web"/,
    ],
    [
      'a profile moved stack',
      () => deployed.map((d) => (d.profile.name === 'status' ? { ...d, stack: 'ops' } : d)),
      /status moved to stack "ops"/,
    ],
  ])('%s: PLAN_STALE', (_what, now, message) => {
    const issues = checkPlanBase(plan, now());
    expect(issues.map((i) => i.code)).toEqual(['PLAN_STALE']);
    expect(issues[0]!.message).toMatch(message);
  });
});
