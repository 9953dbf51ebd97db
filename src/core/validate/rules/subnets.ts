/**
 * Subnet ranges (Subnet routing and subnet override): address syntax, scope, CIDR network address,
 * first ≤ last, no overlap anywhere in the profile (sorted sweep, O(n log n)), the fallback endpoint.
 */
import type { Ctx } from '../context';
import { bitsOf, broadcastAddress, formatIp, networkAddress, parseIp, type IpRange } from '../../net/ip';
import { isInt, isObj, show } from '../util';

/** An inclusive address range of one family. */
export type SubnetInterval = IpRange;

interface Tagged extends SubnetInterval {
  path: string;
  endpoint: string;
  text: string;
}

/**
 * The pairs (by input index) of overlapping intervals a sorted sweep finds: each interval that overlaps
 * an interval sorted before it is paired with the one reaching furthest. Exported for property tests.
 */
export function sweepOverlaps(items: readonly SubnetInterval[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const family of [4, 6] as const) {
    const idx = items.map((_, i) => i).filter((i) => items[i]!.family === family);
    idx.sort((a, b) => {
      const x = items[a]!;
      const y = items[b]!;
      return x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : x.hi < y.hi ? -1 : x.hi > y.hi ? 1 : a - b;
    });
    let cur = -1;
    for (const i of idx) {
      const it = items[i]!;
      if (cur !== -1 && it.lo <= items[cur]!.hi) out.push([i, cur]);
      if (cur === -1 || it.hi > items[cur]!.hi) cur = i;
    }
  }
  return out;
}

export function checkSubnets(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const intervals: Tagged[] = [];
    const fallbacks: string[] = [];
    for (const e of p.endpoints) {
      const subnets = e.ep.subnets as unknown;
      if (!Array.isArray(subnets)) continue;
      if (subnets.length === 0) {
        if (p.method === 'Subnet') {
          if (fallbacks.length > 0) {
            r.report(
              'SUBNET_FALLBACK_MULTIPLE',
              `${e.path}.subnets`,
              `endpoint has no subnets, so it is a fallback, but endpoint "${fallbacks[0]}" already is; a Subnet profile has at most one fallback endpoint`,
              'give this endpoint subnets, or remove the other fallback',
            );
          }
          fallbacks.push(String(e.ep.name));
        }
        continue;
      }
      if ((p.method === 'Priority' || p.method === 'Weighted' || p.method === 'MultiValue') && subnets.some(isObj)) {
        r.report(
          'SUBNETS_IGNORED',
          `${e.path}.subnets`,
          `subnets are ignored by ${p.method} routing (used by Subnet routing, and as override by Performance and Geographic)`,
          'remove subnets, or use Subnet routing',
        );
      }
      subnets.forEach((s: unknown, i) => {
        if (!isObj(s)) return;
        const sp = `${e.path}.subnets[${i}]`;
        const iv = subnetInterval(ctx, s, sp) as Tagged | undefined;
        if (iv) {
          iv.path = sp;
          iv.endpoint = String(e.ep.name);
          intervals.push(iv);
        }
      });
    }
    if (p.method === 'Subnet' && fallbacks.length === 0 && p.endpoints.length > 0) {
      r.report(
        'SUBNET_FALLBACK_MISSING',
        `${p.path}.endpoints`,
        'no endpoint is a fallback (one without subnets): clients outside every range get no answer',
        'add an endpoint with no subnets',
      );
    }
    for (const [i, j] of sweepOverlaps(intervals)) {
      const a = intervals[i]!;
      const b = intervals[j]!;
      r.report(
        'SUBNET_OVERLAP',
        a.path,
        `range ${a.text} overlaps ${b.text} of ${a.endpoint === b.endpoint ? 'the same endpoint' : `endpoint "${b.endpoint}"`}; ` +
          `subnet ranges in a profile never overlap`,
        'split or shrink the ranges so each address belongs to one range',
      );
    }
  }
}

function subnetInterval(ctx: Ctx, s: Record<string, unknown>, path: string): (SubnetInterval & { text: string }) | undefined {
  const { r } = ctx;
  const first = s.first;
  const last = s.last;
  const scope = s.scope;
  if (typeof first !== 'string') return undefined;
  const a = parseIp(first);
  if (!a) {
    r.report(
      'SUBNET_ADDRESS',
      `${path}.first`,
      `first ${show(first)} is not an IPv4 or IPv6 address`,
      'e.g. "10.1.0.0" with scope 16, or first/last "10.1.0.1"–"10.1.0.99"',
    );
  }
  let b: ReturnType<typeof parseIp>;
  if (typeof last === 'string') {
    b = parseIp(last);
    if (!b)
      r.report('SUBNET_ADDRESS', `${path}.last`, `last ${show(last)} is not an IPv4 or IPv6 address`, 'give the last address of the range');
  }
  if (last !== undefined && scope !== undefined) {
    r.report(
      'SUBNET_LAST_WITH_SCOPE',
      path,
      'a subnet gives either last (a first–last range) or scope (CIDR), not both',
      'remove last or scope',
    );
    return undefined;
  }
  if (typeof scope === 'number') {
    const max = a ? bitsOf(a.family) : 128;
    if (!(isInt(scope) && scope >= 0 && scope <= max)) {
      r.report(
        'SUBNET_SCOPE_RANGE',
        `${path}.scope`,
        `scope ${show(scope)} is out of range: an integer 0–32 for IPv4, 0–128 for IPv6`,
        `use 0–${max}`,
      );
      return undefined;
    }
    if (!a) return undefined;
    const net = networkAddress(a.value, a.family, scope);
    if (net !== a.value) {
      r.report(
        'SUBNET_NOT_NETWORK_ADDRESS',
        `${path}.first`,
        `first ${first} is not the network address of a /${scope} prefix`,
        `use "${formatIp({ family: a.family, value: net })}" with scope ${scope}`,
      );
      return undefined;
    }
    return { family: a.family, lo: net, hi: broadcastAddress(a.value, a.family, scope), text: `${first}/${scope}` };
  }
  if (!a) return undefined;
  if (typeof last === 'string') {
    if (!b) return undefined;
    if (a.family !== b.family) {
      r.report(
        'SUBNET_FAMILY_MISMATCH',
        `${path}.last`,
        `first ${first} is IPv${a.family} but last ${last} is IPv${b.family}`,
        'use two addresses of the same family',
      );
      return undefined;
    }
    if (a.value > b.value) {
      r.report('SUBNET_RANGE_ORDER', path, `first ${first} is after last ${last}; a range needs first ≤ last`, 'swap first and last');
      return undefined;
    }
    return { family: a.family, lo: a.value, hi: b.value, text: `${first}–${last}` };
  }
  if (last !== undefined) return undefined;
  return { family: a.family, lo: a.value, hi: a.value, text: first };
}
