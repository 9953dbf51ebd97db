/**
 * The probe target carries tmkit's health extensions (docs/health.md): the certificate check only for HTTPS
 * with certificateValidation Enabled, checked against the custom Host header's name; and a target without
 * extensions keeps exactly the fingerprint it had before they existed (a saved verdict survives the upgrade).
 */
import { probeTarget } from '../../../src/core/health/targets';
import { profile, ext } from '../../../src/testing/builders';

const target = (monitorConfig: Record<string, unknown>, endpoint = ext('e', '192.0.2.1')) =>
  probeTarget(profile('p', 'Priority', [endpoint], { monitorConfig }), profile('p', 'Priority', [endpoint]).endpoints[0]!, '192.0.2.1');

test("certificate settings: HTTPS + Enabled only; the name is the Host header's without its port, else the target", () => {
  expect(target({ protocol: 'HTTPS', certificateValidation: 'Enabled' }).certificate).toEqual({ host: '192.0.2.1', warningDays: 14 });
  expect(
    target({
      protocol: 'HTTPS',
      certificateValidation: 'Enabled',
      certificateExpiryWarningDays: 30,
      caCertificates: 'PEM',
      customHeaders: [{ name: 'host', value: 'WWW.Example.com:8443' }],
    }).certificate,
  ).toEqual({ host: 'www.example.com', ca: 'PEM', warningDays: 30 });
  expect(
    target({ protocol: 'HTTPS', certificateValidation: 'Enabled', customHeaders: [{ name: 'Host', value: '[2001:db8::1]:8443' }] })
      .certificate?.host,
  ).toBe('2001:db8::1');
  expect(target({ protocol: 'HTTPS', certificateValidation: 'Disabled' }).certificate).toBeUndefined();
  expect(target({ protocol: 'HTTP', certificateValidation: 'Enabled' }).certificate).toBeUndefined();
  expect(target({ protocol: 'TCP', port: 22, degradedLatencyMs: 250 }).degradedLatencyMs).toBe(250);
});

test('fingerprints: unchanged without extensions, new with them (so a change resets the endpoint)', () => {
  const plain = target({ protocol: 'HTTPS' });
  expect(plain.fingerprint).toBe(JSON.stringify(['192.0.2.1', 'HTTPS', 443, '/', 30, 10, 3, [], [[200, 200]]]));
  const slow = target({ protocol: 'HTTPS', degradedLatencyMs: 500 });
  const checked = target({ protocol: 'HTTPS', certificateValidation: 'Enabled' });
  expect(new Set([plain.fingerprint, slow.fingerprint, checked.fingerprint]).size).toBe(3);
});
