import { ageText, type LiveHealthReport } from '../live';
import type { Endpoint } from '../../model/types';
import { count } from '../../words';
import { parsePath } from '../attributes';
import type { FailoverEstimate } from '../failover';
import type { AttributeChange, JsonValue, PlanSummary, ProfileAction, ProfileChange } from '../types';

/** Shared wording for the three renderers, so text, markdown and json say the same thing. */

export const SYMBOL: Record<ProfileAction | 'affected', string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  'no-op': ' ',
  affected: '>',
};

export const ACTION_WORD: Record<ProfileAction | 'affected', string> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  delete: 'destroy',
  'no-op': 'no changes',
  affected: 'affected',
};

export function summaryLine(s: PlanSummary): string {
  return `Plan: ${s.add} to add, ${s.change} to change, ${s.replace} to replace, ${s.destroy} to destroy.`;
}

export const hasChanges = (s: PlanSummary): boolean => s.add + s.change + s.replace + s.destroy > 0;

/** A value as a reviewer reads it: strings quoted, lists and objects as compact JSON. */
export function formatValue(v: JsonValue | undefined): string {
  if (v === undefined) return '(none)';
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v);
}

/** Percentages: whole numbers plain, otherwise two decimals (exact shares like 1/3 → 33.33%). */
export function pct(share: number | null): string {
  if (share === null) return '—';
  const v = Math.round(share * 10000) / 100;
  return Number.isInteger(v) ? `${v}%` : `${v.toFixed(2)}%`;
}

export function points(delta: number): string {
  const r = Math.round(delta * 100) / 100;
  if (r === 0) return '±0 pts';
  return `${r > 0 ? '+' : '−'}${Number.isInteger(r) ? Math.abs(r) : Math.abs(r).toFixed(2)} pts`;
}

const TYPE_WORD: Record<string, string> = { externalEndpoints: 'external', azureEndpoints: 'azure', nestedEndpoints: 'nested' };

/**
 * One line describing an endpoint (for added/removed endpoints). With the profile's routing method,
 * `weight` is shown only for Weighted and `priority` only for Priority: elsewhere they have no effect.
 */
export function describeEndpoint(e: Endpoint, method?: string): string {
  const parts: string[] = [TYPE_WORD[e.type] ?? String(e.type)];
  if (e.type === 'nestedEndpoints') parts.push(`→ ${e.targetResourceId ?? '?'}`);
  else if (e.target !== undefined) parts.push(e.target);
  else if (e.targetResourceId !== undefined) parts.push(e.targetResourceId);
  if (e.endpointStatus === 'Disabled') parts.push('Disabled');
  if (method === undefined || method === 'Weighted') parts.push(`weight ${e.weight}`);
  if (method === undefined || method === 'Priority') parts.push(`priority ${e.priority}`);
  if (e.endpointLocation) parts.push(`location ${e.endpointLocation}`);
  if (e.geoMapping?.length) parts.push(`geo ${e.geoMapping.join(',')}`);
  if (e.subnets?.length) parts.push(`subnets ${e.subnets.map(subnetText).join(',')}`);
  if (e.alwaysServe === 'Enabled') parts.push('always serve');
  if (e.type === 'nestedEndpoints' && e.minChildEndpoints !== undefined) parts.push(`minChildEndpoints ${e.minChildEndpoints}`);
  return parts.join(', ');
}

export function subnetText(s: { first: string; last?: string; scope?: number }): string {
  if (s.scope !== undefined) return `${s.first}/${s.scope}`;
  if (s.last !== undefined) return `${s.first}-${s.last}`;
  return s.first;
}

/** Endpoint name a change is about (`endpoints[eu].weight` → `eu`), or undefined for profile attributes. */
export function endpointOf(c: AttributeChange): { endpoint: string; rest: string } | undefined {
  const segs = parsePath(c.path);
  const first = segs[0];
  const second = segs[1];
  if (!first || !('prop' in first) || first.prop !== 'endpoints' || !second || !('key' in second)) return undefined;
  const restStart = c.path.indexOf(']', 'endpoints['.length) + 1;
  const rest = c.path.slice(restStart).replace(/^\./, '');
  return { endpoint: second.key, rest };
}

/**
 * True for an endpoint `weight` change outside Weighted routing and a `priority` change outside Priority
 * routing (the profile's method after the change): stored, but without effect on any answer. Renderers
 * leave them out and say how many they left out (`unusedNote`); the JSON plan keeps them.
 */
export function unusedByMethod(c: ProfileChange, a: AttributeChange): boolean {
  const ep = endpointOf(a);
  if (!ep) return false;
  const method = (c.after ?? c.before)?.trafficRoutingMethod;
  return (ep.rest === 'weight' && method !== 'Weighted') || (ep.rest === 'priority' && method !== 'Priority');
}

/** The attribute changes worth showing, and how many `unusedByMethod` ones were left out. */
export function shownAttributes(c: ProfileChange): { shown: AttributeChange[]; unused: number } {
  const shown = c.attributes.filter((a) => !unusedByMethod(c, a));
  return { shown, unused: c.attributes.length - shown.length };
}

/** `2 weight/priority changes not shown: Performance routing does not use them`. */
export function unusedNote(c: ProfileChange, n: number): string {
  return (
    `${count(n, 'weight/priority change')} not shown: ` +
    `${(c.after ?? c.before)?.trafficRoutingMethod ?? 'this'} routing does not use ${n === 1 ? 'it' : 'them'}`
  );
}

/** For lists that behave as sets (geoMapping), what was added and removed. */
export function setDelta(before: JsonValue | undefined, after: JsonValue | undefined): { added: string[]; removed: string[] } | undefined {
  if (!Array.isArray(before) || !Array.isArray(after)) return undefined;
  if (![...before, ...after].every((x) => typeof x === 'string')) return undefined;
  const b = new Set(before as string[]);
  const a = new Set(after as string[]);
  return { added: [...a].filter((x) => !b.has(x)), removed: [...b].filter((x) => !a.has(x)) };
}

/** Short phrases summarising a profile change (for a one-line summary). */
export function changePhrases(c: ProfileChange, max = 4): string[] {
  if (c.action === 'create')
    return [
      `${c.after!.trafficRoutingMethod}, ${count(c.after!.endpoints.length, 'endpoint')}, relativeName ${c.after!.dnsConfig.relativeName}`,
    ];
  if (c.action === 'delete')
    return [
      `${c.before!.trafficRoutingMethod}, ${count(c.before!.endpoints.length, 'endpoint')}, relativeName ${c.before!.dnsConfig.relativeName}`,
    ];
  const out: string[] = [];
  const { shown, unused } = shownAttributes(c);
  if (shown.length === 0 && unused > 0) return [unusedNote(c, unused)];
  for (const a of shown) {
    const ep = endpointOf(a);
    let phrase: string;
    if (ep && ep.rest === '') {
      phrase = a.kind === 'add' ? `+endpoint ${ep.endpoint}` : a.kind === 'remove' ? `−endpoint ${ep.endpoint}` : `${ep.endpoint} changed`;
    } else if (ep) {
      const d = setDelta(a.before, a.after);
      phrase =
        d && (d.added.length || d.removed.length)
          ? `${ep.endpoint} ${ep.rest} ${[...d.added.map((x) => `+${x}`), ...d.removed.map((x) => `−${x}`)].join(' ')}`
          : `${ep.endpoint} ${ep.rest} ${formatValue(a.before)} → ${formatValue(a.after)}`;
    } else if (a.kind === 'reorder') {
      phrase = `${a.path} reordered`;
    } else {
      phrase = `${a.path} ${formatValue(a.before)} → ${formatValue(a.after)}`;
    }
    out.push(phrase);
  }
  if (out.length > max) return [...out.slice(0, max), `and ${out.length - max} more`];
  return out;
}

export function failoverText(f: FailoverEstimate | null): string {
  if (f === null) return '—';
  return f.seconds === null ? 'never (not probed)' : `${f.seconds} s`;
}

/** "47 regions", "2 ranges": what a client-class count counts. */
export function classCount(group: string, n: number): string {
  const word = group === 'subnets' ? 'range' : group === 'clients' ? 'client' : group === 'all' ? 'client class' : 'region';
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The "Live health" section's lines (plain text; the renderers add their markup): one per notable endpoint. */
export function liveHealthLines(live: LiveHealthReport): string[] {
  const out: string[] = [];
  for (const e of live.endpoints) {
    const age = e.seconds !== undefined ? ` for ${ageText(e.seconds)}` : '';
    const over = e.overrides.length > 0 ? `; ${e.overrides.join('; ')}` : '';
    out.push(`${e.profile}/${e.endpoint}: ${e.status}${age} (${e.reason})${over}`);
  }
  for (const p of live.fallback) out.push(`${p}: every eligible endpoint is Degraded: answering in the all-degraded fallback`);
  if (out.length === 0) out.push('every endpoint of the profiles in scope is Online or Unmonitored; no overrides');
  if (live.unread) out.push(`not read: ${live.unread}`);
  return out;
}

/** `recovery 90 s: max(…)` for a failover estimate with a failback property, else ''. */
export function recoveryText(f: FailoverEstimate | null): string {
  return f?.recovery ? `recovery after the endpoint is healthy again: ${f.recovery.formula}` : '';
}
