import { TmkitError } from '../core/diagnostics';

/** Stable error codes of the geo layer (tests and callers match on `code`, never on the message). */
export type GeoErrorCode =
  /** The MMDB file is missing, unreadable or not an MMDB database. */
  | 'GEO_DATABASE_INVALID'
  /** The default country database package (an optional peer dependency of tmkit) is not installed. */
  | 'GEO_DB_MISSING'
  /** The measured latency table file is missing, not JSON, or breaks a rule (see `issues`). */
  | 'GEO_LATENCY_TABLE_INVALID';

export class GeoError extends TmkitError {
  declare readonly code: GeoErrorCode;
  constructor(
    code: GeoErrorCode,
    message: string,
    /** The file concerned. */
    readonly path?: string,
    /** Every problem found, one line each (`<path>: <where>: <rule>`), for tables with several. */
    readonly issues: readonly string[] = [],
  ) {
    super(code, message);
  }
}
