/**
 * What the status report (reports.ts) shows of an endpoint beyond its probes: health pushed from outside and
 * whether it is what sets the verdict, and the certificate the last HTTPS probe saw with its expiry warning
 * (docs/health.md). Read-only over the ledger's PushedHealth.
 */
import type { CertificateReport, EndpointStatusReport } from '../../core/api';
import type { ProbeVerdict } from '../../core/health/types';
import type { EndpointProbeStatus } from '../monitor';
import { worseOf, type PushedHealth } from './pushed-health';

const DAY_MS = 86_400_000;

export interface HealthExtras {
  pushed: Pick<PushedHealth, 'report'>;
  /** The runtime's clock now (days left of certificates). */
  now: number;
}

export interface EndpointExtras {
  /** The effective verdict (probing's with pushed health applied). */
  verdict: ProbeVerdict | undefined;
  /** Replaces the routing reason while pushed health sets the verdict. */
  reason?: string;
  certificate?: CertificateReport;
  fields: Pick<EndpointStatusReport, 'pushedHealth' | 'verdictSource' | 'warnings'>;
}

export function endpointHealthExtras(x: HealthExtras, s: EndpointProbeStatus, probeVerdict: ProbeVerdict | undefined): EndpointExtras {
  const pushed = x.pushed.report(s.key);
  const verdict = worseOf(probeVerdict, pushed?.status);
  const byPush = pushed !== undefined && verdict !== probeVerdict;
  const c = s.lastProbe?.certificate;
  const certificate: CertificateReport | undefined =
    c && Number.isFinite(c.validTo)
      ? {
          validTo: new Date(c.validTo).toISOString(),
          expiresInDays: Math.floor((c.validTo - x.now) / DAY_MS),
          names: c.names,
          ...(c.warning !== undefined ? { warning: c.warning } : {}),
        }
      : undefined;
  const warnings = certificate?.warning !== undefined ? [certificate.warning] : [];
  return {
    verdict,
    ...(byPush ? { reason: `pushed ${pushed.status} until ${pushed.expiresAt}${pushed.reason !== '' ? `: ${pushed.reason}` : ''}` } : {}),
    ...(certificate ? { certificate } : {}),
    fields: {
      ...(pushed ? { pushedHealth: pushed, verdictSource: byPush ? ('pushed' as const) : ('probe' as const) } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
}
