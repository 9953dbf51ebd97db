/**
 * `tmkit/core`: the pure core (no I/O, no Node.js or third-party imports) — the document model and its
 * normalization, validation, routing, the DNS zone lookup, health derivation, ARM import/export, the plan
 * and its renderers, the wire types of the management API, the data tables (geographic hierarchy, Azure
 * regions) and the ports a host implements (Clock, Rng, GeoLookup, ResourceCatalog). Everything here is
 * also exported from the package root, which adds the geo lookup, the constructs and the client.
 */
export * from './diagnostics';
export * from './codes';
export * from './model/types';
export * from './model/normalize';
export * from './model/names';
export * from './validate';
export * from './routing';
export * from './zone';
export * from './health';
export * from './model/arm-import';
export * from './model/arm-export';
export * from './plan';
export * from './operations';
export * from './api';
export * from './data';
export type * from './ports';
/** @deprecated The old name of the API's `ProfileStatusReport` (kept for scripts that import it). */
export type { ProfileStatusReport as ServerProfileStatusReport } from './api';
