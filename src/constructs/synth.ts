/**
 * Synthesis and validation of a construct tree. Both are pure functions of the tree: they find the
 * profiles by walking `scope.node.findAll()` (so any root works: the tmkit `App`, a CDKTF
 * `TerraformStack`, a bare `Construct`), never write files and never read the environment.
 */
import type { IConstruct } from 'constructs';
import { canonicalDocumentInput } from '../core/model/arm-import';
import { API_VERSION, type DocumentInput } from '../core/model/types';
import { formatDiagnostic, validate, type Diagnostic } from '../core/validate';
import {
  displayPath,
  documentScopeOf,
  documentScopeSettings,
  isEndpointNode,
  isProfileNode,
  type DocumentScopeSettings,
  type ProfileNode,
} from './tree';

/** A validation diagnostic attached to the construct it is about. */
export interface ConstructDiagnostic extends Diagnostic {
  /** Path of the construct the diagnostic is about (`App/contoso/eu`); `/` for the root. */
  constructPath: string;
}

export interface SynthDocumentOptions {
  /** The document's `stack`. Default: the `stack` of the nearest document scope (the `App`), else omitted. */
  stack?: string;
}

export interface ValidateConstructsOptions extends SynthDocumentOptions {
  /** Add Azure-only rules (public targets). Default: the document scope's setting, else false. */
  strictAzure?: boolean;
}

/**
 * The profile constructs under `scope` (including `scope` itself), in document order: sorted by profile
 * name, ties (duplicate names, which validation reports) by construct path. Sorting by name keeps the
 * output stable when an app is refactored (a profile moved into a helper construct).
 */
export function findProfiles(scope: IConstruct): ProfileNode[] {
  return scope.node.findAll().filter(isProfileNode).sort((a, b) => {
    if (a.profileName !== b.profileName) return a.profileName < b.profileName ? -1 : 1;
    return a.node.path < b.node.path ? -1 : a.node.path > b.node.path ? 1 : 0;
  });
}

function settingsFor(scope: IConstruct): DocumentScopeSettings {
  return documentScopeSettings(scope) ?? {};
}

/**
 * The `tmkit/v1` document the profiles under `scope` describe: only what the props set (Azure's defaults
 * are applied by `normalize()` when the document is validated or deployed), keys in canonical order,
 * profiles sorted by name, endpoints in the order they were added (Azure derives priorities from it).
 * Does not validate; deterministic (same tree, same bytes).
 */
export function synthDocument(scope: IConstruct, options: SynthDocumentOptions = {}): DocumentInput {
  const stack = options.stack ?? settingsFor(scope).stack;
  const doc: DocumentInput = { apiVersion: API_VERSION, profiles: findProfiles(scope).map((p) => p.toProfileInput()) };
  if (stack !== undefined) doc.stack = stack;
  return canonicalDocumentInput(doc);
}

/** Which construct a document path (`profiles[x].endpoints[y].priority`) is about. */
function constructIndex(scope: IConstruct, profiles: ProfileNode[]): (path: string) => string[] {
  const prefixes: Array<{ prefix: string; construct: string }> = [];
  for (const p of profiles) {
    const pp = `profiles[${p.profileName}]`;
    prefixes.push({ prefix: pp, construct: displayPath(p) });
    for (const e of p.node.children.filter(isEndpointNode)) {
      prefixes.push({ prefix: `${pp}.endpoints[${e.endpointName}]`, construct: displayPath(e) });
    }
  }
  // Longest prefix first, so an endpoint wins over its profile.
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  const root = displayPath(scope);
  return (path: string) => {
    let best = -1;
    const out: string[] = [];
    for (const { prefix, construct } of prefixes) {
      if (best >= 0 && prefix.length < best) break;
      const next = path.charAt(prefix.length);
      if (path.startsWith(prefix) && (next === '' || next === '.' || next === '[')) {
        best = prefix.length;
        if (!out.includes(construct)) out.push(construct);
      }
    }
    return out.length > 0 ? out : [root];
  };
}

/**
 * Every diagnostic for the document the profiles under `scope` form, each attached to the construct it
 * is about (a diagnostic about two same-named profiles is attached to both). Errors and warnings.
 */
export function validateConstructs(scope: IConstruct, options: ValidateConstructsOptions = {}): ConstructDiagnostic[] {
  const profiles = findProfiles(scope);
  const doc = synthDocument(scope, options);
  const strictAzure = options.strictAzure ?? settingsFor(scope).strictAzure ?? false;
  const locate = constructIndex(scope, profiles);
  return validate(doc, { strictAzure }).flatMap((d) => locate(d.path).map((constructPath) => ({ ...d, constructPath })));
}

/** `[App/contoso/eu] error  profiles[contoso].endpoints[eu].priority  CODE  message (hint)`. */
export function formatConstructDiagnostic(d: ConstructDiagnostic): string {
  return `[${d.constructPath}] ${formatDiagnostic(d)}`;
}

// ---------------------------------------------------------------------------------------------------
// node.addValidation hooks

interface Session {
  diagnostics: ConstructDiagnostic[];
  /** True while `App` collects structured diagnostics itself: hooks then return nothing (no duplicates). */
  suppressHooks: boolean;
}

/** Active validation sessions by document scope; lets N hooks share one validation of the document. */
const sessions = new WeakMap<IConstruct, Session>();

/**
 * Runs `fn` with the document under `scope` validated once and shared by every hook below it (without a
 * session each hook validates the document itself: correct, but quadratic for huge trees).
 */
export function withValidationSession<T>(
  scope: IConstruct,
  options: ValidateConstructsOptions & { suppressHooks?: boolean },
  fn: (diagnostics: ConstructDiagnostic[]) => T,
): T {
  const previous = sessions.get(scope);
  const diagnostics = validateConstructs(scope, options);
  sessions.set(scope, { diagnostics, suppressHooks: options.suppressHooks ?? false });
  try {
    return fn(diagnostics);
  } finally {
    if (previous) sessions.set(scope, previous);
    else sessions.delete(scope);
  }
}

/**
 * Registers the whole-tree rules on construct `c`: `c.node.validate()` returns the error diagnostics about
 * `c` (warnings never fail a synth; `App.synth()` reports them). Called by every tmkit construct.
 */
export function addTreeValidation(c: IConstruct): void {
  c.node.addValidation({
    validate: (): string[] => {
      const scope = documentScopeOf(c);
      const session = sessions.get(scope);
      if (session?.suppressHooks) return [];
      const all = session?.diagnostics ?? validateConstructs(scope);
      const me = displayPath(c);
      return all.filter((d) => d.severity === 'error' && d.constructPath === me).map((d) => formatDiagnostic(d));
    },
  });
}
