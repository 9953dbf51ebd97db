/**
 * The geo database as the CLI needs it. The default country database is an optional peer dependency:
 * `serve` and `dns` place real DNS clients and refuse to start without it (or `--geoip`); the routing
 * preview places its own clients and needs it only for `--clients` addresses.
 */
import type { GeoLookup } from '../../core/ports';
import { countryDatabaseInstalled, geoDatabaseMissing, GeoError, MmdbGeoLookup } from '../../geo';
import { CliError } from '../errors';

/** `<message> [CODE]` for a geo error (the code is what scripts and issues quote), the message otherwise. */
export function geoMessage(err: unknown): string {
  return err instanceof GeoError ? `${err.message} [${err.code}]` : (err as Error).message;
}

/**
 * Fails (exit 1, GEO_DB_MISSING) before anything is opened when the command would need the default
 * country database and it is not installed. With `--geoip FILE` the city database is used alone.
 */
export function requireGeoDatabase(command: string, geoip: string | undefined): void {
  if (geoip === undefined && !countryDatabaseInstalled()) throw new CliError(`${command}: ${geoMessage(geoDatabaseMissing())}`);
}

/**
 * The lookup for a routing preview. Without `--geoip` and without the default database, the preview still
 * works (its region clients carry their own location) unless real addresses are to be placed (`--clients`).
 */
export async function openPreviewGeo(geoip: string | undefined, placesAddresses: boolean): Promise<GeoLookup> {
  if (geoip === undefined && !countryDatabaseInstalled()) {
    if (placesAddresses) throw new CliError(`--clients needs a geo database to place the addresses: ${geoMessage(geoDatabaseMissing())}`);
    return MmdbGeoLookup.withoutDatabase();
  }
  try {
    return await MmdbGeoLookup.open(geoip !== undefined ? { geoip } : {});
  } catch (err) {
    throw new CliError(`cannot open the geo database${geoip ? ` ${geoip}` : ''}: ${geoMessage(err)}`);
  }
}
