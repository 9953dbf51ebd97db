/**
 * The GeoLookup the runtime injects into the routing core: MMDB lookups (maxmind's Reader) for where a
 * client address is, and the latency model (measured table, else great-circle distance) for Performance.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'maxmind';
import { findAzureRegion } from '../core/data';
import { parseIpBytes } from '../core/net/ip';
import type { ClientGeo, GeoLookup } from '../core/ports';
import { GeoError } from './errors';
import { formatIp, GEO_IP_SYNTAX, isNonGlobal, unwrapIpv4, type ParsedIp } from './ip';
import {
  clientCoordinates,
  EMPTY_LATENCY_TABLE,
  estimateRttMs,
  haversineKm,
  loadLatencyTable,
  measuredLatency,
  prefixRowsFor,
  type DistanceModelOptions,
  type LatencyRow,
  type LatencyTable,
  type LatLon,
} from './latency';
import { Lru } from './lru';
import { geoFromRecord } from './subdivisions';

/**
 * npm package of the default database (country level, IPv4 + IPv6; see /work/notes/geo.md for the licence).
 * An optional peer dependency of tmkit: only what places real client addresses (serve, dns, a preview's
 * `--clients`) needs it, so it is resolved when first needed, never at import.
 */
export const DEFAULT_COUNTRY_DATABASE_PACKAGE = '@ip-location-db/geo-whois-asn-country-mmdb';
/** The version tmkit is tested with (its devDependency; the peer range is `^` this version). */
export const DEFAULT_COUNTRY_DATABASE_VERSION = '2.3.2026061719';
/** What to run to install the default database next to tmkit. */
export const DEFAULT_COUNTRY_DATABASE_INSTALL = `npm install ${DEFAULT_COUNTRY_DATABASE_PACKAGE}@${DEFAULT_COUNTRY_DATABASE_VERSION}`;

function resolveCountryDatabasePackage(): string | undefined {
  try {
    return require.resolve(`${DEFAULT_COUNTRY_DATABASE_PACKAGE}/package.json`);
  } catch {
    return undefined;
  }
}

/** True when the default country database package can be loaded from where tmkit is installed. */
export function countryDatabaseInstalled(): boolean {
  return resolveCountryDatabasePackage() !== undefined;
}

/** The GEO_DB_MISSING error: what is missing, who needs it, and the exact command that fixes it. */
export function geoDatabaseMissing(): GeoError {
  return new GeoError(
    'GEO_DB_MISSING',
    `the geo database ${DEFAULT_COUNTRY_DATABASE_PACKAGE} (^${DEFAULT_COUNTRY_DATABASE_VERSION}, an optional peer dependency of tmkit) is not installed; ` +
      'it places DNS clients for Geographic and Performance routing. ' +
      `Install it next to tmkit: ${DEFAULT_COUNTRY_DATABASE_INSTALL} (or pass --geoip FILE.mmdb, a city-level database used alone)`,
  );
}

/**
 * Path of the default country database (IPv4 + IPv6 in one file) in its npm package. Throws GEO_DB_MISSING
 * when the package is not installed.
 */
export function defaultCountryDatabasePath(): string {
  const pkg = resolveCountryDatabasePackage();
  if (pkg === undefined) throw geoDatabaseMissing();
  return join(dirname(pkg), 'geo-whois-asn-country.mmdb');
}

/** An MMDB database: a file's bytes (and where they came from, for messages) or a ready maxmind Reader. */
export type GeoDatabase = { buffer: Buffer; path?: string } | { reader: Reader<Response>; path?: string };

export interface MmdbGeoLookupOptions {
  /**
   * Databases consulted in order; the first that knows a country for the address answers. Typically a
   * city-level database (`--geoip`, for states/provinces and coordinates) then the default country one.
   */
  databases: GeoDatabase[];
  /** Measured latencies that override the distance model. */
  latencyTable?: LatencyTable;
  /** Constants of the distance model. */
  distance?: DistanceModelOptions;
  /** Addresses remembered (bounded LRU). Default 100,000. */
  cacheSize?: number;
}

export interface OpenGeoLookupOptions {
  /** A city-level MMDB (GeoLite2-City, DB-IP City Lite...) consulted before the country database. */
  geoip?: string;
  /**
   * The country database; default the package's (DEFAULT_COUNTRY_DATABASE_PACKAGE). When that package is not
   * installed, `geoip` alone is used, and without `geoip` opening fails with GEO_DB_MISSING. `false`: none
   * (only `geoip`).
   */
  countryDatabase?: string | false;
  /** A latency table file (see parseLatencyTable), or an already loaded table. */
  latencyTable?: string | LatencyTable;
  distance?: DistanceModelOptions;
  cacheSize?: number;
}

export interface GeoDatabaseInfo {
  path?: string;
  databaseType: string;
  buildEpoch: Date;
  ipVersion: number;
}

interface CacheEntry {
  geo: ClientGeo | undefined;
  ip: ParsedIp | undefined;
  /** Latency-table rows whose prefix contains the address, longest first (computed on first need). */
  prefixRows?: LatencyRow[];
}

const RECORD_CACHE_SIZE = 20_000;
/** Lets withoutDatabase() construct a lookup with no database (the constructor refuses one otherwise). */
const NO_DATABASE: unique symbol = Symbol('no database');

function openReader(buffer: Buffer, path: string | undefined): Reader<Response> {
  try {
    return new Reader<Response>(buffer, { cache: new Lru<string | number, unknown>(RECORD_CACHE_SIZE) });
  } catch (e) {
    throw new GeoError(
      'GEO_DATABASE_INVALID',
      `${path ?? 'geo database'}: not a MaxMind DB (.mmdb) file (${(e as Error).message}); pass an .mmdb file such as GeoLite2-City.mmdb (not .csv or .gz)`,
      path,
    );
  }
}

function readDatabaseSync(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new GeoError(
      'GEO_DATABASE_INVALID',
      `${path}: cannot read the geo database (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check the path`,
      path,
    );
  }
}

async function readDatabase(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (e) {
    throw new GeoError(
      'GEO_DATABASE_INVALID',
      `${path}: cannot read the geo database (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); check the path`,
      path,
    );
  }
}

function databasePaths(opts: OpenGeoLookupOptions): string[] {
  const paths: string[] = [];
  if (opts.geoip !== undefined) paths.push(opts.geoip);
  if (typeof opts.countryDatabase === 'string') paths.push(opts.countryDatabase);
  else if (opts.countryDatabase === undefined && (opts.geoip === undefined || countryDatabaseInstalled()))
    paths.push(defaultCountryDatabasePath());
  if (paths.length === 0) throw new RangeError('no geo database: give geoip, or leave countryDatabase unset for the shipped one');
  return paths;
}

export class MmdbGeoLookup implements GeoLookup {
  private readonly readers: { reader: Reader<Response>; path?: string }[];
  private readonly table: LatencyTable;
  private readonly distance: DistanceModelOptions;
  private readonly cache: Lru<string, CacheEntry>;
  private readonly regions = new Map<string, { name: string; point: LatLon } | null>();

  /** Opens the databases (asynchronous read; the shipped country database is about 8 MB). */
  static async open(opts: OpenGeoLookupOptions = {}): Promise<MmdbGeoLookup> {
    const paths = databasePaths(opts);
    const buffers = await Promise.all(paths.map((p) => readDatabase(p)));
    return new MmdbGeoLookup({
      databases: buffers.map((buffer, i) => ({ buffer, path: paths[i]! })),
      ...MmdbGeoLookup.common(opts),
    });
  }

  /** Same as open(), blocking: for start-up code and tools that have nothing else to do meanwhile. */
  static openSync(opts: OpenGeoLookupOptions = {}): MmdbGeoLookup {
    const paths = databasePaths(opts);
    return new MmdbGeoLookup({
      databases: paths.map((path) => ({ buffer: readDatabaseSync(path), path })),
      ...MmdbGeoLookup.common(opts),
    });
  }

  private static common(opts: OpenGeoLookupOptions): Omit<MmdbGeoLookupOptions, 'databases'> {
    const out: Omit<MmdbGeoLookupOptions, 'databases'> = {};
    if (opts.latencyTable !== undefined) {
      out.latencyTable = typeof opts.latencyTable === 'string' ? loadLatencyTable(opts.latencyTable) : opts.latencyTable;
    }
    if (opts.distance) out.distance = opts.distance;
    if (opts.cacheSize !== undefined) out.cacheSize = opts.cacheSize;
    return out;
  }

  /**
   * A lookup without any database: it places no address (`locate` is always undefined) and estimates the
   * latency from a location the caller already knows (a measured table's country/subdivision rows, then the
   * distance model). The routing preview uses it when the default database is not installed: its clients
   * (one per country and state/province) carry their own location, so its answers are the same.
   */
  static withoutDatabase(opts: Pick<OpenGeoLookupOptions, 'latencyTable' | 'distance'> = {}): MmdbGeoLookup {
    return new MmdbGeoLookup({ databases: [], ...MmdbGeoLookup.common(opts) }, NO_DATABASE);
  }

  constructor(opts: MmdbGeoLookupOptions, empty?: typeof NO_DATABASE) {
    if (opts.databases.length === 0 && empty !== NO_DATABASE)
      throw new RangeError('MmdbGeoLookup needs at least one database (MmdbGeoLookup.withoutDatabase() for none)');
    this.readers = opts.databases.map((db) => {
      const reader = 'reader' in db ? db.reader : openReader(db.buffer, db.path);
      return db.path === undefined ? { reader } : { reader, path: db.path };
    });
    this.table = opts.latencyTable ?? EMPTY_LATENCY_TABLE;
    this.distance = opts.distance ?? {};
    this.cache = new Lru(opts.cacheSize ?? 100_000);
  }

  /** What is loaded, for the start-up log. */
  describe(): { databases: GeoDatabaseInfo[]; latencyTableEntries: number } {
    return {
      databases: this.readers.map(({ reader, path }) => ({
        ...(path === undefined ? {} : { path }),
        databaseType: reader.metadata.databaseType,
        buildEpoch: reader.metadata.buildEpoch,
        ipVersion: reader.metadata.ipVersion,
      })),
      latencyTableEntries: this.table.size,
    };
  }

  locate(address: string): ClientGeo | undefined {
    return this.entry(address).geo;
  }

  latencyMs(address: string, geo: ClientGeo | undefined, region: string): number | undefined {
    const r = this.region(region);
    if (r === undefined) return undefined;
    if (this.table.size > 0) {
      const entry = this.entry(address);
      if (entry.prefixRows === undefined) entry.prefixRows = prefixRowsFor(this.table, entry.ip);
      const measured = measuredLatency(this.table, entry.prefixRows, geo, r.name);
      if (measured !== undefined) return measured;
    }
    const from = clientCoordinates(geo);
    // Rounded to 0.01 ms (about 0.8 km of path): readable in explanations, no effect on any real ranking.
    return from ? Math.round(estimateRttMs(haversineKm(from, r.point), this.distance) * 100) / 100 : undefined;
  }

  /** The region for a name as the core passes it (canonical already; display names tolerated), memoised. */
  private region(name: string): { name: string; point: LatLon } | undefined {
    let r = this.regions.get(name);
    if (r === undefined) {
      const found = findAzureRegion(name);
      r = found ? { name: found.name, point: { latitude: found.latitude, longitude: found.longitude } } : null;
      this.regions.set(name, r);
    }
    return r ?? undefined;
  }

  private entry(address: string): CacheEntry {
    let e = this.cache.get(address);
    if (e === undefined) {
      e = this.resolve(address);
      this.cache.set(address, e);
    }
    return e;
  }

  private resolve(address: string): CacheEntry {
    const parsed = parseIpBytes(address, GEO_IP_SYNTAX);
    if (!parsed) return { geo: undefined, ip: undefined };
    const ip = unwrapIpv4(parsed);
    if (isNonGlobal(ip)) return { geo: undefined, ip };
    const text = formatIp(ip);
    for (const { reader } of this.readers) {
      const geo = geoFromRecord(reader.get(text));
      if (!geo) continue;
      if (geo.latitude === undefined) {
        const point = clientCoordinates(geo);
        if (point) {
          geo.latitude = point.latitude;
          geo.longitude = point.longitude;
        }
      }
      return { geo: Object.freeze(geo), ip };
    }
    return { geo: undefined, ip };
  }
}
