/**
 * One vocabulary of results. Every problem tmkit reports — validation, ARM import, the plan, the API's error
 * body, the client's errors, the CLI's printer, the providers' diagnostics — is a `Diagnostic`; every error
 * tmkit throws is a `TmkitError` with a stable UPPER_SNAKE `code` from the catalogs (`RULES` for validation
 * rules, `CODES` for everything else), so callers match on codes, never on messages.
 */
import type { ErrorCode } from './codes';

export type Severity = 'error' | 'warning';

/**
 * One problem. `path` addresses the offending value in ARM names with profile and endpoint *names* as keys
 * (`profiles[contoso].endpoints[eu].priority`), falling back to the array index (`profiles[3]`) when a
 * name is missing; `$` is the document itself; `''` when the problem is not about one place (an expired
 * token, an unreachable server).
 */
export interface Diagnostic {
  severity: Severity;
  /** Stable UPPER_SNAKE code: a rule of `RULES` or an entry of `CODES`. */
  code: string;
  path: string;
  /** Names the rule and the allowed values. */
  message: string;
  /** What to do about it. */
  hint?: string;
  /** The profile the problem concerns, when one does (the plan and the CLI group by it). */
  profile?: string;
}

/** True when at least one diagnostic is an error (warnings alone never block). */
export function hasErrors(d: readonly Diagnostic[]): boolean {
  return d.some((x) => x.severity === 'error');
}

/** One line: `error  profiles[x].endpoints[y].priority  PRIORITY_RANGE  message (hint)`. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.severity}  ${d.path}  ${d.code}  ${d.message}${d.hint ? ` (${d.hint})` : ''}`;
}

/** An error diagnostic not tied to a rule of the validator (API, store, plan, import problems). */
export function problem(
  code: ErrorCode,
  message: string,
  extra: { path?: string; hint?: string; profile?: string; severity?: Severity } = {},
): Diagnostic {
  const d: Diagnostic = { severity: extra.severity ?? 'error', code, path: extra.path ?? '', message };
  if (extra.hint !== undefined) d.hint = extra.hint;
  if (extra.profile !== undefined) d.profile = extra.profile;
  return d;
}

/**
 * The base of every error tmkit throws. `code` is stable (from `CODES`, or a server's code for client
 * errors); `diagnostics` carries every problem when there are several (a refused write, an invalid tree).
 */
export class TmkitError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}
