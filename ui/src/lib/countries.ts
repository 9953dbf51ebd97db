/**
 * Country codes on the map. world-atlas (Natural Earth) names countries by ISO 3166-1 numeric code; the
 * traffic API and the routing preview by alpha-2. The numeric → alpha-2 table is i18n-iso-countries'
 * `codes.json` (only that file is bundled, not its translations).
 */
import codes from 'i18n-iso-countries/codes.json';

const NUMERIC_TO_ALPHA2 = new Map<string, string>((codes as string[][]).map((c) => [c[2]!, c[0]!]));

/** Natural Earth shapes without an ISO numeric id, by their name. */
const BY_NAME: Record<string, string> = {
  Kosovo: 'XK',
  'N. Cyprus': 'CY',
  Somaliland: 'SO',
};

/** The alpha-2 code of a world-atlas feature, or undefined when it has none. */
export function featureAlpha2(id: string | number | undefined, name: string | undefined): string | undefined {
  if (id !== undefined) {
    const a = NUMERIC_TO_ALPHA2.get(String(id).padStart(3, '0'));
    if (a) return a;
  }
  return name === undefined ? undefined : BY_NAME[name];
}
