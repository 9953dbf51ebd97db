/**
 * The routing engine's view of IP addresses (endpoint record kinds, Subnet routing, subnet overrides):
 * the routing syntax for the shared parser of ../net/ip (`parseIp(s, ROUTING_IP_SYNTAX)`), and the range
 * an endpoint subnet entry covers.
 */
import type { EndpointSubnet } from '../model/types';
import { bitsOf, ipFamilyOf, parseIp, prefixRange, type IpAddress, type IpRange, type IpSyntax } from '../net/ip';

export { rangeContains, type IpFamily, type IpRange } from '../net/ip';
export type ParsedIp = IpAddress;

/**
 * Client addresses arrive as text from the DNS server (ECS or the source address): surrounding white
 * space and an IPv6 zone are ignored, IPv4 octets may have leading zeros (read as decimal), and an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address, so that it matches IPv4 ranges, as
 * the address really is an IPv4 client.
 */
export const ROUTING_IP_SYNTAX: IpSyntax = Object.freeze({ trim: true, zone: true, leadingZeros: true, unmap: true });

export const isIPv4 = (s: string): boolean => ipFamilyOf(s, ROUTING_IP_SYNTAX) === 4;

export const isIPv6 = (s: string): boolean => ipFamilyOf(s, ROUTING_IP_SYNTAX) === 6;

/**
 * The range an endpoint subnet entry covers: CIDR (`first` + `scope`, the network is taken from `first`),
 * `first`–`last`, or the single address `first`. Undefined when malformed (validation reports it).
 */
export function subnetRange(sn: EndpointSubnet): IpRange | undefined {
  const first = parseIp(String(sn.first ?? ''), ROUTING_IP_SYNTAX);
  if (!first) return undefined;
  if (sn.last !== undefined && sn.last !== null && String(sn.last) !== '') {
    const last = parseIp(String(sn.last), ROUTING_IP_SYNTAX);
    if (!last || last.family !== first.family || last.value < first.value) return undefined;
    return { family: first.family, lo: first.value, hi: last.value };
  }
  if (sn.scope !== undefined && sn.scope !== null) {
    const scope = Math.trunc(Number(sn.scope));
    if (!(scope >= 0 && scope <= bitsOf(first.family))) return undefined;
    return prefixRange(first, scope);
  }
  return { family: first.family, lo: first.value, hi: first.value };
}
