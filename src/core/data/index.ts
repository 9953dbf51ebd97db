/**
 * Reference data as pure values: Azure's geographic hierarchy (for Geographic routing) and the Azure
 * regions usable as `endpointLocation` (with coordinates for the latency model). Copied verbatim from
 * shared/reference/ (see docs/geo.md); no I/O, JSON modules are compiled in.
 */
import hierarchyJson from './geographic-hierarchy.json';
import regionsJson from './azure-regions.json';

export interface GeoRegionNode {
  code: string;
  name: string;
  regions: GeoRegionNode[];
}

export interface GeoRegion {
  code: string;
  name: string;
  /** Parent code; undefined for WORLD. */
  parent?: string;
  /** 0 WORLD, 1 regional grouping (GEO-xx), 2 country/region, 3 state/province. */
  depth: number;
  children: string[];
}

export interface AzureRegion {
  name: string;
  displayName: string;
  latitude: number;
  longitude: number;
  coordinateSource: string;
  note?: string;
}

export const GEO_HIERARCHY: GeoRegionNode = hierarchyJson as GeoRegionNode;

function indexHierarchy(root: GeoRegionNode): Map<string, GeoRegion> {
  const out = new Map<string, GeoRegion>();
  const walk = (node: GeoRegionNode, parent: string | undefined, depth: number): void => {
    out.set(node.code, {
      code: node.code,
      name: node.name,
      ...(parent === undefined ? {} : { parent }),
      depth,
      children: node.regions.map((c) => c.code),
    });
    for (const child of node.regions) walk(child, node.code, depth + 1);
  };
  walk(root, undefined, 0);
  return out;
}

/** Every geographic code (exact case, as Azure spells it) → its place in the hierarchy. */
export const GEO_REGIONS: ReadonlyMap<string, GeoRegion> = indexHierarchy(GEO_HIERARCHY);

/** Codes from the region itself up to WORLD, most specific first (`US-CA`, `US`, `GEO-NA`, `WORLD`). */
export function geoAncestry(code: string): string[] {
  const chain: string[] = [];
  let cur = GEO_REGIONS.get(code);
  while (cur) {
    chain.push(cur.code);
    cur = cur.parent === undefined ? undefined : GEO_REGIONS.get(cur.parent);
  }
  return chain;
}

export const AZURE_REGIONS: readonly AzureRegion[] = regionsJson as AzureRegion[];

const regionByKey = new Map<string, AzureRegion>();
for (const r of AZURE_REGIONS) {
  regionByKey.set(r.name.toLowerCase(), r);
  regionByKey.set(r.displayName.toLowerCase(), r);
  regionByKey.set(r.displayName.replace(/\s+/g, '').toLowerCase(), r);
}

/**
 * The Azure region for an `endpointLocation` written as canonical name (`westeurope`) or display name
 * (`West Europe`), case-insensitively. `global` is not a region.
 */
export function findAzureRegion(location: string): AzureRegion | undefined {
  return regionByKey.get(location.trim().toLowerCase());
}
