/**
 * The authoritative zone's own data: what tmkit serves about the zone itself, whatever the profiles say.
 * The apex, its SOA (RFC 1035 §3.3.13) and NS names, and the addresses of name servers inside the zone
 * (glue at the apex, authoritative A/AAAA at their own names). `defineZone()` validates and normalizes a
 * configuration once and precomputes the records `lookup()` hands out; the SOA serial is data here, the
 * runtime owns its state (`withSerial(zone, nextSerial(zone.soa.serial))` on every snapshot swap).
 */
import { problem, TmkitError, type Diagnostic } from '../diagnostics';
import { ipFamilyOf } from '../net/ip';
import type { AnswerRecord } from '../routing/types';

/** The SOA fields and the TTL of the zone's own records. Times in seconds. */
export interface SoaConfig {
  /** Primary name server. Default `ns1.<zone>`. */
  mname: string;
  /** Responsible mailbox in domain-name form (`hostmaster.tm.internal`). Default `hostmaster.<zone>`. */
  rname: string;
  /** The serial served now. The runtime picks the first one (the Unix time) and bumps it per snapshot. */
  serial: number;
  /** Default 3600. */
  refresh: number;
  /** Default 600. */
  retry: number;
  /** Default 86400. */
  expire: number;
  /** SOA MINIMUM, the negative-caching TTL cap (RFC 2308 §4). Default 30. */
  minimum: number;
  /** TTL of the apex SOA and NS records and of the in-zone name servers' A/AAAA. Default 300. */
  ttl: number;
}

export interface ZoneConfig {
  /** The authoritative zone (`tm.internal`), any case, with or without a trailing dot. */
  apex: string;
  /** `serial` is required: the core has no clock (the runtime starts it at the Unix time). */
  soa: Partial<SoaConfig> & { serial: number };
  /** Apex NS names. Default `[soa.mname]`. */
  nsNames?: readonly string[];
  /**
   * Addresses of name servers inside the zone (`ns1.tm.internal` → `['192.0.2.53']`): answered
   * authoritatively at those names and added as glue to the apex NS answer. Only names below the apex
   * may have addresses; an empty list is the same as no entry.
   */
  nsAddresses?: Readonly<Record<string, readonly string[]>>;
}

/** SOA RDATA (RFC 1035 §3.3.13), field names as dns-packet spells them: the SOA fields without the TTL. */
export type SoaData = Omit<SoaConfig, 'ttl'>;

/** A resource record the zone answers with (class IN). Profile answers are routing's AnswerRecord. */
export type ZoneRecord =
  | AnswerRecord
  | { type: 'NS'; name: string; ttl: number; data: string }
  | { type: 'SOA'; name: string; ttl: number; data: SoaData };

/** A validated zone with its records precomputed. Treat as immutable; `withSerial()` makes the next one. */
export interface Zone {
  /** Lower case, no trailing dot. */
  readonly apex: string;
  /** `.${apex}`: a name is below the apex when it ends with this. */
  readonly suffix: string;
  readonly soa: Readonly<SoaData>;
  /** TTL of the apex SOA/NS and of the name servers' addresses. */
  readonly ttl: number;
  /** Apex NS names as configured (case kept, no trailing dot). */
  readonly nsNames: readonly string[];
  /** In-zone name server (lower case) → its A/AAAA records. */
  readonly nameServers: ReadonlyMap<string, readonly ZoneRecord[]>;
  /**
   * Names strictly between the apex and an in-zone name server (`a.tm.internal` for `ns1.a.tm.internal`):
   * they own no records but exist (empty non-terminals, RFC 8020), so they answer NODATA, never NXDOMAIN.
   */
  readonly nonTerminals: ReadonlySet<string>;
  /** The apex SOA with the zone TTL (answer section). */
  readonly soaRecord: ZoneRecord;
  /** The SOA of negative answers, TTL `negativeTtl()` (authority section, RFC 2308 §3). */
  readonly negativeSoa: ZoneRecord;
  /** `[negativeSoa]`: the authority section of every NXDOMAIN and NODATA answer. */
  readonly negativeAuthority: readonly ZoneRecord[];
  readonly nsRecords: readonly ZoneRecord[];
  /** A/AAAA of the apex NS names that are inside the zone, in NS order (additional section). */
  readonly glue: readonly ZoneRecord[];
}

/** One thing wrong with a zone configuration (a Diagnostic): where, which rule, and what to do instead. */
export type ZoneProblem = Diagnostic;

export const SOA_DEFAULTS = { refresh: 3600, retry: 600, expire: 86400, minimum: 30, ttl: 300 } as const;

const UINT32_MAX = 0xffffffff;
/** RFC 2181 §8: a TTL is 0 .. 2^31 - 1. */
const TTL_MAX = 0x7fffffff;
const LABEL = /^[a-z0-9_-]{1,63}$/i;

/** The name lower-cased without the trailing dot. */
function canonical(name: string): string {
  return (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
}

function nameProblem(name: string): string | undefined {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  if (n === '') return 'is empty';
  if (n.length > 253) return `is ${n.length} characters long (at most 253)`;
  const bad = n.split('.').find((l) => !LABEL.test(l));
  if (bad !== undefined)
    return bad === '' ? 'has an empty label (two dots in a row)' : `has the label "${bad}" (a label is 1-63 letters, digits, '-' or '_')`;
  return undefined;
}

function isBelow(name: string, apex: string): boolean {
  return name.endsWith(`.${apex}`);
}

/** Every problem with a zone configuration (empty when `defineZone()` accepts it). */
export function zoneProblems(config: ZoneConfig): ZoneProblem[] {
  const out: ZoneProblem[] = [];
  const apex = canonical(config.apex);
  if (apex === '') {
    out.push(
      problem('DNS_ZONE_EMPTY', 'the zone must not be empty: give the domain tmkit is authoritative for (e.g. --zone tm.internal)', {
        path: 'apex',
      }),
    );
  } else {
    const p = nameProblem(apex);
    if (p) out.push(problem('DNS_ZONE_NAME', `the zone "${config.apex}" ${p}: give a domain name such as tm.internal`, { path: 'apex' }));
  }
  const soa = config.soa;
  for (const f of ['mname', 'rname'] as const) {
    const v = soa[f];
    if (v === undefined) continue;
    const p = nameProblem(v);
    if (p)
      out.push(
        problem(
          'DNS_ZONE_SOA',
          `"${v}" ${p}: ` +
            (f === 'rname'
              ? 'write the mailbox in domain form (hostmaster@example.com is hostmaster.example.com)'
              : "give the primary name server's host name"),
          { path: `soa.${f}` },
        ),
      );
  }
  const ints: Array<[keyof SoaConfig, number]> = [
    ['serial', UINT32_MAX],
    ['refresh', UINT32_MAX],
    ['retry', UINT32_MAX],
    ['expire', UINT32_MAX],
    ['minimum', UINT32_MAX],
    ['ttl', TTL_MAX],
  ];
  for (const [f, max] of ints) {
    const v = soa[f];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) {
      out.push(
        problem(
          'DNS_ZONE_SOA',
          `${JSON.stringify(v)} is not a whole number from 0 to ${max}${f === 'ttl' ? ' (RFC 2181 §8)' : ' (RFC 1035 §3.3.13)'}`,
          { path: `soa.${f}` },
        ),
      );
    }
  }
  (config.nsNames ?? []).forEach((n, i) => {
    const p = nameProblem(n);
    if (p)
      out.push(
        problem('DNS_ZONE_NAME', `the name server "${n}" ${p}: give a host name such as ns1.${apex || 'tm.internal'}`, {
          path: `nsNames[${i}]`,
        }),
      );
  });
  for (const [name, addrs] of Object.entries(config.nsAddresses ?? {})) {
    if (addrs.length === 0) continue;
    const path = `nsAddresses[${JSON.stringify(name)}]`;
    const n = canonical(name);
    const p = nameProblem(name);
    if (p) {
      out.push(problem('DNS_ZONE_NAME', `the name server "${name}" ${p}: give a host name such as ns1.${apex || 'tm.internal'}`, { path }));
    } else if (apex !== '' && !isBelow(n, apex)) {
      out.push(
        problem(
          'DNS_ZONE_NS_ADDRESS',
          n === apex
            ? `the zone apex ${apex} cannot have addresses (it answers SOA and NS only): name a server below it, such as ns1.${apex}`
            : `${name} is outside the zone ${apex}, so tmkit is not authoritative for its addresses ` +
                `and serves no glue for it: drop the addresses, or name a server below ${apex}`,
          { path },
        ),
      );
    }
    addrs.forEach((a, i) => {
      if (ipFamilyOf(a) === 0)
        out.push(
          problem(
            'DNS_ZONE_NS_ADDRESS',
            `"${a}" is not an IPv4 or IPv6 address: give an address literal such as 192.0.2.53 or 2001:db8::53`,
            { path: `${path}[${i}]` },
          ),
        );
    });
  }
  return out;
}

/** Thrown by `defineZone()`: every problem at once, each with its path. */
export class ZoneConfigError extends TmkitError {
  constructor(readonly problems: ZoneProblem[]) {
    super(
      'DNS_ZONE_INVALID',
      `dns: the zone configuration is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
    );
  }
}

/** Validates and normalizes a zone configuration, with the defaults of docs/dns.md. Throws ZoneConfigError. */
export function defineZone(config: ZoneConfig): Zone {
  const problems = zoneProblems(config);
  if (problems.length > 0) throw new ZoneConfigError(problems);
  const apex = canonical(config.apex);
  const s = config.soa;
  const strip = (n: string): string => (n.endsWith('.') ? n.slice(0, -1) : n);
  const soa: SoaData = {
    mname: strip(s.mname ?? `ns1.${apex}`),
    rname: strip(s.rname ?? `hostmaster.${apex}`),
    serial: s.serial,
    refresh: s.refresh ?? SOA_DEFAULTS.refresh,
    retry: s.retry ?? SOA_DEFAULTS.retry,
    expire: s.expire ?? SOA_DEFAULTS.expire,
    minimum: s.minimum ?? SOA_DEFAULTS.minimum,
  };
  const ttl = s.ttl ?? SOA_DEFAULTS.ttl;
  const nsNames = config.nsNames && config.nsNames.length > 0 ? config.nsNames.map(strip) : [soa.mname];
  const nameServers = new Map<string, ZoneRecord[]>();
  for (const [name, addrs] of Object.entries(config.nsAddresses ?? {})) {
    if (addrs.length === 0) continue;
    const n = canonical(name);
    const records = nameServers.get(n) ?? [];
    for (const a of addrs)
      records.push(ipFamilyOf(a) === 6 ? { type: 'AAAA', name: n, ttl, data: a } : { type: 'A', name: n, ttl, data: a });
    nameServers.set(n, records);
  }
  const nonTerminals = new Set<string>();
  for (const n of nameServers.keys()) {
    for (let i = n.indexOf('.'); i >= 0; i = n.indexOf('.', i + 1)) {
      const parent = n.slice(i + 1);
      if (parent === apex) break;
      nonTerminals.add(parent);
    }
  }
  return withRecords({ apex, suffix: `.${apex}`, soa, ttl, nsNames, nameServers, nonTerminals });
}

type ZoneData = Pick<Zone, 'apex' | 'suffix' | 'soa' | 'ttl' | 'nsNames' | 'nameServers' | 'nonTerminals'>;

function withRecords(z: ZoneData): Zone {
  const soaRecord = (ttl: number): ZoneRecord => ({ type: 'SOA', name: z.apex, ttl, data: z.soa });
  const negativeSoa = soaRecord(negativeTtl(z));
  return {
    ...z,
    soaRecord: soaRecord(z.ttl),
    negativeSoa,
    negativeAuthority: [negativeSoa],
    nsRecords: z.nsNames.map((ns): ZoneRecord => ({ type: 'NS', name: z.apex, ttl: z.ttl, data: ns })),
    glue: z.nsNames.flatMap((ns) => z.nameServers.get(ns.toLowerCase()) ?? []),
  };
}

/** RFC 2308 §3/§5: the SOA in a negative answer has TTL min(SOA TTL, SOA MINIMUM). */
export function negativeTtl(zone: Pick<Zone, 'ttl' | 'soa'>): number {
  return Math.min(zone.ttl, zone.soa.minimum);
}

/** The next serial in RFC 1982 arithmetic (2^32 - 1 wraps to 0). */
export function nextSerial(serial: number): number {
  return (serial + 1) >>> 0;
}

/** The same zone serving another SOA serial (an unsigned 32-bit integer). */
export function withSerial(zone: Zone, serial: number): Zone {
  if (!Number.isInteger(serial) || serial < 0 || serial > UINT32_MAX) {
    throw new ZoneConfigError([
      problem('DNS_ZONE_SOA', `${serial} is not a whole number from 0 to ${UINT32_MAX} (RFC 1035 §3.3.13)`, { path: 'soa.serial' }),
    ]);
  }
  return withRecords({
    apex: zone.apex,
    suffix: zone.suffix,
    soa: { ...zone.soa, serial },
    ttl: zone.ttl,
    nsNames: zone.nsNames,
    nameServers: zone.nameServers,
    nonTerminals: zone.nonTerminals,
  });
}
