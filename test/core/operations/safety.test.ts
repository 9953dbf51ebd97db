/**
 * The safety rule (core/operations/safety.ts): a `down` override that would leave a profile with no endpoint able
 * to serve is refused, counting the live verdicts, the overrides in force and nested children.
 */
import type { HealthView, ProbeVerdict } from '../../../src/core/health/types';
import { normalizeProfile } from '../../../src/core/model/normalize';
import type { EndpointInput } from '../../../src/core/model/types';
import { checkDownOverride, checkSafety } from '../../../src/core/operations';
import { geo } from '../routing/fixtures';

const ep = (name: string, target: string, over: Partial<EndpointInput> = {}): EndpointInput => ({
  name,
  type: 'externalEndpoints',
  target,
  ...over,
});
const prof = (name: string, endpoints: EndpointInput[]) =>
  normalizeProfile({ name, trafficRoutingMethod: 'Priority', dnsConfig: { relativeName: name }, endpoints });
const view = (v: Record<string, ProbeVerdict>, down: string[] = []): HealthView => ({
  verdict: (p, e) => v[`${p}/${e}`],
  override: (p, e) => (down.includes(`${p}/${e}`) ? { down: true, reason: 'override down' } : undefined),
});
const check = (profiles: ReturnType<typeof prof>[], health: HealthView, profile: string, endpoint: string) =>
  checkDownOverride({ profiles, health, geo: geo(), zone: 'tm.internal', profile, endpoint });

const web = prof('web', [ep('primary', '192.0.2.1'), ep('backup', '192.0.2.2')]);

test('allowed while another endpoint can serve', () => {
  expect(check([web], view({ 'web/primary': 'Online', 'web/backup': 'Online' }), 'web', 'primary')).toEqual({ ok: true });
  // CheckingEndpoint serves too (it is answered like Online).
  expect(check([web], view({ 'web/primary': 'Online' }), 'web', 'primary')).toEqual({ ok: true });
});

test('refused when the other endpoint is Degraded now: one line naming the profile, what is left and --force', () => {
  const r = check([web], view({ 'web/primary': 'Online', 'web/backup': 'Degraded' }), 'web', 'primary');
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.message).toBe(
    'refused: taking web/primary down would leave profile web with no endpoint able to serve (left: backup Degraded); pass --force (API: "force": true) to take it out anyway',
  );
  expect(r.message).not.toContain('\n');
});

test('counts the overrides already in force', () => {
  const r = check([web], view({ 'web/primary': 'Online', 'web/backup': 'Online' }, ['web/backup']), 'web', 'primary');
  expect(r.ok).toBe(false);
});

test('counts nested children: a parent left with nothing to serve refuses, naming it', () => {
  const child = prof('eu', [ep('x', '192.0.2.7')]);
  const parent = normalizeProfile({
    name: 'app',
    trafficRoutingMethod: 'Priority',
    dnsConfig: { relativeName: 'app' },
    endpoints: [{ name: 'to-eu', type: 'nestedEndpoints', targetResourceId: 'eu' }, ep('us', '192.0.2.9')],
  });
  // The child's only endpoint: eu itself is left empty.
  expect(check([child, parent], view({ 'eu/x': 'Online', 'app/us': 'Online' }), 'eu', 'x')).toMatchObject({
    ok: false,
    refusals: [{ profile: 'eu', nesting: false }],
  });
  // With us Degraded the parent would lose its last serving endpoint through the child, and says so.
  const r = check([child, parent], view({ 'eu/x': 'Online', 'app/us': 'Degraded' }), 'eu', 'x');
  expect(r).toMatchObject({ ok: false, refusals: [{ profile: 'eu' }, { profile: 'app', nesting: true }] });
  // The nested endpoint itself taken down from the parent, with us Online: fine.
  expect(check([child, parent], view({ 'eu/x': 'Online', 'app/us': 'Online' }), 'app', 'to-eu')).toEqual({ ok: true });
});

test('Always Serve endpoints count as able to serve', () => {
  const p = prof('web', [ep('primary', '192.0.2.1'), ep('backup', '192.0.2.2', { alwaysServe: 'Enabled' })]);
  expect(check([p], view({ 'web/primary': 'Online' }), 'web', 'primary')).toEqual({ ok: true });
});

// Issue 40, item 4: one rule for `override down` and `endpoint disable`, judged by what answers before and after.

test('with every endpoint already Degraded (the all-degraded fallback answering), a down override that leaves the fallback answering is not refused', () => {
  const three = prof('web', [ep('primary', '192.0.2.1'), ep('backup', '192.0.2.2'), ep('spare', '192.0.2.3')]);
  const all = { 'web/primary': 'Degraded', 'web/backup': 'Degraded', 'web/spare': 'Degraded' } as const;
  expect(check([three], view(all), 'web', 'backup')).toEqual({ ok: true });
  expect(check([three], view(all), 'web', 'primary')).toEqual({ ok: true });
  // Taking out the last endpoint the fallback answers with does remove the last answer: refused.
  const r = check([three], view(all, ['web/primary', 'web/spare']), 'web', 'backup');
  expect(r.ok).toBe(false);
  // A healthy endpoint's loss to the fallback is still refused (the rule's purpose): Online primary, the rest Degraded.
  expect(check([three], view({ ...all, 'web/primary': 'Online' }), 'web', 'primary').ok).toBe(false);
});

test('an endpoint held out by an override is named with the override, not as Degraded', () => {
  const v: HealthView = {
    verdict: () => 'Online',
    override: (p, e) =>
      `${p}/${e}` === 'web/primary' ? { down: true, downId: 'ov-0123456789', reason: 'override down by cli' } : undefined,
  };
  const r = check([web], v, 'web', 'backup');
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.message).toBe(
    'refused: taking web/backup down would leave profile web with no endpoint able to serve (left: primary (override ov-0123456789 down)); pass --force (API: "force": true) to take it out anyway',
  );
});

test('endpoint disable: the same rule judges the profile as it would be stored', () => {
  const disabled = (p: ReturnType<typeof prof>, name: string) => ({
    ...p,
    endpoints: p.endpoints.map((e) => (e.name === name ? { ...e, endpointStatus: 'Disabled' as const } : e)),
  });
  const input = (health: HealthView, endpoint: string) => ({
    profiles: [web],
    health,
    geo: geo(),
    zone: 'tm.internal',
    profile: 'web',
    endpoint,
  });
  const change = (endpoint: string) => ({ kind: 'edit' as const, after: disabled(web, endpoint), verb: 'disabling' });
  expect(checkSafety(input(view({ 'web/primary': 'Online', 'web/backup': 'Online' }), 'primary'), change('primary'))).toEqual({ ok: true });
  const r = checkSafety(input(view({ 'web/primary': 'Online', 'web/backup': 'Degraded' }), 'primary'), change('primary'));
  expect(r).toMatchObject({ ok: false, refusals: [{ profile: 'web', left: [{ endpoint: 'backup', status: 'Degraded' }] }] });
  if (r.ok) return;
  expect(r.message).toBe(
    'refused: disabling web/primary would leave profile web with no endpoint able to serve (left: backup Degraded); pass --force (API: ?force=true) to do it anyway',
  );
  // The last enabled endpoint (NXDOMAIN after): refused; all Degraded and one of two disabled: the fallback still answers.
  const alone = disabled(web, 'backup');
  expect(
    checkSafety(
      { ...input(view({ 'web/primary': 'Online' }), 'primary'), profiles: [alone] },
      { kind: 'edit', after: disabled(alone, 'primary') },
    ).ok,
  ).toBe(false);
  expect(checkSafety(input(view({ 'web/primary': 'Degraded', 'web/backup': 'Degraded' }), 'primary'), change('primary'))).toEqual({
    ok: true,
  });
});
