/**
 * The catalog of every error and warning code that is not a validation rule (those are `RULES` in
 * validate/catalog.ts). One convention: UPPER_SNAKE, no prefix; a code's meaning never changes. The API
 * sends them in `{"errors":[{code,…}]}`, errors carry them as `.code`, and a test checks that every code
 * written in the source is in one of the two catalogs.
 */
export interface CodeInfo {
  family: 'api' | 'store' | 'catalog' | 'import' | 'plan' | 'lint' | 'constructs' | 'client' | 'cli' | 'geo' | 'dns' | 'probe';
  /** HTTP status when the API answers with this code. */
  status?: number;
  meaning: string;
}

const c = (family: CodeInfo['family'], meaning: string, status?: number): CodeInfo =>
  status === undefined ? { family, meaning } : { family, meaning, status };

export const CODES = {
  // Management API (docs/api.md)
  UNAUTHORIZED: c('api', 'Missing or wrong bearer token.', 401),
  TOKEN_TOO_SHORT: c('api', 'TMKIT_TOKEN is shorter than 16 characters: too easy to guess for a token that guards the whole API.'),
  NOT_FOUND: c('api', 'The profile or endpoint does not exist.', 404),
  ROUTE_NOT_FOUND: c('api', 'No API route at this path.', 404),
  METHOD_NOT_ALLOWED: c('api', 'The route exists but not with this method (see the Allow header).', 405),
  MALFORMED_JSON: c('api', 'The body is not valid JSON, not UTF-8, or empty.', 400),
  JSON_TOO_DEEP: c('api', 'The body nests objects/arrays deeper than 64 levels.', 400),
  BAD_REQUEST: c('api', 'A request parameter or body field is invalid.', 400),
  NAME_MISMATCH: c('api', 'The body names another profile or endpoint than the URL.', 400),
  PAYLOAD_TOO_LARGE: c('api', 'The body is larger than the limit.', 413),
  PRECONDITION_FAILED: c('api', 'If-Match / If-None-Match did not hold: someone else changed (or created) the object.', 412),
  STACK_CONFLICT: c('api', 'The profile is owned by another stack.', 409),
  PROFILE_REFERENCED: c('api', 'The profile is still the child of a nested endpoint.', 409),
  PROFILE_INVALID: c('api', 'The profile breaks validation rules; the diagnostics name each path and rule.', 400),
  PROFILE_NAME_CONFLICT: c('api', 'A profile with the same name in another case exists (names are case-insensitive).', 409),
  NOT_AVAILABLE: c('api', 'The server has no component attached for this route.', 503),
  TOO_MANY_STREAMS: c('api', 'Too many event streams (GET /v1/events) are open.', 429),
  TOO_MANY_AUTH_FAILURES: c('api', 'Too many failed token checks from this address: wait Retry-After seconds.', 429),
  HEALTH_NOT_APPLICABLE: c(
    'api',
    'Health cannot be pushed to this endpoint: it is nested or has Always Serve (its status is not decided by health).',
    409,
  ),
  WEBHOOK_NOT_ALLOWED: c(
    'api',
    'The webhook URL is refused: not http(s), or a loopback/private address without serve --webhook-allow-private.',
    400,
  ),
  INTERNAL: c('api', 'An unexpected server error (the server log has the details).', 500),
  OVERRIDE_UNSAFE: c(
    'api',
    'A down override would leave a profile with no endpoint able to serve (the safety rule); force it to take the endpoint out anyway.',
    409,
  ),
  ENDPOINT_UNSAFE: c(
    'api',
    'An endpoint PATCH (tmkit endpoint disable) would leave a profile with no endpoint able to serve (the safety rule, as for a down override); ?force=true does it anyway.',
    409,
  ),
  NOT_AWAITING_FAILBACK: c(
    'api',
    "The endpoint is neither AwaitingFailback nor Degraded, or its profile's failback mode is not Manual: there is nothing to fail back.",
    409,
  ),
  SHIFT_HELD: c('api', 'Another tmkit shift holds the endpoint (one shift per endpoint at a time): wait for it to end, or cancel it.', 409),
  SHIFT_CANCELLED: c('api', 'The shift was cancelled (tmkit shift --cancel): it rolls back its steps and ends.', 409),
  SHIFT_LOST: c('api', 'The shift no longer holds the endpoint: its hold lapsed (not renewed in time) or ended.', 409),
  // Store
  STORAGE_FULL: c('store', 'The disk of the state dir is full (SQLITE_FULL); free space and retry.', 507),
  STORAGE_READ_ONLY: c('store', "The store's file or file system is read-only.", 503),
  STORAGE_IO_ERROR: c('store', 'The store could not be written (I/O error).', 503),
  STATE_DIR_LOCKED: c('store', 'Another tmkit serve holds the state dir.'),
  STORE_EMPTY: c('store', 'tmkit.db is empty or uninitialised in a state dir that was used before (--force-empty to start empty).'),
  STORE_UNAVAILABLE: c(
    'store',
    'etcd cannot be reached: the write was not stored (DNS keeps answering from the last state); retry when etcd is back.',
    503,
  ),
  STORE_CORRUPT: c('store', 'The store holds data that cannot be read.'),
  STORE_VERSION: c('store', 'The store was written by a newer tmkit.'),
  STORE_DRIVER: c(
    'store',
    'The database needs the other SQLite driver (a WAL file written with node:sqlite, read by the wasm driver of Node 20 while another tmkit uses it).',
  ),
  STORE_BUSY: c('store', 'The database stayed locked by another process (SQLITE_BUSY) past the wait; retry.'),
  SQLITE_DRIVER_UNAVAILABLE: c(
    'store',
    'TMKIT_SQLITE_DRIVER names a driver this Node.js cannot use (node needs node:sqlite, Node 22.13+).',
  ),
  // Resource catalog (README.md, Concepts)
  CATALOG_SHAPE: c('catalog', 'The resource catalog is a JSON object mapping ARM ids to resources (or an array of them).', 400),
  CATALOG_ID: c('catalog', 'A resource needs an ARM id.', 400),
  CATALOG_DUPLICATE: c('catalog', 'An ARM id appears twice (ids compare case-insensitively).', 400),
  CATALOG_ENTRY: c('catalog', 'A resource is an object {target, location?, state?}.', 400),
  CATALOG_TARGET: c('catalog', 'A resource needs a target (FQDN or IP).', 400),
  CATALOG_STATE: c('catalog', 'A resource state is "running" or "stopped".', 400),
  CATALOG_LOCATION: c('catalog', 'A resource location is an Azure region name.', 400),
  // ARM import (`tmkit import`)
  ARM_IMPORT_UNRECOGNIZED: c('import', 'The input is neither Azure profile JSON, an ARM template nor a tmkit document.'),
  ARM_IMPORT_NO_PROFILES: c('import', 'The input holds no Traffic Manager profile.'),
  ARM_IMPORT_NO_NAME: c('import', 'A profile or endpoint has no name.'),
  ARM_IMPORT_ENDPOINT_TYPE: c('import', 'An endpoint type is not a Traffic Manager endpoint type.'),
  ARM_IMPORT_EXPRESSION: c('import', 'An ARM template expression cannot be evaluated offline.'),
  ARM_IMPORT_LOCATION: c('import', 'A location is not a known Azure region.'),
  ARM_IMPORT_NESTED_TARGET: c('import', "A nested endpoint's targetResourceId does not name a profile."),
  ARM_IMPORT_NESTED_OUTSIDE: c('import', 'A nested endpoint points at a profile outside the input.'),
  ARM_IMPORT_ORPHAN_ENDPOINT: c('import', 'An endpoint resource names no profile of the input.'),
  ARM_IMPORT_UNKNOWN_PROPERTY: c('import', 'A property tmkit does not model (ignored).'),
  // Plan (`tmkit plan`, `tmkit apply`)
  PLAN_DUPLICATE_PROFILE: c('plan', 'Two profiles of the document have the same name.'),
  PLAN_PROFILE_OWNED_BY_OTHER_STACK: c('plan', 'A profile of the document is owned by another stack.'),
  PLAN_RELATIVE_NAME_TAKEN: c('plan', "Another stack's profile answers at the same relativeName."),
  PLAN_NESTED_TARGET_MISSING: c('plan', 'A nested endpoint points at a profile that neither the document nor the runtime has.'),
  PLAN_DELETE_REFERENCED: c('plan', 'A profile to destroy is still nested by a profile that stays.'),
  PLAN_ORDER_CYCLE: c('plan', 'The changes cannot be ordered into steps the runtime accepts one by one.'),
  PLAN_STALE: c('plan', 'The deployed state changed since the plan was made.'),
  PLAN_REFUSED: c('plan', 'The plan has errors and cannot be applied.'),
  PLAN_FILE_INVALID: c('plan', 'A plan file is not valid JSON or not a tmkit plan.'),
  PLAN_FILE_NOT_A_PLAN: c('plan', 'The file is not a tmkit plan (kind).'),
  PLAN_FILE_VERSION: c('plan', "The plan file's formatVersion is not supported."),
  // Plan lints (warnings)
  AZURE_PRIORITY_SWAP: c(
    'plan',
    'An azurerm plan gives an endpoint a priority another endpoint holds until its own update: Terraform updates them one by one, and Azure refuses a duplicate priority on the way.',
  ),
  LINT_TTL_EXCEEDS_DETECTION: c('lint', 'The TTL keeps clients on a failed endpoint longer than detection takes.'),
  LINT_SUBNET_WITHOUT_FALLBACK: c('lint', 'A Subnet profile has no fallback endpoint.'),
  LINT_MIN_CHILD_ENDPOINTS_UNREACHABLE: c('lint', 'minChildEndpoints can never be met by the child.'),
  LINT_GEOGRAPHIC_WITHOUT_WORLD: c('lint', 'A Geographic profile maps no endpoint to WORLD.'),
  // Plan: live health of the server planned against (warnings)
  LIVE_NO_ONLINE_ENDPOINT: c('lint', 'With the live health now, the planned change leaves a profile with no endpoint Online.'),
  // Constructs
  INVALID_PROPS: c('constructs', 'A construct was created with props that break a rule of its own.'),
  SYNTH_INVALID: c('constructs', 'The construct tree has errors; nothing was written.'),
  CONSTRUCT_VALIDATION: c('constructs', "A construct's own validation (node.addValidation) failed."),
  ROUTING_TEST_INVALID: c(
    'constructs',
    'A routing test (profile.expect, RoutingTest) is malformed or names a profile, endpoint or location the document does not have.',
  ),
  // Client
  UNREACHABLE: c('client', 'The server could not be reached (after retries).'),
  // Client: resource-level writes of the providers (src/client/resources.ts)
  RESOURCE_EXISTS: c(
    'client',
    "A create found this stack's profile or endpoint already there with other content " +
      '(import it instead; the same content, a create whose answer was lost, is adopted).',
  ),
  RESOURCE_NOT_OWNED: c('client', 'The profile belongs to another stack (a create of that name too); a provider never writes it.'),
  RESOURCE_CHANGED: c(
    'client',
    'Someone else changed the profile or endpoint since the provider last read it; nothing was written (refresh, then apply).',
  ),
  RESOURCE_GONE: c(
    'client',
    'Someone else deleted the profile or endpoint since the provider last read it; nothing was written (refresh, then apply).',
  ),
  RESOURCE_HAS_ENDPOINTS: c('client', 'A profile to delete still has endpoints that are not managed with it.'),
  RESOURCE_PROFILE_MISSING: c('client', 'The profile an endpoint is written into does not exist (create the profile first).'),
  RESOURCE_MIXED: c(
    'client',
    'A Terraform profile with inline endpoint blocks also has separate endpoint resources (declare its endpoints one way).',
  ),
  // CLI
  USAGE: c('cli', 'A command was called wrongly (exit code 2).'),
  FAILED: c('cli', 'A command failed (exit code 1).'),
  // Geo
  GEO_DATABASE_INVALID: c('geo', 'The MMDB database is missing, unreadable or not an MMDB file.'),
  GEO_DB_MISSING: c(
    'geo',
    'The default country database package (DEFAULT_COUNTRY_DATABASE_PACKAGE, an optional ' +
      'peer dependency) is not installed; serve and dns need it (or --geoip FILE.mmdb).',
  ),
  GEO_LATENCY_TABLE_INVALID: c('geo', 'The latency table is missing, not JSON or breaks a rule.'),
  // DNS server
  DNSSEC_OFF: c('dns', 'DNSSEC is not enabled on this server (tmkit serve --dnssec).', 404),
  DNSSEC_ROLLOVER: c('dns', 'The DNSSEC rollover step cannot be taken now (one is under way, or nothing waits to be finished).', 409),
  COOKIES_OFF: c('dns', 'DNS cookies are off on this server (tmkit serve --no-cookies).', 404),
  COOKIES_ROTATION: c('dns', 'The DNS cookie secret kept changing under the rotation (other nodes rotating); retry.', 409),
  DNSSEC_KEYS: c('dns', 'The DNSSEC keys cannot be read, created or used (another zone, algorithm or key mode, or a damaged key file).'),
  DNS_ZONE_INVALID: c('dns', 'The zone configuration (--zone, --ns, --soa-rname) is invalid.'),
  DNS_ZONE_EMPTY: c('dns', 'The zone is empty.'),
  DNS_ZONE_NAME: c('dns', 'The zone apex, an NS name or the SOA names are not valid domain names.'),
  DNS_ZONE_SOA: c('dns', 'An SOA field is not a whole number in range (serial 32 bits, timers and TTL).'),
  DNS_ZONE_NS_ADDRESS: c('dns', 'Glue addresses were given for an NS name outside the zone, or are not IP addresses.'),
  DNS_LISTEN_ADDRESS: c('dns', 'A DNS listen address is not an IP literal.'),
  DNS_NOT_LISTENING: c('dns', 'The DNS server was asked for its addresses before it listens.'),
  DNS_ENCODE_NAME: c('dns', 'A name in a DNS answer has no wire form (empty label, label over 63 or name over 255 octets, bad escape).'),
  DNS_ENCODE_DATA: c(
    'dns',
    'A record in a DNS answer has data with no wire form (not an address for A/AAAA, TTL or SOA field out of range).',
  ),
  // Prober (internal: turned into probe failure reasons)
  PROBE_TIMEOUT: c('probe', 'The probe ran out of time.'),
  PROBE_ABORTED: c('probe', 'The probe was aborted (stop or settings change).'),
  PROBE_DONE: c('probe', 'The probe finished (cleanup signal).'),
  PROBE_NO_CERTIFICATE: c('probe', 'An HTTPS endpoint presented no certificate.'),
  PROBE_CERTIFICATE: c(
    'probe',
    'certificateValidation Enabled: the certificate is expired, not yet valid, untrusted or for another host name.',
  ),
  PROBE_NO_STATUS: c('probe', 'The response ended without a status line.'),
  PROBE_NO_ADDRESS: c('probe', 'The target name resolved to no address.'),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof CODES;
