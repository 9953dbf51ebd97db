/**
 * The latency model behind Performance routing: a measured table when the user supplies one, else an
 * estimate from great-circle distance.
 *
 * Estimated round-trip time (RTT) from a client at distance d (km, great circle) from a region:
 *
 *     rtt_ms = baseMs + 2 × routeFactor × d / FIBER_KM_PER_MS
 *
 * FIBER_KM_PER_MS = 199.86 (light in fibre travels at about 2/3 c), routeFactor = 1.3 (cables and routes are
 * longer than the great circle), baseMs = 5 (access network and processing). Only the ORDER of regions
 * matters to Performance routing until estimates are mixed with measured values, so the constants are
 * deliberately simple; they put London–New York (5,570 km) at about 77 ms and Frankfurt–Tokyo at about 127 ms.
 */
import { readFileSync } from 'node:fs';
import { AZURE_REGIONS, findAzureRegion, GEO_REGIONS } from '../core/data';
import type { ClientGeo } from '../core/ports';
import coordinatesJson from './country-coordinates.json';
import { GeoError } from './errors';
import { formatIp, parsePrefix, PrefixMap, type ParsedIp } from './ip';

export interface LatLon {
  latitude: number;
  longitude: number;
}

type CoordinatesFile = { countries: Record<string, LatLon>; subdivisions: Record<string, LatLon> };
const points = (table: Record<string, LatLon>): ReadonlyMap<string, LatLon> =>
  new Map(Object.entries(table).map(([code, c]) => [code, { latitude: c.latitude, longitude: c.longitude }]));
const COUNTRY_COORDINATES = points((coordinatesJson as CoordinatesFile).countries);
const SUBDIVISION_COORDINATES = points((coordinatesJson as CoordinatesFile).subdivisions);

/** The representative point of a country/region code (src/geo/country-coordinates.json). */
export function countryCoordinates(code: string): LatLon | undefined {
  return COUNTRY_COORDINATES.get(code.toUpperCase());
}

/** The representative point (capital) of a state/province code of the hierarchy (`US-CA`). */
export function subdivisionCoordinates(code: string): LatLon | undefined {
  return SUBDIVISION_COORDINATES.get(code.toUpperCase());
}

/** Every country/region code with coordinates (for tests and documentation). */
export function countryCoordinateCodes(): string[] {
  return [...COUNTRY_COORDINATES.keys()];
}

/** Every state/province code with coordinates. */
export function subdivisionCoordinateCodes(): string[] {
  return [...SUBDIVISION_COORDINATES.keys()];
}

const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

/** Great-circle distance in km (haversine, mean Earth radius). */
export function haversineKm(a: LatLon, b: LatLon): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLon = (b.longitude - a.longitude) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export const FIBER_KM_PER_MS = 199.86;

export interface DistanceModelOptions {
  /** Fixed part of every RTT, ms. Default 5. */
  baseMs?: number;
  /** Path length over great-circle distance. Default 1.3. */
  routeFactor?: number;
}

export const DEFAULT_BASE_MS = 5;
export const DEFAULT_ROUTE_FACTOR = 1.3;

/** The estimated RTT in ms for a great-circle distance in km (formula in the module comment). */
export function estimateRttMs(distanceKm: number, opts: DistanceModelOptions = {}): number {
  const base = opts.baseMs ?? DEFAULT_BASE_MS;
  const factor = opts.routeFactor ?? DEFAULT_ROUTE_FACTOR;
  return base + (2 * factor * distanceKm) / FIBER_KM_PER_MS;
}

/**
 * Where a located client is for the distance model: its own coordinates, else its state/province's point,
 * else its country's point.
 */
export function clientCoordinates(geo: ClientGeo | undefined): LatLon | undefined {
  if (!geo) return undefined;
  if (geo.latitude !== undefined && geo.longitude !== undefined) return { latitude: geo.latitude, longitude: geo.longitude };
  const sub = geo.subdivision === undefined ? undefined : subdivisionCoordinates(geo.subdivision);
  if (sub) return sub;
  return geo.country === undefined ? undefined : countryCoordinates(geo.country);
}

/** Region (canonical name) → measured RTT in ms. */
export type LatencyRow = ReadonlyMap<string, number>;

/**
 * A measured latency table: client prefix, state/province or country → Azure region → ms.
 * Lookup order for one (client, region) pair: the longest prefix containing the client address that has a
 * value for the region, then the client's state/province, then its country, then the distance model.
 */
export interface LatencyTable {
  prefixes: PrefixMap<LatencyRow>;
  /** Hierarchy code (`DE`, `US-CA`) → row. */
  places: ReadonlyMap<string, LatencyRow>;
  /** Number of rows, for logs. */
  size: number;
}

export const EMPTY_LATENCY_TABLE: LatencyTable = { prefixes: new PrefixMap(), places: new Map(), size: 0 };

/** Looks up a measured value; undefined when the table has none for this pair. */
export function measuredLatency(
  table: LatencyTable,
  prefixRows: readonly LatencyRow[],
  geo: ClientGeo | undefined,
  region: string,
): number | undefined {
  for (const row of prefixRows) {
    const v = row.get(region);
    if (v !== undefined) return v;
  }
  if (geo?.subdivision !== undefined) {
    const v = table.places.get(geo.subdivision)?.get(region);
    if (v !== undefined) return v;
  }
  if (geo?.country !== undefined) {
    const v = table.places.get(geo.country)?.get(region);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Rows of every table prefix containing the address, longest first. */
export function prefixRowsFor(table: LatencyTable, ip: ParsedIp | undefined): LatencyRow[] {
  return ip && table.prefixes.size > 0 ? table.prefixes.matches(ip) : [];
}

const MAX_ISSUES_IN_MESSAGE = 10;

/** Levenshtein distance, for "did you mean" hints. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The canonical region name nearest to a misspelt one (at most 3 edits away), if any. */
function closestRegion(name: string): string | undefined {
  const key = name.replace(/\s+/g, '').toLowerCase();
  let best: string | undefined;
  let bestD = 4;
  for (const r of AZURE_REGIONS) {
    const d = editDistance(key, r.name);
    if (d < bestD) {
      bestD = d;
      best = r.name;
    }
  }
  return best;
}

/**
 * Validates a parsed latency-table document. Format (JSON object; keys starting with `$` are comments):
 *
 *     {
 *       "$comment": "measured 2026-11 from our probes",
 *       "203.0.113.0/24": { "westeurope": 12.5, "eastus": 85 },
 *       "2001:db8::/32":  { "westeurope": 14 },
 *       "US-CA":          { "westus": 9, "westus2": 25 },
 *       "DE":             { "germanywestcentral": 8, "westeurope": 15 }
 *     }
 *
 * Keys: an IPv4/IPv6 prefix in CIDR form (host bits zero; a bare address is a /32 or /128), or a country /
 * state / province code of the geographic hierarchy. Regions: Azure region names (canonical or display).
 * Values: finite numbers of milliseconds, 0 or more.
 * Throws GeoError GEO_LATENCY_TABLE_INVALID listing every problem, each naming the file, the entry and the rule.
 */
export function parseLatencyTable(doc: unknown, path: string): LatencyTable {
  const issues: string[] = [];
  const prefixes = new PrefixMap<LatencyRow>();
  const places = new Map<string, LatencyRow>();
  let size = 0;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    issues.push(`${path}: the document must be a JSON object mapping a client prefix or country code to { region: ms }`);
  } else {
    const seen = new Map<string, string>();
    for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
      if (key.startsWith('$')) continue;
      const where = `${path}: ${JSON.stringify(key)}`;
      let target:
        | { kind: 'prefix'; prefix: Exclude<ReturnType<typeof parsePrefix>, { error: string }> }
        | { kind: 'place'; code: string }
        | undefined;
      if (/^[A-Za-z]{2}(-[A-Za-z]{1,3})?$/.test(key)) {
        const code = key.toUpperCase();
        const region = GEO_REGIONS.get(code);
        if (!region || region.depth < 2) {
          issues.push(`${where}: not a country/region or state/province code of the geographic hierarchy (e.g. "DE", "US-CA")`);
        } else target = { kind: 'place', code };
      } else if (/^[0-9A-Fa-f.:]+(\/\d+)?$/.test(key) && /[.:]/.test(key)) {
        const parsed = parsePrefix(key);
        if ('error' in parsed) issues.push(`${where}: invalid IP prefix: ${parsed.error}`);
        else target = { kind: 'prefix', prefix: parsed };
      } else {
        issues.push(
          `${where}: a key must be an IP prefix in CIDR form ("203.0.113.0/24", "2001:db8::/32") or a country/region or state/province code ("DE", "US-CA")`,
        );
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        issues.push(`${where}: the value must be an object mapping Azure region names to milliseconds, e.g. { "westeurope": 12 }`);
        continue;
      }
      const row = new Map<string, number>();
      for (const [regionName, ms] of Object.entries(value as Record<string, unknown>)) {
        const at = `${where}.${JSON.stringify(regionName)}`;
        const region = findAzureRegion(regionName);
        if (!region) {
          const hint = closestRegion(regionName);
          issues.push(
            `${at}: unknown Azure region (${hint ? `did you mean "${hint}"? ` : ''}use a canonical region name such as "westeurope")`,
          );
          continue;
        }
        if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
          issues.push(`${at}: latency must be a finite number of milliseconds, 0 or more (got ${JSON.stringify(ms)})`);
          continue;
        }
        if (row.has(region.name)) {
          issues.push(`${at}: region ${region.name} appears twice in this entry (display and canonical name?); keep one`);
          continue;
        }
        row.set(region.name, ms);
      }
      if (!target) continue;
      const canonicalKey = target.kind === 'place' ? target.code : `${formatIp(target.prefix)}/${target.prefix.length}`;
      const dup = seen.get(canonicalKey);
      if (dup !== undefined) {
        issues.push(`${where}: same client key as ${JSON.stringify(dup)}; merge the two entries`);
        continue;
      }
      seen.set(canonicalKey, key);
      if (target.kind === 'place') places.set(target.code, row);
      else prefixes.set(target.prefix, row);
      size++;
    }
  }
  if (issues.length > 0) {
    const shown = issues.slice(0, MAX_ISSUES_IN_MESSAGE).join('\n  ');
    const more = issues.length > MAX_ISSUES_IN_MESSAGE ? `\n  ... and ${issues.length - MAX_ISSUES_IN_MESSAGE} more` : '';
    throw new GeoError(
      'GEO_LATENCY_TABLE_INVALID',
      `invalid latency table ${path} (${issues.length} problem${issues.length === 1 ? '' : 's'}); fix these entries:\n  ${shown}${more}`,
      path,
      issues,
    );
  }
  return { prefixes, places, size };
}

/** Reads and validates a latency table file (see parseLatencyTable for the format). */
export function loadLatencyTable(path: string): LatencyTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    const issue = `${path}: cannot read the latency table (${reason}); check the file path`;
    throw new GeoError('GEO_LATENCY_TABLE_INVALID', issue, path, [issue]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const issue = `${path}: not valid JSON (${(e as Error).message}); the file must be a JSON object`;
    throw new GeoError('GEO_LATENCY_TABLE_INVALID', issue, path, [issue]);
  }
  return parseLatencyTable(doc, path);
}
