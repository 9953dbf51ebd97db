/**
 * What plan-like commands (`plan`, `preview`, `apply`) share: the deployed state (from the server or an
 * offline file), the desired document (validated with stack scoping), the geo lookup for the preview, and
 * their common options. The planning itself is the client's deploy module.
 */
import { isIP } from 'node:net';
import type { Command } from 'commander';
import { parseResourceCatalog, toResourceCatalog } from '../../core/model/catalog';
import { normalize } from '../../core/model/normalize';
import type { Document, DocumentInput, Profile } from '../../core/model/types';
import type { Diagnostic } from '../../core/diagnostics';
import { desiredDocument, type DeployedProfile, type PlanReport } from '../../core/plan';
import type { ResourceCatalog } from '../../core/ports';
import { planReport, readDeployed, readDeployedFor, type DeployedState } from '../../client';
import { CliError, EXIT_USAGE } from '../errors';
import { renderText as renderDiagnostics } from './diagnostics';
import { readJsonFile } from './files';
import { openPreviewGeo } from './geo';
import { clientFor, SERVER_HELP, STATE_DIR_HELP } from './server';

export interface StateOptions {
  deployed?: string;
  server?: string;
  token?: string;
  stateDir?: string;
  resources?: string;
  geoip?: string;
}

export function addStateOptions(cmd: Command): Command {
  return cmd
    .option(
      '--deployed <file>',
      "plan against a local deployed state instead of the server: GET /v1/profiles output, or a tmkit/v1 document (e.g. the main branch's)",
    )
    .option('--server <url>', SERVER_HELP)
    .option('--token <token>', 'API token (default TMKIT_TOKEN, then <state-dir>/token for a local server)')
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--resources <file>', 'resource catalog for Azure endpoints (ARM id → target, location, state), as given to tmkit serve')
    .option(
      '--geoip <file.mmdb>',
      "MaxMind-format database for the preview's --clients addresses (default: the country database package, when installed)",
    );
}

/** `--clients IP,...` (repeatable), for the routing preview of `plan` and `preview`. */
export function addClientsOption(cmd: Command): Command {
  return cmd.option('--clients <ip,...>', 'routing preview: also show the answer for these client addresses (repeatable)', collectList, []);
}

function collectList(v: string, prev: string[]): string[] {
  return [
    ...prev,
    ...v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ];
}

/** The preview's clients from `--clients` (each labelled with its address); anything not an IP is a usage error. */
export function previewClients(clients: readonly string[]): Array<{ label: string; address: string }> {
  const bad = clients.filter((c) => isIP(c) === 0);
  if (bad.length > 0) throw new CliError(`--clients: not an IP address: ${bad.join(', ')}`, EXIT_USAGE);
  return clients.map((address) => ({ label: address, address }));
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A deployed-state file (`--deployed FILE`), in any of three shapes:
 * - the body of `GET /v1/profiles`: `{"profiles": [{"name", "stack", "etag", "profile"}]}`;
 * - a list of `{"profile", "etag", "stack"}`;
 * - a tmkit/v1 document (e.g. the main branch's tmkit.out.json): its profiles, its stack, ETag `"unknown"`.
 * Missing `stack` means `default`; a missing ETag is `"unknown"` (fine for review; `tmkit apply` of such a
 * plan is refused by the server's If-Match).
 */
export function parseDeployed(raw: unknown, file: string): DeployedProfile[] {
  if (isObj(raw) && typeof raw.apiVersion === 'string') {
    const doc = normalize(raw as unknown as DocumentInput);
    return doc.profiles.map((profile) => ({ profile, etag: '"unknown"', stack: doc.stack }));
  }
  const list = Array.isArray(raw) ? raw : isObj(raw) && Array.isArray(raw.profiles) ? raw.profiles : undefined;
  if (!list)
    throw new CliError(
      `--deployed ${file}: expected {"profiles": [...]} (GET /v1/profiles), a list of {"profile", "etag", "stack"}, or a tmkit/v1 document`,
    );
  return list.map((e, i) => {
    if (!isObj(e) || !isObj(e.profile) || typeof e.profile.name !== 'string') {
      throw new CliError(`--deployed ${file}: entry ${i} needs a "profile" object with a "name"`);
    }
    return {
      profile: e.profile as unknown as Profile,
      etag: typeof e.etag === 'string' ? e.etag : '"unknown"',
      stack: typeof e.stack === 'string' ? e.stack : 'default',
    };
  });
}

/** `--resources FILE`: the same catalog format `tmkit serve --resources` and `PUT /v1/resources` take (exit 1 when bad). */
export function readCatalog(file: string): ResourceCatalog {
  const { catalog, errors } = parseResourceCatalog(readJsonFile(file, 'resource catalog'));
  if (errors.length > 0)
    throw new CliError(`--resources ${file}: ${errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`);
  return toResourceCatalog(catalog);
}

/**
 * The deployed state and resource catalog: from `--deployed` (offline) or the server (`--server`,
 * TMKIT_SERVER). Given the raw document to plan, only the server's profiles that plan can touch are read
 * (readDeployedFor); without one, all of them.
 */
export async function loadState(opts: StateOptions, required: boolean, document?: unknown): Promise<DeployedState | undefined> {
  const resources = opts.resources !== undefined ? readCatalog(opts.resources) : undefined;
  if (opts.deployed !== undefined) {
    const deployed = parseDeployed(
      readJsonFile(
        opts.deployed,
        'deployed state',
        'write one with: curl -H "Authorization: Bearer $TMKIT_TOKEN" $TMKIT_SERVER/v1/profiles',
      ),
      opts.deployed,
    );
    return { deployed, ...(resources ? { resources } : {}), source: opts.deployed };
  }
  if (!required) return undefined;
  const client = clientFor(opts);
  try {
    const state = document === undefined ? await readDeployed(client) : await readDeployedFor(client, document);
    return resources ? { ...state, resources } : state;
  } catch (err) {
    throw new CliError(
      `cannot read the deployed profiles from ${client.server}: ${(err as Error).message} ` +
        '(start `tmkit serve`, set --server/TMKIT_SERVER and --token/TMKIT_TOKEN, or plan offline with --deployed FILE)',
    );
  } finally {
    await client.close();
  }
}

/**
 * The desired document of `raw` (read from `label`), validated against the deployed state with stack
 * scoping; prints every diagnostic and fails (exit 1) when it has errors; returns the warnings.
 */
export function requireDesired(
  raw: unknown,
  label: string,
  deployed: readonly DeployedProfile[],
  err: { write(s: string): unknown },
  words: { command?: string; after: string },
): { document: Document; warnings: Diagnostic[] } {
  const desired = desiredDocument(raw, deployed);
  if (!desired.document) {
    err.write(renderDiagnostics(desired.diagnostics, desired.profileNames));
    throw new CliError(
      `${words.command ? `${words.command}: ` : ''}${label} is not a valid document: ` +
        `fix the errors above (tmkit validate ${label} shows them too)${words.after}`,
    );
  }
  return { document: desired.document, warnings: desired.diagnostics.filter((d) => d.severity === 'warning') };
}

/** A document file's JSON (tmkit/v1 or Azure's), with the hint for a file that is not one. */
export function readDocumentFile(file: string): unknown {
  return readJsonFile(
    file,
    'document',
    'pass a tmkit/v1 document (tmkit synth writes tmkit.out.json) or the JSON Azure prints for a profile',
  );
}

/** `requireDesired` for a document file (or its JSON, already read with readDocumentFile). */
export function loadDesired(
  file: string,
  deployed: readonly DeployedProfile[] = [],
  raw: unknown = readDocumentFile(file),
): { document: Document; warnings: Diagnostic[] } {
  return requireDesired(raw, file, deployed, process.stderr, { after: ', then plan again' });
}

/** The plan report with the preview (when asked for): the deploy module's planReport with the MMDB opened. */
export async function makeReport(
  desired: Document,
  state: Omit<DeployedState, 'source'>,
  opts: {
    preview: boolean;
    geoip?: string | undefined;
    maxFailoverSeconds?: number;
    clients?: Array<{ label: string; address: string }>;
    warnings?: Diagnostic[];
  },
): Promise<PlanReport> {
  return planReport(desired, state, {
    ...(opts.preview ? { geo: await openPreviewGeo(opts.geoip, (opts.clients?.length ?? 0) > 0) } : {}),
    ...(opts.clients ? { clients: opts.clients } : {}),
    ...(opts.warnings ? { warnings: opts.warnings } : {}),
    ...(opts.maxFailoverSeconds !== undefined ? { maxFailoverSeconds: opts.maxFailoverSeconds } : {}),
  });
}

export function parseSeconds(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${flag} must be a whole number of seconds, 0 or more (got ${v})`, EXIT_USAGE);
  return n;
}

export function wantColor(flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag;
  return process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
}
