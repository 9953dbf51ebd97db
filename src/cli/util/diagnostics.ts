/** Printing diagnostics (core's one Diagnostic) for people (`text`, grouped by profile) and machines (`json`). */
import type { Diagnostic } from '../../core/diagnostics';
import { count } from '../../core/words';

export interface DiagnosticGroup {
  /** The profile name, or undefined for diagnostics about the document as a whole. */
  profile?: string;
  diagnostics: Diagnostic[];
}

/**
 * The profile a diagnostic path is about: the longest known profile name `n` with the path starting with
 * `profiles[n]` followed by the end, `.` or `[` (names may contain `.`, so no regex parsing). Paths that
 * fall back to an index (`profiles[3]`) or `$` belong to no known profile.
 */
export function profileOf(path: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const n of names) {
    const prefix = `profiles[${n}]`;
    const next = path.charAt(prefix.length);
    if (path.startsWith(prefix) && (next === '' || next === '.' || next === '[') && (best === undefined || n.length > best.length))
      best = n;
  }
  return best;
}

/** Groups diagnostics by profile: profiles in document order, then the document-level group. */
export function groupByProfile(diagnostics: readonly Diagnostic[], names: readonly string[]): DiagnosticGroup[] {
  const groups = new Map<string | undefined, Diagnostic[]>();
  for (const n of names) groups.set(n, []);
  groups.set(undefined, []);
  for (const d of diagnostics) groups.get(profileOf(d.path, names))!.push(d);
  return [...groups]
    .filter(([, ds]) => ds.length > 0)
    .map(([profile, ds]) => (profile === undefined ? { diagnostics: ds } : { profile, diagnostics: ds }));
}

export function countSeverities(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number } {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { errors, warnings: diagnostics.length - errors };
}

export function summary(diagnostics: readonly Diagnostic[]): string {
  const { errors, warnings } = countSeverities(diagnostics);
  return `${count(errors, 'error')}, ${count(warnings, 'warning')}`;
}

/**
 * Text report: one block per profile, one line per diagnostic (`error  path  CODE  message`), hints on
 * their own indented line. Errors before warnings within a group; otherwise the validator's order.
 */
export function renderText(diagnostics: readonly Diagnostic[], names: readonly string[]): string {
  const lines: string[] = [];
  for (const g of groupByProfile(diagnostics, names)) {
    lines.push(g.profile === undefined ? 'document' : `profile ${g.profile}`);
    const sorted = [...g.diagnostics].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
    for (const d of sorted) {
      lines.push(`  ${d.severity.padEnd(7)} ${d.path}  ${d.code}  ${d.message}`);
      if (d.hint) lines.push(`          hint: ${d.hint}`);
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
