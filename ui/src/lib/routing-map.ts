import type { PreviewRow } from '../api/types';
import { GEO_REGIONS, geoAncestry } from '../../../src/core/data';

/** The answer a class of clients gets: its most probable endpoint and every split. */
export interface ClientAnswer {
  client: string;
  label: string;
  /** Endpoint paths with probabilities, most probable first (then by name). */
  answers: Array<{ endpoint: string; probability: number }>;
  /** The most probable endpoint (`''`: no answer). */
  top: string;
}

/** Preview rows grouped by client, in the order the clients first appear. */
export function groupPreview(rows: readonly PreviewRow[]): Map<string, ClientAnswer> {
  const out = new Map<string, ClientAnswer>();
  for (const r of rows) {
    let a = out.get(r.client);
    if (!a) {
      a = { client: r.client, label: r.label, answers: [], top: '' };
      out.set(r.client, a);
    }
    const same = a.answers.find((x) => x.endpoint === r.endpoint);
    if (same) same.probability += r.probability;
    else a.answers.push({ endpoint: r.endpoint, probability: r.probability });
  }
  for (const a of out.values()) {
    a.answers.sort((x, y) => y.probability - x.probability || (x.endpoint < y.endpoint ? -1 : x.endpoint > y.endpoint ? 1 : 0));
    a.top = a.answers[0]?.endpoint ?? '';
  }
  return out;
}

export interface CountryRoute {
  endpoint: string;
  probability: number;
  /** The preview row the country's colour comes from: itself, a group containing it, or its subdivisions. */
  via: string;
  /** Its subdivisions do not all agree (only when the colour comes from them). */
  varies?: boolean;
}

/**
 * The endpoint each country on the map gets: from the country's own row if there is one, else from the most
 * specific region group that contains it (`GEO-EU`, then `WORLD`), else from the rows of its states or
 * provinces (the endpoint most of them get). Countries with none of these are left out.
 */
export function countryRoutes(answers: ReadonlyMap<string, ClientAnswer>): Map<string, CountryRoute> {
  const out = new Map<string, CountryRoute>();
  for (const region of GEO_REGIONS.values()) {
    if (region.depth !== 2) continue;
    const code = region.code;
    const direct = geoAncestry(code).find((c) => answers.has(c));
    if (direct !== undefined) {
      const a = answers.get(direct)!;
      out.set(code, { endpoint: a.top, probability: a.answers[0]?.probability ?? 0, via: direct });
      continue;
    }
    const subs = region.children.map((c) => answers.get(c)).filter((a): a is ClientAnswer => a !== undefined);
    if (subs.length === 0) continue;
    const votes = new Map<string, number>();
    for (const s of subs) votes.set(s.top, (votes.get(s.top) ?? 0) + 1);
    let best = '';
    let bestN = -1;
    for (const [e, n] of votes)
      if (n > bestN || (n === bestN && e < best)) {
        best = e;
        bestN = n;
      }
    out.set(code, {
      endpoint: best,
      probability: bestN / subs.length,
      via: `${subs.length} subdivisions`,
      ...(votes.size > 1 ? { varies: true } : {}),
    });
  }
  return out;
}

export interface ScenarioDiff {
  client: string;
  label: string;
  now: string;
  scenario: string;
  changed: boolean;
}

const describe = (a: ClientAnswer | undefined): string =>
  a === undefined
    ? '—'
    : a.answers
        .map((x) =>
          x.probability >= 0.9995 ? x.endpoint || 'no answer' : `${x.endpoint || 'no answer'} ${Math.round(x.probability * 100)}%`,
        )
        .join(' + ');

/** Now vs under a failure scenario, one row per client; changed rows first, then in preview order. */
export function diffScenario(now: ReadonlyMap<string, ClientAnswer>, scenario: ReadonlyMap<string, ClientAnswer>): ScenarioDiff[] {
  const clients = [...now.keys()];
  for (const c of scenario.keys()) if (!now.has(c)) clients.push(c);
  const rows = clients.map((client, i) => {
    const a = now.get(client);
    const b = scenario.get(client);
    const n = describe(a);
    const s = describe(b);
    return { i, row: { client, label: a?.label ?? b?.label ?? client, now: n, scenario: s, changed: n !== s } };
  });
  rows.sort((x, y) => Number(y.row.changed) - Number(x.row.changed) || x.i - y.i);
  return rows.map((r) => r.row);
}

/** How many client classes the routing table shows before "show all". */
export const ROUTING_TABLE_LIMIT = 60;

/**
 * The regional grouping a client class belongs to (`GEO-EU` for `DE` and for `DE-BY`; a grouping is its
 * own; `WORLD` for WORLD and for codes outside the hierarchy).
 */
export function regionOf(client: string): string {
  // A subdivision the hierarchy does not list (`DE-BY`) belongs where its country does.
  const own = geoAncestry(client);
  const chain = own.length > 0 ? own : geoAncestry(client.split('-')[0]!);
  return chain.find((c) => GEO_REGIONS.get(c)?.depth === 1) ?? 'WORLD';
}

/** The regional groupings the rows fall in, with their names, in name order (the table's region filter). */
export function regionsOf(rows: ReadonlyArray<{ client: string }>): Array<{ code: string; name: string }> {
  const codes = new Set(rows.map((r) => regionOf(r.client)));
  return [...codes].map((code) => ({ code, name: GEO_REGIONS.get(code)?.name ?? code })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/**
 * The rows the routing table shows: those of `region` ('' = every region), the first `limit` of them
 * (undefined = all); `total` is how many there are before the cut, for "60 of N".
 */
export function tableRows<T extends { client: string }>(
  rows: readonly T[],
  region: string,
  limit: number | undefined,
): { shown: T[]; total: number } {
  const inRegion = region === '' ? rows : rows.filter((r) => regionOf(r.client) === region);
  return { shown: limit === undefined ? [...inRegion] : inRegion.slice(0, limit), total: inRegion.length };
}
