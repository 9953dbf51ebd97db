import type { Diagnostic } from '../diagnostics';
import { RULES, type RuleCode } from './catalog';

/** Collects diagnostics; the severity comes from the rule catalog so a code never changes severity. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  report(code: RuleCode, path: string, message: string, hint?: string): void {
    const d: Diagnostic = { severity: RULES[code].severity, code, path, message };
    if (hint !== undefined) d.hint = hint;
    this.diagnostics.push(d);
  }
}
