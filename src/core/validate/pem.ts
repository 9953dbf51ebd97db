/**
 * PEM certificates, checked without I/O (core has no node:crypto): each `-----BEGIN CERTIFICATE-----` block
 * must be base64 of one DER X.509 certificate, i.e. a SEQUENCE whose length matches the bytes and which holds
 * the three parts RFC 5280 §4.1 names (tbsCertificate SEQUENCE, signatureAlgorithm SEQUENCE, signature BIT
 * STRING). That catches a pasted key, a truncated block or a mangled line; the prober's TLS stack
 * (src/runtime/monitor/probe.ts) is what finally trusts them.
 */

const BEGIN = '-----BEGIN CERTIFICATE-----';
const END = '-----END CERTIFICATE-----';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Bytes of standard base64 (whitespace ignored); undefined when it is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const s = text.replace(/\s+/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const out = new Uint8Array((s.length / 4) * 3 - pad);
  let o = 0;
  for (let i = 0; i < s.length; i += 4) {
    const n =
      (B64.indexOf(s[i]!) << 18) | (B64.indexOf(s[i + 1]!) << 12) | ((B64.indexOf(s[i + 2]!) & 63) << 6) | (B64.indexOf(s[i + 3]!) & 63);
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/** One DER element at `at`: its tag, where its content starts and ends; undefined when malformed. */
function element(b: Uint8Array, at: number): { tag: number; start: number; end: number } | undefined {
  if (at + 2 > b.length) return undefined;
  const tag = b[at]!;
  let len = b[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > b.length) return undefined;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[start + i]!;
    start += n;
  }
  const end = start + len;
  return end > b.length ? undefined : { tag, start, end };
}

/** Why `der` is not an X.509 certificate's DER, or undefined when it looks like one. */
function derProblem(der: Uint8Array): string | undefined {
  const cert = element(der, 0);
  if (cert?.tag !== 0x30) return 'it is not a DER SEQUENCE';
  if (cert.end !== der.length) return 'its DER length does not match its size (truncated or with extra bytes)';
  const tbs = element(der, cert.start);
  const alg = tbs && element(der, tbs.end);
  const sig = alg && element(der, alg.end);
  if (tbs?.tag !== 0x30 || !alg || alg.tag !== 0x30 || !sig || sig.tag !== 0x03 || sig.end !== cert.end) {
    return 'it does not hold an X.509 certificate (tbsCertificate, signatureAlgorithm, signature)';
  }
  return undefined;
}

/** The certificates of a PEM text, or the first problem found (with the 1-based block number). */
export function parsePemCertificates(text: string): { count: number; problem?: string } {
  let count = 0;
  let at = 0;
  for (;;) {
    const begin = text.indexOf(BEGIN, at);
    if (begin < 0) break;
    const end = text.indexOf(END, begin);
    if (end < 0) return { count, problem: `certificate ${count + 1} has no "${END}" line` };
    const der = decodeBase64(text.slice(begin + BEGIN.length, end));
    if (!der || der.length === 0) return { count, problem: `certificate ${count + 1} is not valid base64` };
    const p = derProblem(der);
    if (p !== undefined) return { count, problem: `certificate ${count + 1}: ${p}` };
    count++;
    at = end + END.length;
  }
  if (count === 0)
    return {
      count,
      problem: /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)
        ? 'it holds a private key, not a certificate'
        : `it holds no "${BEGIN}" block`,
    };
  return { count };
}
