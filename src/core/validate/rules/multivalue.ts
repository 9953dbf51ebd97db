/** MultiValue: maxReturn, external IP-literal endpoints only. (Nested rules live in nesting.ts.) */
import type { Ctx } from '../context';
import { isInt, show } from '../util';

export const MAX_RETURN_MAX = 8;

export function checkMultiValue(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const mr = p.profile.maxReturn as unknown;
    if (p.method === 'MultiValue') {
      if (typeof mr === 'number' && !(isInt(mr) && mr >= 1 && mr <= MAX_RETURN_MAX)) {
        r.report(
          'MAX_RETURN_RANGE',
          `${p.path}.maxReturn`,
          `maxReturn ${show(mr)} is out of range: an integer 1–${MAX_RETURN_MAX}`,
          'use e.g. 2 (default)',
        );
      }
      for (const e of p.endpoints) {
        if (e.type === 'azureEndpoints') {
          r.report(
            'MULTIVALUE_ENDPOINT_TYPE',
            `${e.path}.type`,
            'a MultiValue profile has external endpoints only (with IPv4/IPv6 targets)',
            "use an external endpoint with the resource's IP address",
          );
        } else if (e.type === 'externalEndpoints' && e.target?.kind === 'fqdn') {
          r.report(
            'MULTIVALUE_TARGET',
            `${e.path}.target`,
            `target ${show(e.ep.target)} is an FQDN; MultiValue endpoints have IPv4 or IPv6 literal targets`,
            'give the IP address, or use another routing method for host names',
          );
        }
      }
    } else if (p.method !== undefined && typeof p.raw.maxReturn === 'number') {
      r.report(
        'MAX_RETURN_IGNORED',
        `${p.path}.maxReturn`,
        `maxReturn is ignored by ${p.method} routing (only MultiValue uses it)`,
        'remove maxReturn',
      );
    }
  }
}
