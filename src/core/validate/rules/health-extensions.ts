/**
 * tmkit's health extensions of monitorConfig (docs/health.md "Certificates", "Slow is Degraded"): certificate
 * validation, its CA certificates and expiry warning, and the latency past which a probe fails. Each is
 * optional; absent means Azure's behaviour.
 */
import type { Ctx } from '../context';
import { CERTIFICATE_VALIDATIONS } from '../../model/types';
import { parsePemCertificates } from '../pem';
import { enumHint, isInt, show } from '../util';

/** Largest `degradedLatencyMs`: a minute, above any probe timeout. */
export const MAX_DEGRADED_LATENCY_MS = 60_000;
/** Largest `certificateExpiryWarningDays`. */
export const MAX_EXPIRY_WARNING_DAYS = 365;
/** Largest `caCertificates` text (a bundle of a few dozen certificates). */
export const MAX_CA_CERTIFICATES_CHARS = 64 * 1024;

export function checkHealthExtensions(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const m = p.profile.monitorConfig as unknown as Record<string, unknown>;
    const base = `${p.path}.monitorConfig`;
    const validation = m.certificateValidation;
    if (typeof validation === 'string' && !(CERTIFICATE_VALIDATIONS as readonly string[]).includes(validation)) {
      r.report(
        'MONITOR_CERTIFICATE_VALIDATION',
        `${base}.certificateValidation`,
        `certificateValidation ${show(validation)} is not Enabled or Disabled`,
        enumHint(validation, CERTIFICATE_VALIDATIONS),
      );
    }
    const ca = m.caCertificates;
    if (typeof ca === 'string') {
      if (ca.length > MAX_CA_CERTIFICATES_CHARS) {
        r.report(
          'MONITOR_CA_CERTIFICATES',
          `${base}.caCertificates`,
          `caCertificates is ${ca.length} characters, over the limit of ${MAX_CA_CERTIFICATES_CHARS}`,
          'keep only the CA certificates that sign your endpoints',
        );
      } else {
        const parsed = parsePemCertificates(ca);
        if (parsed.problem !== undefined) {
          r.report(
            'MONITOR_CA_CERTIFICATES',
            `${base}.caCertificates`,
            `caCertificates is not a PEM certificate bundle: ${parsed.problem}`,
            'paste one or more "-----BEGIN CERTIFICATE-----" blocks (e.g. the output of `openssl x509 -in ca.pem`)',
          );
        }
      }
    }
    const days = m.certificateExpiryWarningDays;
    if (typeof days === 'number' && !(isInt(days) && days >= 0 && days <= MAX_EXPIRY_WARNING_DAYS)) {
      r.report(
        'MONITOR_CERTIFICATE_EXPIRY_WARNING_RANGE',
        `${base}.certificateExpiryWarningDays`,
        `certificateExpiryWarningDays ${show(days)} is out of range: an integer 0–${MAX_EXPIRY_WARNING_DAYS} (0: no warning)`,
        'use e.g. 14',
      );
    }
    const enabled = validation === 'Enabled';
    const https = m.protocol === 'HTTPS';
    const certSettings = ['caCertificates', 'certificateExpiryWarningDays'].filter((k) => m[k] !== undefined);
    if (enabled && !https && typeof m.protocol === 'string') {
      r.report(
        'MONITOR_CERTIFICATE_IGNORED',
        `${base}.certificateValidation`,
        `certificateValidation Enabled is ignored because the monitor protocol is ${String(m.protocol)} (certificates are checked on HTTPS probes only)`,
        'probe with HTTPS, or remove certificateValidation',
      );
    } else if (!enabled && certSettings.length > 0) {
      r.report(
        'MONITOR_CERTIFICATE_IGNORED',
        `${base}.${certSettings[0]}`,
        `${certSettings.join(' and ')} ${certSettings.length > 1 ? 'are' : 'is'} ignored because certificateValidation is not Enabled`,
        'set "certificateValidation": "Enabled" (HTTPS probes), or remove them',
      );
    }
    const latency = m.degradedLatencyMs;
    if (typeof latency === 'number') {
      if (!(isInt(latency) && latency >= 1 && latency <= MAX_DEGRADED_LATENCY_MS)) {
        r.report(
          'MONITOR_DEGRADED_LATENCY_RANGE',
          `${base}.degradedLatencyMs`,
          `degradedLatencyMs ${show(latency)} is out of range: an integer 1–${MAX_DEGRADED_LATENCY_MS} (milliseconds)`,
          'use e.g. 500',
        );
      } else if (typeof m.timeoutInSeconds === 'number' && latency >= (m.timeoutInSeconds as number) * 1000) {
        r.report(
          'MONITOR_DEGRADED_LATENCY_IGNORED',
          `${base}.degradedLatencyMs`,
          `degradedLatencyMs ${latency} is not below the probe timeout (${String(m.timeoutInSeconds)} s): a probe that slow has already failed with "timeout"`,
          `use less than ${(m.timeoutInSeconds as number) * 1000}`,
        );
      }
    }
  }
}
