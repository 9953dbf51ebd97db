/** Classification of endpoint targets and DNS name syntax (RFC 1123 host names). */
import type { TargetKind } from '../model/types';
import { parseIp, type IpAddress } from '../net/ip';

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

/** A target classified, or the reason it is not valid, in one pass. */
export function analyzeTarget(s: string): ClassifiedTarget | { problem: string } {
  if (s.trim() !== s) return { problem: 'has leading or trailing whitespace' };
  if (s.includes(':')) {
    const ip = parseIp(s);
    if (ip) return { kind: ip.family === 4 ? 'ipv4' : 'ipv6', ip };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return { problem: 'is a URL; give the host name only (no scheme or path)' };
    if (/^[^:]+:\d+$/.test(s))
      return { problem: 'has a port; a target is a host name or address only (the probe port is monitorConfig.port)' };
    return { problem: 'is not a valid IPv6 address' };
  }
  if (/^[0-9.]+$/.test(s)) {
    const ip = parseIp(s);
    return ip ? { kind: 'ipv4', ip } : { problem: 'is not a valid IPv4 address' };
  }
  if (s.includes('/')) return { problem: 'contains "/"; give the host name only' };
  const p = dnsNameProblem(s, true);
  return p === undefined ? { kind: 'fqdn' } : { problem: `is not a valid FQDN: it ${p}` };
}

/** Why `s` is not a valid target, or undefined. */
export function targetProblem(s: string): string | undefined {
  const a = analyzeTarget(s);
  return 'problem' in a ? a.problem : undefined;
}

/** IPv4 literal, IPv6 literal or FQDN; undefined when the target is not valid. */
export function classifyTarget(s: string): ClassifiedTarget | undefined {
  const a = analyzeTarget(s);
  return 'problem' in a ? undefined : a;
}
