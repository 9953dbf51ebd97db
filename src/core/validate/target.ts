/** Classification of endpoint targets and DNS name syntax (RFC 1123 host names). */
import { parseIp, type IpAddress } from './ip';

export type TargetKind = 'ipv4' | 'ipv6' | 'fqdn';

export interface ClassifiedTarget {
  kind: TargetKind;
  ip?: IpAddress;
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Why `name` is not a DNS host name (dot-separated RFC 1123 labels), or undefined when it is one. */
export function dnsNameProblem(name: string, allowTrailingDot: boolean): string | undefined {
  if (name === '') return 'is empty';
  let n = name;
  if (allowTrailingDot && n.endsWith('.')) n = n.slice(0, -1);
  if (n.length > 253) return `is ${n.length} characters long (at most 253)`;
  const labels = n.split('.');
  for (const l of labels) {
    if (l === '') return 'has an empty label (two dots in a row, or a leading or trailing dot)';
    if (l.length > 63) return `has the label "${l.slice(0, 20)}…" of ${l.length} characters (at most 63)`;
    if (!LABEL.test(l)) return `has the label "${l}": labels use letters, digits and hyphens, and neither start nor end with a hyphen`;
  }
  return undefined;
}

/** Why `s` is not a valid target, or undefined. */
export function targetProblem(s: string): string | undefined {
  if (s.trim() !== s) return 'has leading or trailing whitespace';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return 'is a URL; give the host name only (no scheme or path)';
  if (s.includes(':')) {
    if (parseIp(s)) return undefined;
    if (/^[^:]+:\d+$/.test(s)) return 'has a port; a target is a host name or address only (the probe port is monitorConfig.port)';
    return 'is not a valid IPv6 address';
  }
  if (/^[0-9.]+$/.test(s)) return parseIp(s) ? undefined : 'is not a valid IPv4 address';
  if (s.includes('/')) return 'contains "/"; give the host name only';
  const p = dnsNameProblem(s, true);
  return p === undefined ? undefined : `is not a valid FQDN: it ${p}`;
}

/** IPv4 literal, IPv6 literal or FQDN; undefined when the target is not valid. */
export function classifyTarget(s: string): ClassifiedTarget | undefined {
  if (targetProblem(s) !== undefined) return undefined;
  const ip = parseIp(s);
  if (ip) return { kind: ip.family === 4 ? 'ipv4' : 'ipv6', ip };
  return { kind: 'fqdn' };
}
