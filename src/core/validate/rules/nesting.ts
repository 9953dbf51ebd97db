/**
 * Nested profiles: the child exists (document or deployed context), no cycles (strongly connected
 * components, Tarjan, iterative), depth ≤ 10 profiles, MultiValue never a parent, MultiValue children
 * have both address families, MinChildEndpoints(IPv4/IPv6) reachable.
 *
 * Depth counts profiles on the longest chain starting at a profile (a profile without nested endpoints
 * has depth 1), so "up to 10 levels" admits a top-level profile and 9 nested levels below it — the
 * stricter reading of Azure's limit.
 */
import { childProfileName } from '../../model/names';
import type { Profile } from '../../model/types';
import { endpointTypeOf, lowerName, targetOf, type Ctx } from '../context';
import { has, isInt, show } from '../util';

export const MAX_NESTING_DEPTH = 10;
const PROFILE_ID = /\/trafficmanagerprofiles\/[^/]+\/?$/i;

interface Edge {
  to: number;
  path?: string;
}

interface Counts {
  total: number;
  v4: number;
  v6: number;
}

function countFamilies(p: Profile): Counts {
  let v4 = 0;
  let v6 = 0;
  const eps = Array.isArray(p.endpoints) ? p.endpoints : [];
  for (const e of eps) {
    if (typeof e !== 'object' || e === null) continue;
    const t = targetOf(e);
    if (t?.kind === 'ipv4') v4++;
    else if (t?.kind === 'ipv6') v6++;
  }
  return { total: eps.length, v4, v6 };
}

export function checkNesting(ctx: Ctx): void {
  const { r } = ctx;
  // Graph nodes: the document's profiles (in `known` order) and every profile reachable from them through
  // nested endpoints; edges: nested endpoints. Cycles through a document profile, and the depth below it,
  // only involve profiles it reaches, so the deployed context costs only what the document references.
  const nodes: Profile[] = [];
  const id = new Map<Profile, number>();
  const adj: Edge[][] = [];
  const node = (p: Profile): number => {
    let i = id.get(p);
    if (i === undefined) {
      i = nodes.length;
      nodes.push(p);
      id.set(p, i);
      adj.push([]);
    }
    return i;
  };
  for (const p of ctx.profiles) {
    const k = lowerName(p.profile);
    if (k !== undefined && ctx.known(k) === p.profile) node(p.profile);
  }

  const childKey = (rid: string): string => childProfileName(rid).toLowerCase();
  // Each child's endpoints by address family, counted once per validation run.
  const counts = new Map<Profile, Counts>();
  const familyCounts = (p: Profile): Counts => {
    let c = counts.get(p);
    if (c === undefined) {
      c = countFamilies(p);
      counts.set(p, c);
    }
    return c;
  };

  for (const p of ctx.profiles) {
    const self = id.get(p.profile);
    for (const e of p.endpoints) {
      if (e.type !== 'nestedEndpoints') continue;
      if (p.method === 'MultiValue') {
        r.report(
          'NESTED_MULTIVALUE_PARENT',
          e.path,
          'a MultiValue profile cannot be the parent of a nested profile',
          "list the child's IP endpoints directly, or use another routing method",
        );
      }
      const rid = e.ep.targetResourceId as unknown;
      if (typeof rid !== 'string') continue;
      if (rid.includes('/') && !PROFILE_ID.test(rid.trim())) {
        r.report(
          'NESTED_TARGET_INVALID',
          `${e.path}.targetResourceId`,
          `targetResourceId ${show(rid)} names no profile: give the child profile name or an id ending in /trafficManagerProfiles/<name>`,
          'use the child profile name, e.g. "contoso-eu"',
        );
        continue;
      }
      const child = ctx.known(childKey(rid));
      if (child === undefined) {
        r.report(
          'NESTED_TARGET_NOT_FOUND',
          `${e.path}.targetResourceId`,
          `nested endpoint names profile "${childProfileName(rid)}", which is neither in this document nor deployed`,
          'add the child profile to the document or fix the name',
        );
        continue;
      }
      if (self !== undefined) adj[self]!.push({ to: node(child), path: e.path });
      checkChild(ctx, e.raw, e.ep as unknown as Record<string, unknown>, e.path, child, familyCounts(child));
    }
  }
  // Context profiles' own edges (never reported on), for the context profiles reached (`nodes` grows).
  const inDocument = new Set(ctx.profiles.map((p) => p.profile));
  for (let v = 0; v < nodes.length; v++) {
    const c = nodes[v]!;
    if (inDocument.has(c)) continue;
    for (const e of Array.isArray(c.endpoints) ? c.endpoints : []) {
      if (typeof e !== 'object' || e === null || endpointTypeOf(e) !== 'nestedEndpoints' || typeof e.targetResourceId !== 'string')
        continue;
      const to = ctx.known(childKey(e.targetResourceId));
      if (to !== undefined) adj[v]!.push({ to: node(to) });
    }
  }

  const { comp, depth, via } = analyse(adj);
  const name = (i: number): string => String(nodes[i]!.name);

  for (let v = 0; v < nodes.length; v++) {
    for (const edge of adj[v]!) {
      if (edge.path === undefined || comp[v] !== comp[edge.to]) continue;
      const cycle = [name(v), ...pathWithin(adj, comp, edge.to, v).map(name)];
      r.report(
        'NESTING_CYCLE',
        `${edge.path}.targetResourceId`,
        `nested profiles form a cycle: ${cycle.join(' → ')}`,
        'break the cycle: a profile cannot (indirectly) nest itself',
      );
    }
  }
  for (const p of ctx.profiles) {
    const v = id.get(p.profile);
    if (v === undefined || depth[v]! <= MAX_NESTING_DEPTH) continue;
    const chain = [v];
    let edge = via[v];
    while (edge !== undefined && edge !== null) {
      chain.push(edge.to);
      edge = via[edge.to];
    }
    const first = via[v]!;
    r.report(
      'NESTING_DEPTH',
      `${first.path ?? p.path}.targetResourceId`,
      `nesting is ${depth[v]} profiles deep (${chain.map(name).join(' → ')}); at most ${MAX_NESTING_DEPTH} levels are allowed`,
      'flatten the hierarchy: merge intermediate profiles',
    );
  }
}

function checkChild(
  ctx: Ctx,
  raw: Record<string, unknown>,
  ep: Record<string, unknown>,
  path: string,
  child: Profile,
  counts: Counts,
): void {
  const { r } = ctx;
  if (child.trafficRoutingMethod === 'MultiValue') {
    if (counts.v4 === 0 || counts.v6 === 0) {
      r.report(
        'NESTED_MULTIVALUE_CHILD',
        `${path}.targetResourceId`,
        `child profile "${String(child.name)}" is MultiValue with ${counts.v4} IPv4 and ` +
          `${counts.v6} IPv6 endpoints; a nested MultiValue child needs at least one of each`,
        `add an ${counts.v4 === 0 ? 'IPv4' : 'IPv6'} endpoint to "${String(child.name)}"`,
      );
    }
    if (!has(raw, 'minChildEndpointsIPv4') || !has(raw, 'minChildEndpointsIPv6')) {
      r.report(
        'NESTED_MULTIVALUE_MIN_CHILD',
        path,
        `the child profile "${String(child.name)}" is MultiValue: set minChildEndpointsIPv4 and minChildEndpointsIPv6 so each address family counts`,
        'add minChildEndpointsIPv4 and minChildEndpointsIPv6 (e.g. 1 each)',
      );
    }
  }
  const checks: Array<[string, number]> = [
    ['minChildEndpoints', counts.total],
    ['minChildEndpointsIPv4', counts.v4],
    ['minChildEndpointsIPv6', counts.v6],
  ];
  for (const [f, n] of checks) {
    const v = ep[f];
    if (isInt(v) && v > n && (f === 'minChildEndpoints' || v > 0)) {
      r.report(
        'MIN_CHILD_ENDPOINTS_UNREACHABLE',
        `${path}.${f}`,
        `${f} is ${v} but child profile "${String(child.name)}" has only ${n} ` +
          `${f === 'minChildEndpoints' ? '' : f.endsWith('IPv4') ? 'IPv4 ' : 'IPv6 '}endpoint${n === 1 ? '' : 's'}: ` +
          `this nested endpoint can never be available`,
        `lower ${f} to at most ${n} or add endpoints to the child`,
      );
    }
  }
}

/** A shortest path from `from` to `to` inside one strongly connected component (node ids, from excluded… to included). */
function pathWithin(adj: Edge[][], comp: Int32Array, from: number, to: number): number[] {
  const prev = new Map<number, number>([[from, -1]]);
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!;
    if (v === to) break;
    for (const e of adj[v]!) {
      if (comp[e.to] !== comp[from] || prev.has(e.to)) continue;
      prev.set(e.to, v);
      queue.push(e.to);
    }
  }
  const out: number[] = [];
  for (let v: number | undefined = to; v !== undefined && v !== -1; v = prev.get(v)) out.unshift(v);
  return out;
}

/**
 * Tarjan's SCC algorithm without recursion. SCCs complete in reverse topological order, so each node's
 * depth (longest chain of profiles over edges leaving its SCC) is computed when its SCC completes.
 */
function analyse(adj: Edge[][]): { comp: Int32Array; depth: Int32Array; via: Array<Edge | null> } {
  const n = adj.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const via: Array<Edge | null> = new Array<Edge | null>(n).fill(null);
  const stack: number[] = [];
  let counter = 0;
  let c = 0;
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    const calls: Array<[number, number]> = [[s, 0]];
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = 1;
    while (calls.length > 0) {
      const top = calls[calls.length - 1]!;
      const v = top[0];
      if (top[1] < adj[v]!.length) {
        const w = adj[v]![top[1]++]!.to;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          calls.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      calls.pop();
      if (calls.length > 0) {
        const u = calls[calls.length - 1]![0];
        low[u] = Math.min(low[u]!, low[v]!);
      }
      if (low[v] !== index[v]) continue;
      const members: number[] = [];
      let w: number;
      do {
        w = stack.pop()!;
        onStack[w] = 0;
        comp[w] = c;
        members.push(w);
      } while (w !== v);
      for (const m of members) {
        let best = 0;
        for (const e of adj[m]!) {
          if (comp[e.to] === c) continue;
          if (depth[e.to]! > best) {
            best = depth[e.to]!;
            via[m] = e;
          }
        }
        depth[m] = best + 1;
      }
      c++;
    }
  }
  return { comp, depth, via };
}
