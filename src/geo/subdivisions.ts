/**
 * From an MMDB record to the hierarchy's vocabulary. Understands the record shapes of the databases users
 * are likely to plug in:
 * - MaxMind GeoIP2/GeoLite2 City and Country, DB-IP City/Country Lite (MaxMind-compatible): `country.iso_code`
 *   (falling back to `registered_country.iso_code`), `subdivisions[0].iso_code` (ISO 3166-2 suffix: `CA`,
 *   `ON`, `NSW`, `43`), `location.latitude/longitude`;
 * - ip-location-db MMDBs (the default database and its city variants): `country_code`, `state1` (a name),
 *   `latitude`/`longitude`.
 */
import { GEO_REGIONS } from '../core/data';
import type { ClientGeo } from '../core/ports';

/** Folds case and accents: `Québec` → `quebec`. */
function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Extra ISO 3166-2 codes and names per hierarchy subdivision, beyond `<country>-<suffix>` and its name. */
const ALIASES: Record<string, { country: string; codes: string[]; names: string[] }> = {
  // Azure files Crimea (ISO 3166-2 UA-43, and the city of Sevastopol UA-40) under Ukraine as "UA-CR".
  'UA-CR': {
    country: 'UA',
    codes: ['43', '40', 'CR'],
    names: ['Crimea', 'Republic of Crimea', 'Autonomous Republic of Crimea', 'Krym', 'Sevastopol', 'Sebastopol'],
  },
  'CA-YT': { country: 'CA', codes: [], names: ['Yukon'] },
  'CA-NT': { country: 'CA', codes: [], names: ['Northwest Territory'] },
  'US-DC': { country: 'US', codes: [], names: ['Washington, D.C.', 'Washington DC'] },
};

const byCode = new Map<string, string>(); // `${country}|${suffix}` → hierarchy code
const byName = new Map<string, string>(); // `${country}|${folded name}` → hierarchy code
const crimeaNames = new Set<string>();
for (const region of GEO_REGIONS.values()) {
  if (region.depth !== 3 || region.parent === undefined) continue;
  const country = region.parent;
  const dash = region.code.indexOf('-');
  byCode.set(`${country}|${region.code.slice(dash + 1)}`, region.code);
  byName.set(`${country}|${fold(region.name)}`, region.code);
}
for (const [code, alias] of Object.entries(ALIASES)) {
  for (const c of alias.codes) byCode.set(`${alias.country}|${c}`, code);
  for (const n of alias.names) byName.set(`${alias.country}|${fold(n)}`, code);
}
for (const n of ALIASES['UA-CR']!.names) crimeaNames.add(fold(n));

/**
 * The hierarchy code (`US-CA`, `CA-ON`, `AU-NSW`, `UA-CR`) of a subdivision given its country and its ISO
 * 3166-2 suffix and/or name as a geo database spells them; undefined when the hierarchy has no such
 * subdivision (only US states, Canadian provinces, Australian states and Crimea are in it).
 * Crimea is recognised by name also when the database files it under RU.
 */
export function mapSubdivision(country: string, isoCode?: string, name?: string): string | undefined {
  const cc = country.toUpperCase();
  if (isoCode) {
    const upper = isoCode.toUpperCase();
    const suffix = upper.startsWith(`${cc}-`) ? upper.slice(cc.length + 1) : upper;
    const hit = byCode.get(`${cc}|${suffix}`);
    if (hit) return hit;
  }
  if (name) {
    const folded = fold(name);
    const hit = byName.get(`${cc}|${folded}`);
    if (hit) return hit;
    if (cc === 'RU' && crimeaNames.has(folded)) return 'UA-CR';
  }
  return undefined;
}

type Rec = Record<string, unknown>;
const obj = (v: unknown): Rec | undefined => (typeof v === 'object' && v !== null ? (v as Rec) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The hierarchy's view of one MMDB record: country (only codes the hierarchy knows), subdivision, and the
 * record's own coordinates when it has them. Undefined when the record names no usable country.
 */
export function geoFromRecord(record: unknown): ClientGeo | undefined {
  const r = obj(record);
  if (!r) return undefined;
  const rawCountry = str(obj(r.country)?.iso_code) ?? str(r.country_code) ?? str(obj(r.registered_country)?.iso_code);
  if (!rawCountry) return undefined;
  let country = rawCountry.toUpperCase();
  const region = GEO_REGIONS.get(country);
  if (region?.depth !== 2) return undefined;

  const sub = obj(Array.isArray(r.subdivisions) ? (r.subdivisions as unknown[])[0] : undefined);
  const subName = str(obj(sub?.names)?.en) ?? str(r.state1);
  const subdivision = mapSubdivision(country, str(sub?.iso_code), subName);
  if (subdivision === 'UA-CR') country = 'UA';

  const loc = obj(r.location);
  const latitude = num(loc?.latitude) ?? num(r.latitude);
  const longitude = num(loc?.longitude) ?? num(r.longitude);
  const geo: ClientGeo = { country };
  if (subdivision) geo.subdivision = subdivision;
  if (latitude !== undefined && longitude !== undefined) {
    geo.latitude = latitude;
    geo.longitude = longitude;
  }
  return geo;
}
