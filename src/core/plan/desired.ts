/**
 * The desired state a plan is made for, with stack scoping (README.md, Concepts): the document is validated with the
 * *other* stacks' deployed profiles as context (a document may nest them, and their relativeNames are
 * taken), but not with its own stack's, which the plan replaces. Used by `tmkit plan`, `tmkit apply`,
 * `serve --apply`, `plan --from-terraform` and the providers.
 */
import type { Diagnostic } from '../diagnostics';
import { documentSource, profileNames } from '../model/input';
import { DEFAULT_STACK, type Document } from '../model/types';
import { parseDocument } from '../validate';
import type { DeployedProfile } from './types';

export interface DesiredDocument {
  /** Undefined when the input has errors (every one is in `diagnostics`). */
  document?: Document;
  /** Import problems and validation diagnostics, errors first as found. */
  diagnostics: Diagnostic[];
  /** The input's profile names (for grouping diagnostics by profile). */
  profileNames: string[];
}

/** The stack a raw document input names (`default` when it names none). */
export function documentStack(input: unknown): string {
  const s = (input as { stack?: unknown } | null)?.stack;
  return typeof s === 'string' ? s : DEFAULT_STACK;
}

/** Deployed profiles a document of `stack` is validated against: other stacks', minus names it declares itself. */
export function validationContext(
  stack: string,
  names: readonly string[],
  deployed: readonly DeployedProfile[],
): DeployedProfile['profile'][] {
  const own = new Set(names);
  return deployed.filter((d) => d.stack !== stack && !own.has(d.profile.name)).map((d) => d.profile);
}

/** Imports (ARM JSON) and validates `raw` against the deployed state; `document` is set only when valid. */
export function desiredDocument(raw: unknown, deployed: readonly DeployedProfile[]): DesiredDocument {
  const source = documentSource(raw);
  const names = profileNames(source.input);
  const context = validationContext(documentStack(source.input), names, deployed);
  const parsed = parseDocument(source.input, context.length > 0 ? { context } : {});
  const diagnostics = [...source.importIssues, ...parsed.diagnostics];
  const ok = parsed.document !== undefined && !diagnostics.some((d) => d.severity === 'error');
  return { ...(ok ? { document: parsed.document } : {}), diagnostics, profileNames: names };
}
