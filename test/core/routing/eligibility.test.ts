/**
 * behaviors.md §4: which endpoints are answered, the all-degraded fallback, stopped Azure resources, Always
 * Serve. Also §6 end to end: statuses as buildSnapshot() derives them.
 */
import { profileMonitorStatuses, resolve } from '../../../src/core/routing';
import { azure, catalog, ext, nested, profile, query, snapshot } from '../../../src/testing/builders';
import { dist, expectDist, kind } from './fixtures';

const APP = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app';
const PIP = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/pip';

describe('§4 returned in answers', () => {
  test.each([
    ['Online', { 'p/first': 'Online' as const }, {}],
    ['CheckingEndpoint (verdict)', { 'p/first': 'CheckingEndpoint' as const }, {}],
    ['CheckingEndpoint (no probe result yet)', {}, {}],
    [
      'Unmonitored (Always Serve), even if the prober says Degraded',
      { 'p/first': 'Degraded' as const },
      { alwaysServe: 'Enabled' as const },
    ],
  ])('%s is answered', (_n, health, extra) => {
    const s = snapshot([profile('p', 'Priority', [ext('first', '192.0.2.1', extra), ext('second', '192.0.2.2')])], {
      health: { ...health, 'p/second': 'Online' },
    });
    expect(dist(resolve(s, query('p')))).toEqual({ 'p/first': 1 });
  });
});

describe('§4 not returned in answers', () => {
  test.each([
    ['Disabled (endpoint disabled by the user)', { endpointStatus: 'Disabled' as const }, { 'p/first': 'Online' as const }, undefined],
    ['Degraded (failing probes)', {}, { 'p/first': 'Degraded' as const }, undefined],
    ['Stopped (Azure resource stopped)', {}, { 'p/first': 'Online' as const }, 'stopped' as const],
  ])('%s is skipped', (_n, extra, health, state) => {
    const s = snapshot([profile('p', 'Priority', [azure('first', APP, extra), ext('second', 'second.example.net')])], {
      health: { ...health, 'p/second': 'Online' },
      resources: catalog({ [APP]: { target: 'app.azurewebsites.net', location: 'westeurope', state: state ?? 'running' } }),
    });
    const r = resolve(s, query('p'));
    expect(dist(r)).toEqual({ 'p/second': 1 });
    expect(r.explanation.find((e) => e.endpoint === 'first')!.kind).toBe('skip');
  });

  test('Inactive (profile disabled): the endpoints are Inactive and the profile answers NXDOMAIN', () => {
    const s = snapshot([profile('p', 'Priority', [ext('a', '192.0.2.1')], { profileStatus: 'Disabled' })], { health: { 'p/a': 'Online' } });
    expect(profileMonitorStatuses(s, 'p')!.endpoints[0]!.endpointMonitorStatus).toBe('Inactive');
    expect(kind(resolve(s, query('p')))).toBe('NXDOMAIN');
  });
});

describe('§4 all-degraded fallback', () => {
  test('every eligible endpoint Degraded → answered as if all were Online (Weighted keeps its weights)', () => {
    const s = snapshot([profile('p', 'Weighted', [ext('a', '192.0.2.1', { weight: 1 }), ext('b', '192.0.2.2', { weight: 3 })])], {
      health: { 'p/a': 'Degraded', 'p/b': 'Degraded' },
    });
    const r = resolve(s, query('p'));
    expectDist(r, { 'p/a': 0.25, 'p/b': 0.75 });
    expect(r.explanation[0]!.detail).toMatch(/all-degraded fallback/);
    expect(profileMonitorStatuses(s, 'p')!.allDegradedFallback).toBe(true);
  });

  test('Disabled and Stopped endpoints are not eligible: with the rest Degraded the fallback applies to the Degraded ones only', () => {
    const s = snapshot(
      [
        profile('p', 'Priority', [
          ext('disabled', '192.0.2.1', { endpointStatus: 'Disabled' }),
          azure('stopped', APP),
          ext('deg', '192.0.2.3'),
        ]),
      ],
      {
        health: { 'p/deg': 'Degraded', 'p/stopped': 'Online', 'p/disabled': 'Online' },
        resources: catalog({ [APP]: { target: 'app.azurewebsites.net', state: 'stopped' } }),
      },
    );
    expect(dist(resolve(s, query('p')))).toEqual({ 'p/deg': 1 });
  });

  test('one endpoint available → no fallback: Degraded ones stay out', () => {
    const s = snapshot([profile('p', 'Weighted', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2'), ext('c', '192.0.2.3')])], {
      health: { 'p/a': 'Degraded', 'p/b': 'Degraded', 'p/c': 'CheckingEndpoint' },
    });
    expect(dist(resolve(s, query('p')))).toEqual({ 'p/c': 1 });
    expect(profileMonitorStatuses(s, 'p')!.allDegradedFallback).toBe(false);
  });

  test('a Stopped-only profile has nothing eligible: no fallback, NODATA', () => {
    const s = snapshot([profile('p', 'Priority', [azure('a', APP)])], {
      resources: catalog({ [APP]: { target: 'x.example.net', state: 'stopped' } }),
    });
    expect(kind(resolve(s, query('p')))).toBe('NODATA');
  });
});

describe('§4 Azure endpoints and Always Serve', () => {
  test('a stopped Azure resource gives monitor status Stopped', () => {
    const s = snapshot([profile('p', 'Priority', [azure('app', APP)])], {
      health: { 'p/app': 'Online' },
      resources: catalog({ [APP]: { target: 'app.azurewebsites.net', state: 'stopped' } }),
    });
    expect(profileMonitorStatuses(s, 'p')!.endpoints[0]).toMatchObject({
      endpointMonitorStatus: 'Stopped',
      reason: expect.stringMatching(/stopped/),
    });
  });

  test('an unknown Azure resource id without an inline target cannot be answered (Stopped, explained)', () => {
    const s = snapshot([profile('p', 'Priority', [azure('app', PIP), ext('b', 'b.example.net')])], { health: { 'p/app': 'Online' } });
    const rep = profileMonitorStatuses(s, 'p')!;
    expect(rep.endpoints[0]).toMatchObject({
      endpointMonitorStatus: 'Stopped',
      reason: expect.stringMatching(/not in the resource catalog/),
    });
    const r = resolve(s, query('p'));
    expect(dist(r)).toEqual({ 'p/b': 1 });
    expect(r.explanation.find((e) => e.endpoint === 'app')!.detail).toMatch(/not in the resource catalog/);
  });

  test('Always Serve endpoints are Unmonitored and always considered', () => {
    const s = snapshot([profile('p', 'Priority', [ext('a', 'a.example.net', { alwaysServe: 'Enabled' })])], {
      health: { 'p/a': 'Degraded' },
    });
    expect(profileMonitorStatuses(s, 'p')!.endpoints[0]!.endpointMonitorStatus).toBe('Unmonitored');
    expect(dist(resolve(s, query('p')))).toEqual({ 'p/a': 1 });
  });
});

describe('§6 statuses as the snapshot derives them', () => {
  test('profile monitor status per table through buildSnapshot', () => {
    const s = snapshot(
      [
        profile('deg', 'Priority', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2')]),
        profile('on', 'Priority', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2')]),
        profile('chk', 'Priority', [ext('a', '192.0.2.1')]),
        profile('ina', 'Priority', [ext('a', '192.0.2.1', { endpointStatus: 'Disabled' })]),
        profile('dis', 'Priority', [ext('a', '192.0.2.1')], { profileStatus: 'Disabled' }),
      ],
      { health: { 'deg/a': 'Online', 'deg/b': 'Degraded', 'on/a': 'Online' } },
    );
    expect(['deg', 'on', 'chk', 'ina', 'dis'].map((n) => profileMonitorStatuses(s, n)!.profileMonitorStatus)).toEqual([
      'Degraded',
      'Online',
      'CheckingEndpoints',
      'Inactive',
      'Disabled',
    ]);
  });

  test('nested endpoint status comes from the child (MinChildEndpoints=2, one online, one checking → CheckingEndpoint)', () => {
    const s = snapshot(
      [
        profile('parent', 'Priority', [nested('n', 'child', { minChildEndpoints: 2 })]),
        profile('child', 'Weighted', [ext('a', '192.0.2.1'), ext('b', '192.0.2.2'), ext('c', '192.0.2.3')]),
      ],
      { health: { 'child/a': 'Online', 'child/c': 'Degraded' } },
    );
    expect(profileMonitorStatuses(s, 'parent')!.endpoints[0]).toMatchObject({
      endpointMonitorStatus: 'CheckingEndpoint',
      reason: expect.stringMatching(/MinChildEndpoints=2: 1 online \+ 1 checking/),
    });
  });

  test('a nesting loop (invalid input) is cut: the back edge is Stopped and resolve terminates', () => {
    const s = snapshot([
      profile('a', 'Priority', [nested('toB', 'b'), ext('x', 'x.example.net')]),
      profile('b', 'Priority', [nested('toA', 'a')]),
    ]);
    expect(profileMonitorStatuses(s, 'b')!.endpoints[0]).toMatchObject({
      endpointMonitorStatus: 'Stopped',
      reason: expect.stringMatching(/loop/),
    });
    expect(dist(resolve(s, query('a')))).toEqual({ 'a/x': 1 });
  });
});
