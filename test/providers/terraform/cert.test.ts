/**
 * The AutoMTLS certificate: parsed by openssl (the real tool, not our own parser), with the fields
 * go-plugin's own certificates have and Go's verifier needs; and the committed protobuf descriptor is
 * what the .proto files generate.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCert, VALIDITY_HOURS } from '../../../providers/terraform/src/cert';
import { DESCRIPTOR_FILE, descriptorText } from '../../../providers/terraform/src/proto-descriptor';

describe('AutoMTLS certificate', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-cert-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('openssl x509 -text parses it: v3, ecdsa-with-SHA256 on P-256, CN=localhost, SAN, CA, key usages', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const c = generateCert({ now });
    const file = join(dir, 'c.pem');
    writeFileSync(file, c.certPem);
    const text = execFileSync('openssl', ['x509', '-in', file, '-noout', '-text'], { encoding: 'utf8' });
    expect(text).toMatch(/Version: 3 \(0x2\)/);
    expect(text).toMatch(/Signature Algorithm: ecdsa-with-SHA256/);
    expect(text).toMatch(/ASN1 OID: prime256v1/);
    expect(text).toMatch(/Subject: O ?= ?tmkit, CN ?= ?localhost/);
    expect(text).toMatch(/Issuer: O ?= ?tmkit, CN ?= ?localhost/);
    expect(text).toMatch(/X509v3 Subject Alternative Name: *\n\s+DNS:localhost/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\n\s+CA:TRUE/);
    expect(text).toMatch(/X509v3 Key Usage: critical\n\s+Digital Signature, Key Encipherment, Key Agreement, Certificate Sign/);
    expect(text).toMatch(/X509v3 Extended Key Usage: *\n\s+TLS Web Client Authentication, TLS Web Server Authentication/);
    expect(text).toMatch(/Not Before: Mar +1 11:59:30 2026 GMT/); // 30 s before now
    const x = new X509Certificate(c.der);
    expect(new Date(x.validTo).getTime() - new Date(x.validFrom).getTime()).toBe(VALIDITY_HOURS * 3_600_000 + 30_000);
    // 2056 is past 2049: notAfter must be a GeneralizedTime (tag 0x18) for strict parsers
    expect(c.der.includes(Buffer.from([0x18, 0x0f]))).toBe(true);
  });

  test('self-signed and verifiable as server and client (openssl verify with itself as the only CA)', () => {
    const c = generateCert();
    const file = join(dir, 'v.pem');
    writeFileSync(file, c.certPem);
    for (const purpose of ['sslserver', 'sslclient']) {
      expect(execFileSync('openssl', ['verify', '-CAfile', file, '-purpose', purpose, file], { encoding: 'utf8' })).toMatch(/: OK/);
    }
    const x = new X509Certificate(c.certPem);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.checkPrivateKey(createPrivateKey(c.keyPem))).toBe(true);
  });

  test('fresh key and random positive serial per start', () => {
    const a = new X509Certificate(generateCert().der);
    const b = new X509Certificate(generateCert().der);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.publicKey.export({ format: 'der', type: 'spki' }).equals(b.publicKey.export({ format: 'der', type: 'spki' }))).toBe(false);
    expect(parseInt(a.serialNumber.slice(0, 2), 16) & 0x80).toBe(0);
  });
});

describe('protobuf descriptor', () => {
  test('providers/terraform/proto/descriptor.json is what the .proto files generate (run `npm run proto` after editing them)', () => {
    expect(readFileSync(DESCRIPTOR_FILE, 'utf8')).toBe(descriptorText());
  });
});
