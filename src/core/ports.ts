/**
 * The interfaces the shell injects into the pure core (docs/ARCHITECTURE.md). The core never reads a clock,
 * draws a random number or touches the network itself.
 */

/** Milliseconds since the Unix epoch. */
export interface Clock {
  now(): number;
}

/** A uniform random number in [0, 1). */
export type Rng = () => number;

/** Where a client address is, as far as the geo database knows. */
export interface ClientGeo {
  /** ISO 3166-1 alpha-2 country code, upper case (`DE`), as used by the geographic hierarchy. */
  country?: string;
  /** Hierarchy code of the state/province (`US-CA`, `CA-ON`, `AU-NSW`) when the database has one. */
  subdivision?: string;
  latitude?: number;
  longitude?: number;
}

/**
 * Geography and latency for routing. Implemented by src/geo (MMDB + reference data); tests use tables.
 */
export interface GeoLookup {
  /** The location of an IPv4/IPv6 address; undefined when unknown (private ranges, missing data). */
  locate(address: string): ClientGeo | undefined;
  /**
   * Estimated round-trip latency in milliseconds from the client to an Azure region (canonical name),
   * or undefined when neither a measured value nor a location is known.
   */
  latencyMs(address: string, geo: ClientGeo | undefined, region: string): number | undefined;
}

/** An Azure resource named by an Azure endpoint's ARM id (README.md, Concepts, `--resources catalog.json`). */
export interface AzureResource {
  /** FQDN (or IP) the endpoint answers with. */
  target: string;
  /** Azure region canonical name. */
  location?: string;
  state: 'running' | 'stopped';
}

/** ARM id, lower-cased → resource. */
export type ResourceCatalog = ReadonlyMap<string, AzureResource>;
