/** src/geo: where a client address is, and how far it is from an Azure region (implements core GeoLookup). */
export { GeoError, type GeoErrorCode } from './errors';
export {
  MmdbGeoLookup,
  defaultCountryDatabasePath,
  DEFAULT_COUNTRY_DATABASE_PACKAGE,
  DEFAULT_COUNTRY_DATABASE_VERSION,
  DEFAULT_COUNTRY_DATABASE_INSTALL,
  countryDatabaseInstalled,
  geoDatabaseMissing,
  type GeoDatabase,
  type GeoDatabaseInfo,
  type MmdbGeoLookupOptions,
  type OpenGeoLookupOptions,
} from './lookup';
export {
  loadLatencyTable,
  parseLatencyTable,
  estimateRttMs,
  haversineKm,
  countryCoordinates,
  subdivisionCoordinates,
  clientCoordinates,
  FIBER_KM_PER_MS,
  DEFAULT_BASE_MS,
  DEFAULT_ROUTE_FACTOR,
  type DistanceModelOptions,
  type LatencyTable,
  type LatencyRow,
  type LatLon,
} from './latency';
export { mapSubdivision, geoFromRecord } from './subdivisions';
