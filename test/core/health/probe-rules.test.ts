/**
 * The pure rules beyond a status code (src/core/health/probe-rules.ts): the certificate check, the expiry
 * warning and the latency rule, row by row of their truth tables; and the PEM check of caCertificates.
 */
import {
  certificateFailure,
  certificateWarning,
  latencyJudgement,
  slowFailure,
  type CertificateFacts,
} from '../../../src/core/health/probe-rules';
import { parsePemCertificates } from '../../../src/core/validate';
import { TEST_CA_PEM } from '../../support/test-ca';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const fine: CertificateFacts = { validFrom: NOW - 10 * DAY, validTo: NOW + 30 * DAY, names: ['a.example'], hostMismatch: false };

test.each<[string, Partial<CertificateFacts>, string | undefined]>([
  ['valid', {}, undefined],
  ['expired 3 days and an hour ago', { validTo: NOW - 3 * DAY - 3_600_000 }, 'certificate expired 3 days ago'],
  ['expired a minute ago', { validTo: NOW - 60_000 }, 'certificate expired 1 day ago'],
  [
    'expired wins over a bad chain and a wrong name',
    { validTo: NOW - 2 * DAY, chainError: 'DEPTH_ZERO_SELF_SIGNED_CERT', hostMismatch: true },
    'certificate expired 2 days ago',
  ],
  ['not yet valid', { validFrom: Date.parse('2030-01-01T00:00:00Z') }, 'certificate not valid until 2030-01-01'],
  ['self-signed', { chainError: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'self-signed'],
  ['unknown issuer', { chainError: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' }, 'untrusted issuer'],
  ['another chain error', { chainError: 'INVALID_CA' }, 'untrusted certificate (INVALID_CA)'],
  ['OpenSSL says expired but the dates (our clock) say valid', { chainError: 'CERT_HAS_EXPIRED' }, undefined],
  ['wrong host', { hostMismatch: true }, 'hostname mismatch: cert for a.example, probed b.example'],
  [
    "Node's own name check is the host row",
    { chainError: 'ERR_TLS_CERT_ALTNAME_INVALID', hostMismatch: true },
    'hostname mismatch: cert for a.example, probed b.example',
  ],
])('certificateFailure: %s', (_what, facts, reason) => {
  expect(certificateFailure({ ...fine, ...facts }, NOW, 'b.example')).toBe(reason);
});

test.each<[number, number, string | undefined]>([
  [5 * DAY + 1000, 14, 'certificate expires in 5 days (2026-06-06T12:00:01.000Z)'],
  [1 * DAY, 14, 'certificate expires in 1 day (2026-06-02T12:00:00.000Z)'],
  [3_600_000, 14, 'certificate expires in less than a day (2026-06-01T13:00:00.000Z)'],
  [14 * DAY, 14, undefined],
  [5 * DAY, 0, undefined],
  [-DAY, 14, undefined],
])('certificateWarning: %i ms left, warn %i days before', (left, days, warning) => {
  expect(certificateWarning(NOW + left, NOW, days)).toBe(warning);
});

test.each<[number, number | undefined, string | undefined]>([
  [812, 500, 'slow: 812 ms > 500 ms'],
  [500, 500, undefined],
  [500.2, 500, 'slow: 501 ms > 500 ms'],
  [10_000, undefined, undefined],
])('slowFailure(%d, %s)', (latency, threshold, reason) => {
  expect(slowFailure(latency, threshold)).toBe(reason);
});

// The endpoint's latency is the wall time less the stall of tmkit's own event loop: slow only when slow even so;
// unknown when only the stall made it look slow (the prober measures again).
test.each<[number, number, number | undefined, ReturnType<typeof latencyJudgement>]>([
  [648, 640, 200, { latencyMs: 8, unknown: true }],
  [648, 0, 200, { latencyMs: 648, slow: 'slow: 648 ms > 200 ms' }],
  [648, 300, 200, { latencyMs: 348, slow: 'slow: 348 ms > 200 ms' }],
  [200, 150, 200, { latencyMs: 50 }],
  [120, 0, 200, { latencyMs: 120 }],
  [201, 1, 200, { latencyMs: 200, unknown: true }],
  [648, 640, undefined, { latencyMs: 8 }],
  [10, 30, 200, { latencyMs: 0 }],
])('latencyJudgement(wall %d, stalled %d, threshold %s)', (wall, stalled, threshold, judged) => {
  expect(latencyJudgement(wall, stalled, threshold)).toEqual(judged);
});

test('parsePemCertificates: a bundle, and what is not one', () => {
  const cert = TEST_CA_PEM;
  expect(parsePemCertificates(cert)).toEqual({ count: 1 });
  expect(parsePemCertificates(`# ours\n${cert}${cert}`)).toEqual({ count: 2 });
  const lines = cert.split('\n');
  expect(parsePemCertificates([...lines.slice(0, 5), ...lines.slice(6)].join('\n')).problem).toMatch(/^certificate 1: /);
  expect(parsePemCertificates(cert.replace('-----END CERTIFICATE-----', '')).problem).toBe(
    'certificate 1 has no "-----END CERTIFICATE-----" line',
  );
  expect(parsePemCertificates('-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n').problem).toBe(
    'it holds a private key, not a certificate',
  );
  expect(parsePemCertificates('hello').problem).toBe('it holds no "-----BEGIN CERTIFICATE-----" block');
  expect(parsePemCertificates(cert.replace('MIIB', 'MI!B')).problem).toBe('certificate 1 is not valid base64');
});
