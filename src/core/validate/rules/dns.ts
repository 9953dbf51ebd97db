/** DNS: relativeName syntax and uniqueness (document and deployed context), TTL range. */
import type { Ctx } from '../context';
import { dnsNameProblem } from '../target';
import { isInt, show } from '../util';

export const TTL_MAX = 2147483647;

export function checkDns(ctx: Ctx): void {
  const { r } = ctx;
  // Deployed names first (looked up in the context's index): a document profile that takes a deployed
  // profile's name is the one reported.
  const owners = new Map<string, string>();
  const ownerOf = (k: string): string | undefined => {
    const mine = owners.get(k);
    if (mine !== undefined) return mine;
    const c = ctx.contextByRelativeName(k);
    return c !== undefined && typeof c.name === 'string' ? `deployed profile "${c.name}"` : undefined;
  };
  for (const p of ctx.profiles) {
    const dns = p.profile.dnsConfig;
    const rn = dns.relativeName as unknown;
    if (typeof rn === 'string') {
      const problem = dnsNameProblem(rn, false);
      if (problem !== undefined) {
        r.report(
          'RELATIVE_NAME',
          `${p.path}.dnsConfig.relativeName`,
          `relativeName ${show(rn)} ${problem}; it must be DNS labels (1–63 letters, digits, hyphens each) separated by dots, at most 253 characters`,
          'use a name like "contoso" or "api.contoso"',
        );
      }
      const k = rn.toLowerCase();
      const owner = ownerOf(k);
      if (owner !== undefined) {
        r.report(
          'RELATIVE_NAME_DUPLICATE',
          `${p.path}.dnsConfig.relativeName`,
          `relativeName "${rn}" is already used by ${owner}; the FQDN <relativeName>.<zone> must be unique (case-insensitive)`,
          'choose another relativeName',
        );
      } else owners.set(k, `profile "${String(p.profile.name)}"`);
    }
    const ttl = dns.ttl as unknown;
    if (typeof ttl === 'number' && !(isInt(ttl) && ttl >= 0 && ttl <= TTL_MAX)) {
      r.report('TTL_RANGE', `${p.path}.dnsConfig.ttl`, `ttl ${show(ttl)} is out of range: an integer 0–${TTL_MAX} seconds`, 'use e.g. 30');
    }
  }
}
