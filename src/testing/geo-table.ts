import { parseIp } from '../core/net/ip';
import type { ClientGeo, GeoLookup } from '../core/ports';
import { rangeContains, ROUTING_IP_SYNTAX, subnetRange, type IpRange } from '../core/routing/ip';

/** Keyed by an address or CIDR prefix (`192.0.2.0/24`, `2001:db8::/32`, `198.51.100.7`). */
export type PrefixTable<T> = Record<string, T>;

export interface GeoTableOptions {
  /** Address / prefix → location. The longest matching prefix wins. */
  locations?: PrefixTable<ClientGeo>;
  /**
   * Latency rows: key = address/prefix, subdivision code, country code or `*` (tried in that order);
   * value = region (canonical name) → milliseconds.
   */
  latency?: Record<string, Record<string, number>>;
}

interface PrefixRow<T> {
  range: IpRange;
  size: bigint;
  value: T;
}

function compile<T>(table: PrefixTable<T>): PrefixRow<T>[] {
  const rows: PrefixRow<T>[] = [];
  for (const [key, value] of Object.entries(table)) {
    const [first, scope] = key.split('/');
    const range = subnetRange(scope === undefined ? { first: first! } : { first: first!, scope: Number(scope) });
    if (!range) throw new Error(`geo table: '${key}' is not an address or CIDR prefix`);
    rows.push({ range, size: range.hi - range.lo, value });
  }
  return rows.sort((a, b) => (a.size < b.size ? -1 : a.size > b.size ? 1 : 0));
}

function longest<T>(rows: PrefixRow<T>[], address: string): T | undefined {
  const ip = parseIp(address, ROUTING_IP_SYNTAX);
  if (!ip) return undefined;
  for (const r of rows) if (rangeContains(r.range, ip)) return r.value;
  return undefined;
}

/** A table-driven GeoLookup for tests: exact, readable, no database. */
export class TableGeo implements GeoLookup {
  private readonly locations: PrefixRow<ClientGeo>[];
  private readonly latencyByPrefix: PrefixRow<Record<string, number>>[];
  private readonly latencyByCode: Map<string, Record<string, number>>;

  constructor(opts: GeoTableOptions = {}) {
    this.locations = compile(opts.locations ?? {});
    const prefixRows: PrefixTable<Record<string, number>> = {};
    this.latencyByCode = new Map();
    for (const [k, v] of Object.entries(opts.latency ?? {})) {
      if (parseIp(k.split('/')[0]!, ROUTING_IP_SYNTAX)) prefixRows[k] = v;
      else this.latencyByCode.set(k.toUpperCase(), v);
    }
    this.latencyByPrefix = compile(prefixRows);
  }

  locate(address: string): ClientGeo | undefined {
    return longest(this.locations, address);
  }

  latencyMs(address: string, geo: ClientGeo | undefined, region: string): number | undefined {
    const rows = [
      longest(this.latencyByPrefix, address),
      geo?.subdivision ? this.latencyByCode.get(geo.subdivision.toUpperCase()) : undefined,
      geo?.country ? this.latencyByCode.get(geo.country.toUpperCase()) : undefined,
      this.latencyByCode.get('*'),
    ];
    for (const row of rows) if (row && row[region] !== undefined) return row[region];
    return undefined;
  }
}
