/**
 * A world map of countries (Natural Earth 1:110m via world-atlas, bundled: nothing is fetched at run
 * time), each filled by the caller. Paths are projected once and reused by every map on the page.
 */
import { geoNaturalEarth1, geoPath } from 'd3-geo';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import world from 'world-atlas/countries-110m.json';
import { featureAlpha2 } from '../lib/countries';

const WIDTH = 960;
const HEIGHT = 480;

interface Shape {
  code: string | undefined;
  name: string;
  d: string;
}

let shapes: Shape[] | undefined;
let outline = '';

function project(): Shape[] {
  if (shapes) return shapes;
  const topo = world as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const fc = feature(topo, topo.objects.countries) as FeatureCollection<Geometry, { name: string }>;
  const projection = geoNaturalEarth1().fitSize([WIDTH, HEIGHT], { type: 'Sphere' });
  const path = geoPath(projection);
  outline = path({ type: 'Sphere' }) ?? '';
  shapes = fc.features.map((f: Feature<Geometry, { name: string }>) => ({
    code: featureAlpha2(f.id, f.properties.name),
    name: f.properties.name,
    d: path(f) ?? '',
  }));
  return shapes;
}

export interface WorldMapProps {
  /** Fill of a country (alpha-2); undefined = the empty colour. */
  fill: (code: string) => string | undefined;
  /** Tooltip text of a country. */
  title: (code: string, name: string) => string;
  label: string;
  testid: string;
  onSelect?: (code: string) => void;
  selected?: string | undefined;
}

export function WorldMap({ fill, title, label, testid, onSelect, selected }: WorldMapProps) {
  const all = project();
  return (
    <svg class="world-map" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} data-testid={testid}>
      <path d={outline} class="sphere" />
      {all.map((s) => {
        const f = s.code ? fill(s.code) : undefined;
        return (
          // The click is an optional pointer shortcut (no page passes onSelect today) inside an svg role="img", whose
          // shapes are presentational; every country's data is also in the page's table, which is the keyboard path.
          // biome-ignore lint/a11y/noStaticElementInteractions: pointer-only shortcut inside role="img"; the table is the accessible path
          <path
            key={`${s.code ?? ''}${s.name}`}
            d={s.d}
            class={`country${s.code !== undefined && s.code === selected ? ' selected' : ''}`}
            fill={f ?? 'var(--empty)'}
            data-country={s.code ?? ''}
            data-fill={f ?? ''}
            onClick={s.code && onSelect ? () => onSelect(s.code!) : undefined}
          >
            <title>{title(s.code ?? '', s.name)}</title>
          </path>
        );
      })}
    </svg>
  );
}
