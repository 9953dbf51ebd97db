import type { ErrorCode } from '../../core/codes';
import { TmkitError, type Diagnostic } from '../../core/diagnostics';

/** An HTTP failure with the body to send; thrown by handlers, rendered by the server as `{"errors": [...]}`. */
export class ApiProblem extends TmkitError {
  constructor(
    readonly status: number,
    readonly errors: Diagnostic[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors[0]?.code ?? 'INTERNAL', errors.map((e) => e.message).join('; '), errors);
  }

  static of(
    status: number,
    code: ErrorCode,
    message: string,
    extra: { path?: string; hint?: string } = {},
    headers: Record<string, string> = {},
  ): ApiProblem {
    const d: Diagnostic = { severity: 'error', code, path: extra.path ?? '', message };
    if (extra.hint !== undefined) d.hint = extra.hint;
    return new ApiProblem(status, [d], headers);
  }
}
