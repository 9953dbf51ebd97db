/**
 * The ExternalDNS mapping (src/cli/util/external-dns-records.ts) on its own: what the servers' tests do not reach
 * cheaply (A and AAAA on one name, names a profile cannot have, TXT records without their record, a profile made
 * and read back through normalize as the store keeps it).
 */
import { normalize } from '../../src/core/model/normalize';
import type { DocumentInput, Profile } from '../../src/core/model/types';
import { adjustEndpoint, applyChanges, type ExtEndpoint, recordsOf, relativeName } from '../../src/cli/util/external-dns-records';

const Z = 'tm.internal';

/** The profiles as the server would hold them (normalized), with their stack. */
function held(stack: string, profiles: ReturnType<typeof applyChanges>['stacks']): Array<{ stack: string; profile: Profile }> {
  const doc = normalize({ apiVersion: 'tmkit/v1', stack, profiles: profiles.get(stack) ?? [] } as DocumentInput);
  return doc.profiles.map((profile) => ({ stack, profile }));
}

test('names: under the zone, not the apex, not a wildcard, at most 63 characters', () => {
  expect(relativeName('Web.EU.tm.internal.', Z)).toEqual({ name: 'web.eu' });
  expect(relativeName('tm.internal', Z)).toMatchObject({ reason: expect.stringMatching(/apex/) });
  expect(relativeName('*.tm.internal', Z)).toMatchObject({ reason: expect.stringMatching(/cannot be a profile name/) });
  expect(relativeName(`${'a'.repeat(64)}.tm.internal`, Z)).toMatchObject({ reason: expect.stringMatching(/at most 63/) });
  expect(relativeName('web.example.com', Z)).toEqual({ reason: 'not under the tmkit zone tm.internal' });
});

test('adjust: CNAME targets lose the trailing dot; unknown tmkit keys and bad values are reasons', () => {
  expect(adjustEndpoint({ dnsName: 'w.tm.internal', targets: ['Target.Example.com.'], recordType: 'cname' }, Z)).toEqual({
    endpoint: { dnsName: 'w.tm.internal', targets: ['target.example.com'], recordType: 'CNAME' },
  });
  expect(
    adjustEndpoint(
      { dnsName: 'w.tm.internal', targets: ['1.2.3.4'], recordType: 'A', providerSpecific: [{ name: 'tmkit/wieght', value: '1' }] },
      Z,
    ),
  ).toEqual({
    reason: expect.stringMatching(/^providerSpecific tmkit\/wieght: not a tmkit key \(tmkit\/routing-method, tmkit\/weight/),
  });
  expect(
    adjustEndpoint(
      {
        dnsName: 'w.tm.internal',
        targets: ['1.2.3.4'],
        recordType: 'A',
        providerSpecific: [{ name: 'tmkit/monitor-protocol', value: 'udp' }],
      },
      Z,
    ),
  ).toEqual({
    reason: 'w.tm.internal A: providerSpecific tmkit/monitor-protocol "udp": HTTP, HTTPS or TCP',
  });
});

test('A and AAAA on one name are one profile; each reads back as it was written', () => {
  const a: ExtEndpoint = { dnsName: 'dual.tm.internal', targets: ['192.0.2.2', '192.0.2.1'], recordType: 'A' };
  const aaaa: ExtEndpoint = { dnsName: 'dual.tm.internal', targets: ['2001:db8::1'], recordType: 'AAAA' };
  const out = applyChanges([], { create: [a, aaaa] }, Z, 'o', 'external-dns-o');
  const [p] = held('external-dns-o', out.stacks);
  expect(p!.profile.endpoints.map((e) => [e.name, e.target])).toEqual([
    ['default-aaaa-1', '2001:db8::1'],
    ['default-a-1', '192.0.2.1'],
    ['default-a-2', '192.0.2.2'],
  ]);
  expect(recordsOf(p!.profile, Z, 'o')).toEqual([aaaa, { ...a, targets: ['192.0.2.1', '192.0.2.2'] }]);
  expect(recordsOf(p!.profile, Z, 'someone-else')).toEqual([]);
});

test('priorities: given ones are kept, the rest follow the highest; a TXT record without its record is dropped', () => {
  const out = applyChanges(
    [],
    {
      create: [
        {
          dnsName: 'p.tm.internal',
          targets: ['192.0.2.1'],
          recordType: 'A',
          setIdentifier: 'x',
          providerSpecific: [{ name: 'tmkit/priority', value: '5' }],
        },
        { dnsName: 'p.tm.internal', targets: ['192.0.2.2'], recordType: 'A', setIdentifier: 'y' },
        { dnsName: 'a-lost.tm.internal', targets: ['"heritage=external-dns"'], recordType: 'TXT' },
      ],
    },
    Z,
    'o',
    'external-dns-o',
  );
  expect(out.stacks.get('external-dns-o')!.map((p) => p.endpoints!.map((e) => [e.name, e.priority]))).toEqual([
    [
      ['x-1', 5],
      ['y-1', 6],
    ],
  ]);
  expect(out.dropped).toEqual(['a-lost.tm.internal TXT: no A, AAAA or CNAME record it owns is kept here']);
});

test("another owner's record is refused; deleting one owner's last record keeps the other's in the profile", () => {
  const ra: ExtEndpoint = { dnsName: 's.tm.internal', targets: ['192.0.2.1'], recordType: 'A', setIdentifier: 'a' };
  const rb: ExtEndpoint = { dnsName: 's.tm.internal', targets: ['192.0.2.2'], recordType: 'A', setIdentifier: 'b' };
  const first = held('external-dns-a', applyChanges([], { create: [ra] }, Z, 'a', 'external-dns-a').stacks);
  const second = applyChanges(first, { create: [rb] }, Z, 'b', 'external-dns-b');
  expect([...second.stacks.keys()]).toEqual(['external-dns-a']);
  const both = held('external-dns-a', second.stacks);
  expect(() => applyChanges(both, { delete: [ra], create: [{ ...ra, setIdentifier: 'b' }] }, Z, 'a', 'external-dns-a')).toThrow(
    /create\[0\] \(s\.tm\.internal A \(set b\)\): owned by b/,
  );
  const left = held('external-dns-a', applyChanges(both, { delete: [ra] }, Z, 'a', 'external-dns-a').stacks);
  expect(left.map((h) => h.profile.endpoints.map((e) => e.name))).toEqual([['b-1']]);
  expect(recordsOf(left[0]!.profile, Z, 'b')).toEqual([rb]);
});
