import type { Diagnostic } from '../diagnostics';
import { childProfileName } from '../model/names';
import type { Profile } from '../model/types';
import { detectionSeconds } from './failover';

/**
 * Warnings a reviewer should see: valid configurations that behave worse than intended. Never errors.
 * `lookup` finds nested children (in the document or deployed).
 */
export function lintProfiles(profiles: readonly Profile[], lookup: (name: string) => Profile | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of profiles) {
    const at = `profiles[${p.name}]`;
    const enabled = p.endpoints.filter((e) => e.endpointStatus === 'Enabled');
    const det = detectionSeconds(p);
    if (p.dnsConfig.ttl > det && p.endpoints.some((e) => e.type !== 'nestedEndpoints')) {
      out.push({
        severity: 'warning',
        code: 'LINT_TTL_EXCEEDS_DETECTION',
        path: `${at}.dnsConfig.ttl`,
        profile: p.name,
        message:
          `TTL ${p.dnsConfig.ttl} s is longer than the ${det} s the probes need to detect a failure ` +
          `(${p.monitorConfig.intervalInSeconds} × (${p.monitorConfig.toleratedNumberOfFailures} + 1) + ${p.monitorConfig.timeoutInSeconds}): ` +
          'resolvers keep sending clients to a failed endpoint for most of the failover time',
        hint: `lower dnsConfig.ttl to at most ${det} s (the FAQ's fastest setting is interval 10, tolerated 0, TTL 0)`,
      });
    }
    if (p.trafficRoutingMethod === 'Geographic' && !enabled.some((e) => e.geoMapping.includes('WORLD'))) {
      out.push({
        severity: 'warning',
        code: 'LINT_GEOGRAPHIC_WITHOUT_WORLD',
        path: `${at}.endpoints`,
        profile: p.name,
        message: 'no enabled endpoint maps WORLD: clients in unmapped regions, and clients whose location is unknown, get NODATA',
        hint: 'add WORLD to the geoMapping of one (preferably nested) endpoint',
      });
    }
    if (p.trafficRoutingMethod === 'Subnet' && !enabled.some((e) => e.subnets.length === 0)) {
      out.push({
        severity: 'warning',
        code: 'LINT_SUBNET_WITHOUT_FALLBACK',
        path: `${at}.endpoints`,
        profile: p.name,
        message: 'no enabled endpoint without subnets: addresses outside every range get no answer',
        hint: 'add an endpoint with an empty subnets list as the fallback',
      });
    }
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints' || !e.targetResourceId) continue;
      const child = lookup(childProfileName(e.targetResourceId));
      if (!child) continue;
      const childEnabled = child.endpoints.filter((c) => c.endpointStatus === 'Enabled');
      const checks: Array<[string, number | undefined, number, string]> = [
        ['minChildEndpoints', e.minChildEndpoints, childEnabled.length, 'enabled endpoints'],
        ['minChildEndpointsIPv4', e.minChildEndpointsIPv4, childEnabled.filter((c) => isIPv4(c.target)).length, 'enabled IPv4 endpoints'],
        ['minChildEndpointsIPv6', e.minChildEndpointsIPv6, childEnabled.filter((c) => isIPv6(c.target)).length, 'enabled IPv6 endpoints'],
      ];
      for (const [prop, min, have, what] of checks) {
        if (min === undefined || min <= have) continue;
        out.push({
          severity: 'warning',
          code: 'LINT_MIN_CHILD_ENDPOINTS_UNREACHABLE',
          path: `${at}.endpoints[${e.name}].${prop}`,
          profile: p.name,
          message: `${prop} is ${min} but child profile ${child.name} has only ${have} ${what}: the nested endpoint can never be Online`,
          hint: `lower ${prop} to at most ${have}, or add endpoints to ${child.name}`,
        });
      }
    }
  }
  return out;
}

const isIPv4 = (t: string | undefined): boolean => t !== undefined && /^\d{1,3}(\.\d{1,3}){3}$/.test(t);
const isIPv6 = (t: string | undefined): boolean => t?.includes(':') === true;
