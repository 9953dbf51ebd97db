/**
 * The plugin's side of go-plugin's AutoMTLS: a fresh ECDSA P-256 key and a self-signed X.509 v3
 * certificate per start, built with node:crypto only. The DER is encoded by hand (node:crypto can sign
 * but not build certificates). The certificate has the shape go-plugin gives its own (subject and issuer
 * CN=localhost, SAN DNS:localhost, a CA, key usage digitalSignature|keyEncipherment|keyAgreement|
 * keyCertSign, extended key usage clientAuth+serverAuth, valid from 30 s ago for 262,980 hours) so Go's
 * verifier, which Terraform uses with ServerName "localhost" and this certificate as the only root, accepts
 * it. The signature is ecdsa-with-SHA256.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

export interface GeneratedCert {
  /** DER of the certificate (what the handshake line carries, base64). */
  der: Buffer;
  certPem: string;
  keyPem: string;
  key: KeyObject;
}

/** go-plugin's validity: 262,980 hours (30 years) after a start 30 seconds in the past. */
export const VALIDITY_HOURS = 262_980;

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]): Buffer => tlv(0x30, ...c);
const set = (...c: Buffer[]): Buffer => tlv(0x31, ...c);

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A positive DER INTEGER from big-endian bytes (minimal, with a 0x00 prefix when the top bit is set). */
function uint(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  let b = bytes.subarray(i);
  if (b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

/** UTCTime through 2049, GeneralizedTime from 2050 on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const y = d.getUTCFullYear();
  const rest = `${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return y < 2050 ? tlv(0x17, Buffer.from(`${p(y % 100)}${rest}`, 'ascii')) : tlv(0x18, Buffer.from(`${p(y, 4)}${rest}`, 'ascii'));
}

const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const TRUE = Buffer.from([0x01, 0x01, 0xff]);

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [TRUE] : []), tlv(0x04, value));
}

/**
 * Generates the key and certificate. `now` is injectable for tests; `organization` goes into the subject's O.
 */
export function generateCert(opts: { now?: Date; organization?: string } = {}): GeneratedCert {
  const now = opts.now ?? new Date();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // The subject public key BIT STRING is the tail of the SPKI: for P-256 an uncompressed point of 65 bytes.
  const point = spki.subarray(spki.length - 65);
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // positive, 127 random bits
  const name = seq(set(seq(oid('2.5.4.10'), utf8(opts.organization ?? 'tmkit'))), set(seq(oid('2.5.4.3'), utf8('localhost'))));
  const sigAlg = seq(oid('1.2.840.10045.4.3.2')); // ecdsa-with-SHA256, no parameters
  // keyUsage bits 0 digitalSignature, 2 keyEncipherment, 4 keyAgreement, 5 keyCertSign: 1010 1100, 2 unused
  const keyUsage = tlv(0x03, Buffer.from([0x02, 0xac]));
  const extKeyUsage = seq(oid('1.3.6.1.5.5.7.3.2'), oid('1.3.6.1.5.5.7.3.1'));
  const basicConstraints = seq(TRUE);
  const skid = tlv(0x04, createHash('sha1').update(point).digest());
  const san = seq(tlv(0x82, Buffer.from('localhost', 'ascii')));
  const tbs = seq(
    tlv(0xa0, uint(Buffer.from([2]))), // v3
    uint(serial),
    sigAlg,
    name,
    seq(time(new Date(now.getTime() - 30_000)), time(new Date(now.getTime() + VALIDITY_HOURS * 3_600_000))),
    name,
    spki,
    tlv(
      0xa3,
      seq(
        extension('2.5.29.15', true, keyUsage),
        extension('2.5.29.37', false, extKeyUsage),
        extension('2.5.29.19', true, basicConstraints),
        extension('2.5.29.14', false, skid),
        extension('2.5.29.17', false, san),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const der = seq(tbs, sigAlg, tlv(0x03, Buffer.from([0]), signature));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return {
    der,
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    key: privateKey,
  };
}
