/**
 * lookup(): what the authoritative server answers to one question, as sections and an rcode, for every
 * name and type (CoreDNS's `Zone.Lookup`, plugin/file/lookup.go): pure, no packets. The DNS responder
 * parses, caches, samples with its RNG and encodes whatever this returns; nothing about which records go
 * where is decided there.
 *
 *   question                                   | rcode    | AA | answer        | authority | additional
 *   -------------------------------------------+----------+----+---------------+-----------+-----------
 *   class other than IN / ANY                  | REFUSED  | no |               |           |
 *   outside the zone                           | REFUSED  | no |               |           |
 *   AXFR / IXFR (no zone transfers)            | REFUSED  | no |               |           |
 *   apex SOA                                   | NOERROR  | yes| SOA           |           |
 *   apex NS                                    | NOERROR  | yes| NS...         |           | glue
 *   apex ANY                                   | NOERROR  | yes| SOA, NS...    |           | glue
 *   apex, other types                          | NOERROR  | yes|               | SOA (neg) |
 *   in-zone NS name, A / AAAA / ANY            | NOERROR  | yes| its A / AAAA  |           |
 *   in-zone NS name, other types (or no fit)   | NOERROR  | yes|               | SOA (neg) |
 *   between the apex and an in-zone NS name    | NOERROR  | yes|               | SOA (neg) |  (empty non-terminal)
 *   anything else: routing (`resolve()`):
 *     a profile's answer                       | NOERROR  | yes| its records   |           |
 *     NODATA (type mismatch, no Geographic or  | NOERROR  | yes|               | SOA (neg) |
 *       Subnet match, zero endpoints, an empty |          |    |               |           |
 *       non-terminal above profile names)      |          |    |               |           |
 *     NXDOMAIN (no such name, disabled profile)| NXDOMAIN | yes|               | SOA (neg) |
 *
 * "SOA (neg)" is the apex SOA with TTL min(SOA TTL, MINIMUM) (RFC 2308 §3). Routing may answer several
 * outcomes with probabilities (Weighted, MultiValue): each is returned with its sections, the caller draws
 * one. Checks apply top to bottom: an in-zone NS name answers as a name server even if a profile has the
 * same name.
 */
import { resolve as resolveRouting } from '../routing/resolve';
import type { ExplanationStep, RoutingQuery, RoutingResolution, RoutingSnapshot } from '../routing/types';
import type { Zone, ZoneRecord } from './zone';

export interface ZoneQuestion {
  /** As received: any case, with or without the trailing dot. */
  name: string;
  /** Type mnemonic (`A`, `NS`, `AXFR`, ...; any case). Unknown mnemonics are answered as "other types". */
  type: string;
  /** Class mnemonic; default `IN`. `IN` and `ANY` are answered, every other class is REFUSED. */
  class?: string;
  /** The address routing uses: the ECS address when present, else the source address. */
  clientAddress: string;
  /** The ECS source prefix length when the query carried EDNS Client Subnet. */
  ecsSourcePrefix?: number;
}

/** One possible reply (one for everything but random routing) and its probability. */
export interface ZoneOutcome {
  probability: number;
  answer: readonly ZoneRecord[];
  authority: readonly ZoneRecord[];
  additional: readonly ZoneRecord[];
  /** Leaf endpoints answered (`profile/endpoint` paths through nesting); empty outside routing answers. */
  endpoints: readonly string[];
  /** Routing's trail to this outcome (`tmkit resolve`'s steps); empty outside routing answers. */
  explanation: readonly ExplanationStep[];
}

/** What decided the answer. */
export type ZoneMatch = 'class' | 'outside-zone' | 'transfer' | 'apex' | 'name-server' | 'name-server-ancestor' | 'routing';

export interface ZoneAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN' | 'REFUSED';
  /** Authoritative Answer: set for everything but REFUSED (we are not authoritative for what we refuse). */
  aa: boolean;
  /** At least one; probabilities sum to 1. Treat as read-only (shared with later calls). */
  outcomes: readonly ZoneOutcome[];
  /** The outcomes depend on the client address (Geographic, Performance, Subnet, a subnet override). */
  clientDependent: boolean;
  /** From routing: how much of the ECS address the answer depended on (when the question had ECS). */
  ecsScopePrefix?: number;
  /** The top-level profile that matched the name, if any. */
  profile?: string;
  match: ZoneMatch;
}

/** Routing for names that are neither the apex nor a name server: `resolve()` or a stand-in with its contract. */
export type RouteFn = (snapshot: RoutingSnapshot, query: RoutingQuery) => RoutingResolution;

// Shared, never mutated. Not frozen, and every answer and outcome is built by the two functions below with
// the same fields in the same order: one object shape each keeps the responder's property reads monomorphic.
const NONE: readonly ZoneRecord[] = [];
const NO_ENDPOINTS: readonly string[] = [];
const NO_STEPS: readonly ExplanationStep[] = [];

function outcome(
  probability: number,
  answer: readonly ZoneRecord[],
  authority: readonly ZoneRecord[],
  additional: readonly ZoneRecord[],
  endpoints: readonly string[],
  explanation: readonly ExplanationStep[] = NO_STEPS,
): ZoneOutcome {
  return { probability, answer, authority, additional, endpoints, explanation };
}

function reply(
  rcode: ZoneAnswer['rcode'],
  match: ZoneMatch,
  outcomes: readonly ZoneOutcome[],
  clientDependent = false,
  ecsScopePrefix?: number,
  profile?: string,
): ZoneAnswer {
  return { rcode, aa: rcode !== 'REFUSED', outcomes, clientDependent, ecsScopePrefix, profile, match };
}

const NO_RECORDS_OUTCOMES: readonly ZoneOutcome[] = [outcome(1, NONE, NONE, NONE, NO_ENDPOINTS)];
const REFUSED_CLASS = reply('REFUSED', 'class', NO_RECORDS_OUTCOMES);
const REFUSED_OUTSIDE = reply('REFUSED', 'outside-zone', NO_RECORDS_OUTCOMES);
const REFUSED_TRANSFER = reply('REFUSED', 'transfer', NO_RECORDS_OUTCOMES);

function upper(s: string): string {
  // The responder passes upper-case mnemonics: skip the copy then.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) return s.toUpperCase();
  }
  return s;
}

function canonicalName(name: string): string {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  for (let i = 0; i < n.length; i++) {
    const c = n.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return n.toLowerCase();
  }
  return n;
}

function one(
  match: ZoneMatch,
  answer: readonly ZoneRecord[],
  authority: readonly ZoneRecord[],
  additional: readonly ZoneRecord[] = NONE,
): ZoneAnswer {
  return reply('NOERROR', match, [outcome(1, answer, authority, additional, NO_ENDPOINTS)]);
}

function apexAnswer(zone: Zone, type: string): ZoneAnswer {
  switch (type) {
    case 'SOA':
      return one('apex', [zone.soaRecord], NONE);
    case 'NS':
      return one('apex', zone.nsRecords, NONE, zone.glue);
    case 'ANY':
      return one('apex', [zone.soaRecord, ...zone.nsRecords], NONE, zone.glue);
    default:
      return one('apex', NONE, zone.negativeAuthority);
  }
}

function nameServerAnswer(zone: Zone, records: readonly ZoneRecord[], type: string): ZoneAnswer {
  const fit = type === 'ANY' ? records : type === 'A' || type === 'AAAA' ? records.filter((r) => r.type === type) : NONE;
  return fit.length > 0 ? one('name-server', fit, NONE) : one('name-server', NONE, zone.negativeAuthority);
}

/**
 * The reply to `question` from `zone` with the routing state `snapshot`: rcode, AA and, per outcome, the
 * answer, authority and additional sections. `route` answers the names that are not the zone's own
 * (default: the routing engine's `resolve()`).
 */
export function lookup(zone: Zone, snapshot: RoutingSnapshot, question: ZoneQuestion, route: RouteFn = resolveRouting): ZoneAnswer {
  const cls = question.class === undefined ? 'IN' : upper(question.class);
  if (cls !== 'IN' && cls !== 'ANY') return REFUSED_CLASS;
  const name = canonicalName(question.name);
  if (name !== zone.apex && !name.endsWith(zone.suffix)) return REFUSED_OUTSIDE;
  const type = upper(question.type);
  if (type === 'AXFR' || type === 'IXFR') return REFUSED_TRANSFER;
  if (name === zone.apex) return apexAnswer(zone, type);
  const ns = zone.nameServers.get(name);
  if (ns !== undefined) return nameServerAnswer(zone, ns, type);

  // The question is a RoutingQuery already when its name and type are canonical (as the responder sends them).
  let query: RoutingQuery = question;
  if (name !== question.name || type !== question.type) {
    query = { name, type, clientAddress: question.clientAddress };
    if (question.ecsSourcePrefix !== undefined) query.ecsSourcePrefix = question.ecsSourcePrefix;
  }
  const res = route(snapshot, query);
  if (res.rcode === 'REFUSED') return REFUSED_OUTSIDE; // the snapshot is for another zone
  let rcode: ZoneAnswer['rcode'] = res.rcode;
  let match: ZoneMatch = 'routing';
  let outcomes: ZoneOutcome[];
  if (rcode === 'NXDOMAIN' || res.outcomes.length === 0) {
    // A name with a name server below it exists (RFC 8020), whatever routing says about profiles.
    if (rcode === 'NXDOMAIN' && zone.nonTerminals.has(name)) {
      rcode = 'NOERROR';
      match = 'name-server-ancestor';
    }
    outcomes = [outcome(1, NONE, zone.negativeAuthority, NONE, NO_ENDPOINTS, res.explanation)];
  } else {
    const ros = res.outcomes;
    outcomes = new Array<ZoneOutcome>(ros.length);
    for (let i = 0; i < ros.length; i++) {
      const o = ros[i]!;
      outcomes[i] = outcome(
        o.probability,
        o.records,
        o.records.length === 0 ? zone.negativeAuthority : NONE,
        NONE,
        o.endpoints,
        o.explanation ?? res.explanation,
      );
    }
  }
  return reply(rcode, match, outcomes, res.clientDependent, res.ecsScopePrefix, res.profile);
}
