import world from 'world-atlas/countries-110m.json';
import { GEO_REGIONS } from '../../src/core/data';
import { featureAlpha2 } from '../../ui/src/lib/countries';

interface Geometry {
  id?: string;
  properties: { name: string };
}
const shapes = (world as unknown as { objects: { countries: { geometries: Geometry[] } } }).objects.countries.geometries;

test('every country shape of the map has an ISO alpha-2 code, and all but Western Sahara are countries of the Azure hierarchy', () => {
  expect(shapes.length).toBeGreaterThan(170);
  const codes = shapes.map((g) => featureAlpha2(g.id, g.properties.name));
  expect(shapes.filter((_, i) => codes[i] === undefined).map((g) => g.properties.name)).toEqual([]);
  // EH is not in Azure's geographic hierarchy (reference/geographic-hierarchy.json): drawn, never coloured.
  expect(codes.filter((c) => GEO_REGIONS.get(c!)?.depth !== 2)).toEqual(['EH']);
  expect(featureAlpha2('276', 'Germany')).toBe('DE');
  expect(featureAlpha2('840', 'United States of America')).toBe('US');
  expect(featureAlpha2(undefined, 'Kosovo')).toBe('XK');
  expect(featureAlpha2(undefined, 'Atlantis')).toBeUndefined();
});
