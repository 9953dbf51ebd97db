/**
 * Synthesis and validation of a construct tree. Both are pure functions of the tree: they find the
 * profiles by walking `scope.node.findAll()` (so any root works: the tmkit `App`, a CDKTF
 * `TerraformStack`, a bare `Construct`), never write files and never read the environment.
 */
import type { IConstruct } from 'constructs';
import { canonicalDocumentInput } from '../core/model/arm-import';
import { API_VERSION, type DocumentInput } from '../core/model/types';
import { formatDiagnostic, validate, type Diagnostic } from '../core/validate';
import type { PropChecker } from './props-check';
import {
  displayPath,
  documentScopeOf,
  documentScopeSettings,
  isEndpointNode,
  isProfileNode,
  markRejected,
  rejectedProps,
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
  return scope.node
    .findAll()
    .filter(isProfileNode)
    .sort((a, b) => {
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
  return documentOf(scope, findProfiles(scope), options);
}

function documentOf(scope: IConstruct, profiles: readonly ProfileNode[], options: SynthDocumentOptions): DocumentInput {
  const stack = options.stack ?? settingsFor(scope).stack;
  const doc: DocumentInput = { apiVersion: API_VERSION, profiles: profiles.map((p) => p.toProfileInput()) };
  if (stack !== undefined) doc.stack = stack;
  return canonicalDocumentInput(doc);
}

/** Which construct(s) a document path (`profiles[x].endpoints[y].priority`) is about. */
function constructIndex(scope: IConstruct, profiles: ProfileNode[]): (path: string) => string[] {
  const byPrefix = new Map<string, string[]>();
  const add = (prefix: string, construct: string): void => {
    const list = byPrefix.get(prefix);
    if (!list) byPrefix.set(prefix, [construct]);
    else if (!list.includes(construct)) list.push(construct);
  };
  for (const p of profiles) {
    const pp = `profiles[${p.profileName}]`;
    add(pp, displayPath(p));
    for (const e of p.node.children.filter(isEndpointNode)) add(`${pp}.endpoints[${e.endpointName}]`, displayPath(e));
  }
  const root = [displayPath(scope)];
  // Candidate prefixes end at a `]` followed by the end, `.` or `[`; the longest known one wins (an
  // endpoint over its profile). Names may contain `.`, `[` or `]`, hence no parsing, just lookups.
  return (path: string) => {
    for (let i = path.length - 1; i >= 0; i--) {
      if (path.charCodeAt(i) !== 93 /* ] */) continue;
      const next = path.charAt(i + 1);
      if (next !== '' && next !== '.' && next !== '[') continue;
      const hit = byPrefix.get(path.slice(0, i + 1));
      if (hit) return hit;
    }
    return root;
  };
}

/**
 * Every diagnostic for the document the profiles under `scope` form, each attached to the construct it
 * is about (a diagnostic about two same-named profiles is attached to both). Errors and warnings.
 */
export function validateConstructs(scope: IConstruct, options: ValidateConstructsOptions = {}): ConstructDiagnostic[] {
  const profiles = findProfiles(scope);
  const doc = documentOf(scope, profiles, options);
  const strictAzure = options.strictAzure ?? settingsFor(scope).strictAzure ?? false;
  const locate = constructIndex(scope, profiles);
  return [
    ...rejectedDiagnostics(scope),
    ...validate(doc, { strictAzure }).flatMap((d) => locate(d.path).map((constructPath) => ({ ...d, constructPath }))),
  ];
}

/**
 * One `INVALID_PROPS` error per construct under `scope` whose constructor rejected its props. User code
 * may catch the `InvalidPropsError`; the construct then stays in the tree (constructs cannot be removed
 * reliably), is left out of the document, and synthesis fails with this error instead of crashing — a
 * document silently missing a profile would make a plan destroy it.
 */
function rejectedDiagnostics(scope: IConstruct): ConstructDiagnostic[] {
  const out: ConstructDiagnostic[] = [];
  for (const c of scope.node.findAll()) {
    const r = rejectedProps(c);
    if (!r) continue;
    out.push({
      severity: 'error',
      code: 'INVALID_PROPS',
      path: r.path,
      constructPath: displayPath(c),
      message: `${r.constructType} props were rejected when it was created: ${r.problems.join('; ')}`,
      hint: 'fix the props where the construct is created (its InvalidPropsError was caught); it is left out of the document',
    });
  }
  return out;
}

/**
 * Ends a constructor whose props failed `checker`: records the problems on the construct (so synthesis
 * reports them even when user code catches the error), registers its validation hook, and throws the
 * `InvalidPropsError`. Returns normally when there is no problem.
 */
export function rejectIfInvalid(c: IConstruct, checker: PropChecker, constructType: string, path: string): void {
  if (checker.problems.length === 0) return;
  markRejected(c, { problems: [...checker.problems], path, constructType });
  addTreeValidation(c);
  checker.throwIfAny();
}

/** `[App/contoso/eu] error  profiles[contoso].endpoints[eu].priority  CODE  message (hint)`. */
export function formatConstructDiagnostic(d: ConstructDiagnostic): string {
  return `[${d.constructPath}] ${formatDiagnostic(d)}`;
}

// ---------------------------------------------------------------------------------------------------
// node.addValidation hooks

interface Session {
  diagnostics: ByConstruct;
  /** True while `App` collects structured diagnostics itself: hooks then return nothing (no duplicates). */
  suppressHooks: boolean;
}

/** Active validation sessions by document scope. */
const sessions = new WeakMap<IConstruct, Session>();

/**
 * Outside a session (a foreign framework calling `node.validate()` on every construct), hooks share the
 * last validation of their document scope until a tmkit construct is created anywhere: the document is a
 * function of the tmkit constructs alone (their props are copied and frozen at construction), so a new
 * construct is the only way it changes. (Removing constructs with `node.tryRemoveChild` is not tracked.)
 */
let treeGeneration = 0;
const hookCache = new WeakMap<IConstruct, { generation: number; diagnostics: ByConstruct }>();

/** Error diagnostics by construct path (hooks only report errors). */
type ByConstruct = Map<string, ConstructDiagnostic[]>;

function byConstruct(diagnostics: readonly ConstructDiagnostic[]): ByConstruct {
  const out: ByConstruct = new Map();
  for (const d of diagnostics) {
    if (d.severity !== 'error') continue;
    const list = out.get(d.constructPath);
    if (list) list.push(d);
    else out.set(d.constructPath, [d]);
  }
  return out;
}

function cachedDiagnostics(scope: IConstruct): ByConstruct {
  const hit = hookCache.get(scope);
  if (hit && hit.generation === treeGeneration) return hit.diagnostics;
  const diagnostics = byConstruct(validateConstructs(scope));
  hookCache.set(scope, { generation: treeGeneration, diagnostics });
  return diagnostics;
}

/**
 * Runs `fn` with the document under `scope` validated once (with `options`) and shared by every hook
 * below it; with `suppressHooks` the hooks return nothing, so a caller that collects the structured
 * diagnostics itself can still walk `node.validate()` for other constructs' validations (App does).
 */
export function withValidationSession<T>(
  scope: IConstruct,
  options: ValidateConstructsOptions & { suppressHooks?: boolean },
  fn: (diagnostics: ConstructDiagnostic[]) => T,
): T {
  const previous = sessions.get(scope);
  const diagnostics = validateConstructs(scope, options);
  sessions.set(scope, { diagnostics: byConstruct(diagnostics), suppressHooks: options.suppressHooks ?? false });
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
  treeGeneration++;
  addHook(c, () => documentScopeOf(c));
  // Diagnostics about the document as a whole (path `$`, limits) belong to the document scope: give it
  // a hook too (once), so a foreign framework's node.validate() walk reports them as well.
  const scope = documentScopeOf(c);
  if (!scopesWithHook.has(scope)) {
    scopesWithHook.add(scope);
    addHook(scope, () => scope);
  }
}

const scopesWithHook = new WeakSet<IConstruct>();

function addHook(c: IConstruct, scopeOf: () => IConstruct): void {
  c.node.addValidation({
    validate: (): string[] => {
      const scope = scopeOf();
      const session = sessions.get(scope);
      if (session?.suppressHooks) return [];
      const all = session?.diagnostics ?? cachedDiagnostics(scope);
      return (all.get(displayPath(c)) ?? []).map((d) => formatDiagnostic(d));
    },
  });
}
