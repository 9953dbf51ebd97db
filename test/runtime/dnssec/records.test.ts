/**
 * DNSSEC record data against the RFCs' own examples: key tags and SHA-256 DS digests (RFC 6605 §6.1 for
 * algorithm 13, RFC 8080 §6 for algorithm 15), the NSEC type bitmap (RFC 4034 §4.3), the canonical RRset
 * order (RFC 4034 §6.3), and signatures that node:crypto verifies with the DNSKEY's own public key.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import {
  canonicalName,
  canonicalRrset,
  dnskeyRdata,
  dsRdata,
  immediateSuccessor,
  keyTag,
  nsecRdata,
  typeBitmap,
} from '../../../src/runtime/dns/dnssec/records';
import { dsText, loadKeySet, newKeySet, signData } from '../../../src/runtime/dns/dnssec/keys';

function dsOfPresented(owner: string, flags: number, algorithm: 13 | 15, publicKeyB64: string): { tag: number; digest: string } {
  const rdata = dnskeyRdata(flags, algorithm, Buffer.from(publicKeyB64, 'base64'));
  const tag = keyTag(rdata);
  const digest = createHash('sha256').update(canonicalName(owner)).update(rdata).digest();
  return { tag, digest: dsRdata(tag, algorithm, digest).subarray(4).toString('hex') };
}

test.each([
  [
    'RFC 6605 §6.1, ECDSAP256SHA256',
    'example.net.',
    13 as const,
    'GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==',
    55648,
    'b4c8c1fe2e7477127b27115656ad6256f424625bf5c1e2770ce6d6e37df61d17',
  ],
  [
    'RFC 8080 §6.1, ED25519',
    'example.com.',
    15 as const,
    'l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=',
    3613,
    '3aa5ab37efce57f737fc1627013fee07bdf241bd10f3b1964ab55c78e79a304b',
  ],
])('key tag and DS digest: %s', (_what, owner, algorithm, key, tag, digest) => {
  expect(dsOfPresented(owner, 257, algorithm, key)).toEqual({ tag, digest });
});

test('NSEC type bitmap: the RFC 4034 §4.3 example (A MX RRSIG NSEC TYPE1234)', () => {
  const expected = Buffer.from([0x00, 0x06, 0x40, 0x01, 0x00, 0x00, 0x00, 0x03, 0x04, 0x1b, ...Array<number>(26).fill(0), 0x20]);
  expect(typeBitmap([1, 15, 46, 47, 1234])).toEqual(expected);
  expect(typeBitmap([1234, 47, 46, 15, 1])).toEqual(expected);
});

test('compact denial: the next name is \\000.<owner>; for a name too long for that, its first label one higher', () => {
  const owner = canonicalName('Nx.TM.internal');
  expect(owner).toEqual(Buffer.from('\u0002nx\u0002tm\u0008internal\u0000', 'latin1'));
  expect(immediateSuccessor(owner)).toEqual(Buffer.concat([Buffer.from([1, 0]), owner]));
  expect(nsecRdata(immediateSuccessor(owner), [46, 47, 128]).subarray(owner.length + 2)).toEqual(
    Buffer.from([0, 17, 0, 0, 0, 0, 0, 3, ...Array<number>(10).fill(0), 0x80]),
  );
  const long = canonicalName(`${Array.from({ length: 4 }, () => 'a'.repeat(62)).join('.')}.x`);
  expect(long.length).toBe(255);
  const next = immediateSuccessor(long);
  expect(next.length).toBe(255);
  expect(next.toString('latin1')).toBe(long.toString('latin1').replace(/^(.)(a{61})a/s, '$1$2b'));
  const ff = Buffer.from(long);
  ff[61] = 0xff;
  ff[62] = 0xff;
  expect(immediateSuccessor(ff)).toEqual(Buffer.concat([Buffer.from([60]), Buffer.from(`${'a'.repeat(59)}b`), long.subarray(63)]));
});

test('canonical RRset: RDATA sorted as octet strings, duplicates removed, names in lower case', () => {
  const rr = (data: string) => ({ type: 'A' as const, name: 'Web.TM.Internal', ttl: 30, data });
  const c = canonicalRrset([rr('192.0.2.20'), rr('192.0.2.3'), rr('192.0.2.20')]);
  const owner = canonicalName('web.tm.internal');
  const one = (ip: number[]): Buffer => Buffer.concat([owner, Buffer.from([0, 1, 0, 1, 0, 0, 0, 30, 0, 4, ...ip])]);
  expect(c).toEqual(Buffer.concat([one([192, 0, 2, 3]), one([192, 0, 2, 20])]));
  const cname = canonicalRrset([{ type: 'CNAME', name: 'x.tm.internal', ttl: 5, data: 'Target.Example.NET.' }]);
  expect(cname.subarray(-20)).toEqual(canonicalName('target.example.net'));
});

test.each([13, 15] as const)('a new key of algorithm %i signs what its DNSKEY verifies; its DS names it', (algorithm) => {
  const { keys } = loadKeySet(newKeySet('tm.internal', { algorithm, split: false }, Date.now()), 'test');
  const k = keys[0]!;
  expect(k.flags).toBe(257);
  const data = Buffer.from('the signed data');
  const sig = signData(k, data);
  expect(sig).toHaveLength(64);
  const pub = k.dnskey.subarray(4);
  const jwk =
    algorithm === 13
      ? { kty: 'EC', crv: 'P-256', x: pub.subarray(0, 32).toString('base64url'), y: pub.subarray(32).toString('base64url') }
      : { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url') };
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  expect(algorithm === 13 ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig) : verify(null, data, key, sig)).toBe(true);
  expect(dsText('tm.internal', k)).toMatch(new RegExp(`^tm\\.internal\\. IN DS ${k.keyTag} ${algorithm} 2 [0-9A-F]{64}$`));
});

test('split keys: a KSK (257) and a ZSK (256) with different key tags', () => {
  const { keys } = loadKeySet(newKeySet('tm.internal', { algorithm: 13, split: true }, Date.now()), 'test');
  expect(keys.map((k) => [k.role, k.flags])).toEqual([
    ['ksk', 257],
    ['zsk', 256],
  ]);
  expect(keys[0]!.keyTag).not.toBe(keys[1]!.keyTag);
});

test('a key set that is not one, or a damaged key, is refused with the place named', () => {
  expect(() => loadKeySet({ format: 2 }, 'keys.json')).toThrow(/keys\.json: not a tmkit DNSSEC key set/);
  const doc = newKeySet('tm.internal', { algorithm: 13, split: false }, Date.now());
  doc.keys[0]!.privateKey = 'AAAA';
  expect(() => loadKeySet(doc, 'keys.json')).toThrow(/keys\.json: keys\[0\]: the private key cannot be read/);
});
