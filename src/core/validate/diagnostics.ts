import { RULES, type RuleCode } from './catalog';

export type Severity = 'error' | 'warning';

/**
 * One problem found in a document. `path` addresses the offending value in ARM names with the profile and
 * endpoint *names* as keys (`profiles[contoso].endpoints[eu].priority`), falling back to the array index
 * (`profiles[3]`) when a name is missing; `$` is the document itself.
 */
export interface Diagnostic {
  severity: Severity;
  /** Stable UPPER_SNAKE code (see RULES). */
  code: string;
  path: string;
  /** Names the rule and the allowed values. */
  message: string;
  /** What to do about it. */
  hint?: string;
}

/** True when at least one diagnostic is an error (warnings alone never block). */
export function hasErrors(d: readonly Diagnostic[]): boolean {
  return d.some((x) => x.severity === 'error');
}

/** One line: `error  profiles[x].endpoints[y].priority  PRIORITY_RANGE  message (hint)`. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.severity}  ${d.path}  ${d.code}  ${d.message}${d.hint ? ` (${d.hint})` : ''}`;
}

/** Collects diagnostics; the severity comes from the rule catalog so a code never changes severity. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  report(code: RuleCode, path: string, message: string, hint?: string): void {
    const d: Diagnostic = { severity: RULES[code].severity, code, path, message };
    if (hint !== undefined) d.hint = hint;
    this.diagnostics.push(d);
  }
}
