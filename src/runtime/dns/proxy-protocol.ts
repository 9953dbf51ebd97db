/**
 * PROXY protocol version 2 (HAProxy's spec, "The PROXY protocol", section 2.2) for a DNS front such as
 * dnsdist (`newServer{…, useProxyProtocol=true}`): the front puts a binary header before each UDP datagram,
 * and once at the start of each TCP connection, that carries the real client's address. With
 * `--proxy-protocol-from CIDR[,CIDR]` the header is mandatory from those addresses (a datagram or connection
 * from them without a valid one is dropped) and refused from every other address, so a client cannot claim
 * another's address by writing a header itself. The carried source is then the client for everything after:
 * Subnet, Geographic and Performance routing, RRL, cookies, Traffic View and logs.
 *
 * Only version 2 (binary) is read: it is what dnsdist, PowerDNS and HAProxy send for DNS, and it frames
 * UDP. TLVs are skipped. A LOCAL header (the front's own health check), or an address family other than
 * IPv4/IPv6 (UNSPEC, UNIX), means "use the connection's own address", as the spec says.
 */
import { formatIPv4, formatIPv6Groups, type IpPrefix, parseIp, parsePrefix, unmapIpv4 } from '../../core/net/ip';

/** The 12 octets every v2 header starts with. */
export const PROXY_V2_SIGNATURE: Buffer = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** A longer header is refused (dnsdist's own TLVs are a few dozen octets; the spec allows 64 KiB). */
export const PROXY_V2_MAX_HEADER = 16 + 1024;

export type ProxyHeader =
  /** The carried client (`PROXY` over IPv4 or IPv6); `length` octets of the input were the header. */
  | { kind: 'proxy'; source: string; sourcePort: number; destination: string; destinationPort: number; length: number }
  /** `LOCAL`, or a family with no IP address: the connection's own address stands. */
  | { kind: 'local'; length: number };

export type ProxyParse = ProxyHeader | { kind: 'incomplete' } | { kind: 'invalid'; reason: string };

/** True when `buf` starts with the v2 signature (or, shorter than it, with its first octets). */
export function startsWithProxySignature(buf: Buffer): boolean {
  const n = Math.min(buf.length, PROXY_V2_SIGNATURE.length);
  if (n === 0) return false;
  return buf.compare(PROXY_V2_SIGNATURE, 0, n, 0, n) === 0;
}

/** Reads a v2 header at the start of `buf`: the header, or that more octets are needed, or why it is not one. */
export function parseProxyV2(buf: Buffer): ProxyParse {
  if (!startsWithProxySignature(buf)) return { kind: 'invalid', reason: 'no PROXY v2 signature' };
  if (buf.length < 16) return { kind: 'incomplete' };
  const version = buf[12]! >> 4;
  const command = buf[12]! & 0x0f;
  if (version !== 2) return { kind: 'invalid', reason: `PROXY protocol version ${version} (only 2 is read)` };
  if (command > 1) return { kind: 'invalid', reason: `unknown PROXY v2 command ${command}` };
  const length = 16 + buf.readUInt16BE(14);
  if (length > PROXY_V2_MAX_HEADER) return { kind: 'invalid', reason: `PROXY v2 header of ${length} octets (over ${PROXY_V2_MAX_HEADER})` };
  if (buf.length < length) return { kind: 'incomplete' };
  const family = buf[13]! >> 4;
  if (command === 0 || family === 0 || family === 3) return { kind: 'local', length };
  if (family === 1) {
    if (length < 16 + 12) return { kind: 'invalid', reason: 'PROXY v2 IPv4 header shorter than its addresses' };
    return {
      kind: 'proxy',
      source: `${buf[16]}.${buf[17]}.${buf[18]}.${buf[19]}`,
      destination: `${buf[20]}.${buf[21]}.${buf[22]}.${buf[23]}`,
      sourcePort: buf.readUInt16BE(24),
      destinationPort: buf.readUInt16BE(26),
      length,
    };
  }
  if (family === 2) {
    if (length < 16 + 36) return { kind: 'invalid', reason: 'PROXY v2 IPv6 header shorter than its addresses' };
    const v6 = (at: number): string => {
      const groups: number[] = [];
      for (let i = 0; i < 8; i++) groups.push(buf.readUInt16BE(at + 2 * i));
      // As the sockets show addresses: an IPv4-mapped one as its IPv4 address.
      if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return formatIPv4(((groups[6]! << 16) | groups[7]!) >>> 0);
      return formatIPv6Groups(groups);
    };
    return {
      kind: 'proxy',
      source: v6(16),
      destination: v6(32),
      sourcePort: buf.readUInt16BE(48),
      destinationPort: buf.readUInt16BE(50),
      length,
    };
  }
  return { kind: 'invalid', reason: `unknown PROXY v2 address family ${family}` };
}

/** Builds a v2 `PROXY` header (the tests' and benchmarks' front; tmkit itself only reads them). */
export function encodeProxyV2(p: {
  source: string;
  sourcePort: number;
  destination: string;
  destinationPort: number;
  transport: 'tcp' | 'udp';
}): Buffer {
  const src = parseIp(p.source);
  const dst = parseIp(p.destination);
  if (!src || !dst || src.family !== dst.family)
    throw new TypeError(`PROXY v2: ${p.source} and ${p.destination} must be IP addresses of one family`);
  const v4 = src.family === 4;
  const addrLen = v4 ? 12 : 36;
  const out = Buffer.alloc(16 + addrLen);
  PROXY_V2_SIGNATURE.copy(out, 0);
  out[12] = 0x21;
  out[13] = (v4 ? 0x10 : 0x20) | (p.transport === 'tcp' ? 1 : 2);
  out.writeUInt16BE(addrLen, 14);
  const bytes = v4 ? 4 : 16;
  const put = (value: bigint, at: number): void => {
    for (let i = 0; i < bytes; i++) out[at + i] = Number((value >> BigInt(8 * (bytes - 1 - i))) & 0xffn);
  };
  put(src.value, 16);
  put(dst.value, 16 + bytes);
  out.writeUInt16BE(p.sourcePort, 16 + 2 * bytes);
  out.writeUInt16BE(p.destinationPort, 18 + 2 * bytes);
  return out;
}

/**
 * The addresses allowed (and required) to send PROXY headers (`--proxy-protocol-from`), matched per
 * datagram and per connection; the verdict per address is remembered (a bounded map: a spoofed flood of
 * source addresses clears it, it does not grow it).
 */
export class ProxySources {
  private readonly prefixes: IpPrefix[];
  private readonly seen = new Map<string, boolean>();

  /** Throws a RangeError naming the entry when one is not an address or CIDR (host bits set included). */
  constructor(cidrs: readonly string[]) {
    this.prefixes = cidrs.map((text, i) => {
      const parsed = parsePrefix(text.trim());
      if ('error' in parsed) throw new RangeError(`proxyProtocolFrom[${i}] ${JSON.stringify(text)} is not a CIDR: ${parsed.error}`);
      return parsed;
    });
  }

  get size(): number {
    return this.prefixes.length;
  }

  /** True when `address` (as a socket reports it) is one of the fronts. */
  has(address: string): boolean {
    const known = this.seen.get(address);
    if (known !== undefined) return known;
    const ip = parseIp(address);
    let hit = false;
    if (ip) {
      const plain = unmapIpv4(ip);
      hit = this.prefixes.some((p) => {
        if (p.family !== plain.family) return false;
        const shift = BigInt((p.family === 4 ? 32 : 128) - p.length);
        return plain.value >> shift === p.value >> shift;
      });
    }
    if (this.seen.size >= 4096) this.seen.clear();
    this.seen.set(address, hit);
    return hit;
  }
}
