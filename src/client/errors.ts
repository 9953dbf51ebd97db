import { TmkitError, type Diagnostic } from '../core/diagnostics';
import { count } from '../core/words';

/**
 * The server refused or failed a request. `code` is stable: the first server error code (e.g.
 * `PRECONDITION_FAILED`, `STACK_CONFLICT`, a validation rule such as `PRIORITY_DUPLICATE`), or
 * `HTTP_<status>` when the body had none. `errors` holds every diagnostic the server sent.
 */
export class TmkitApiError extends TmkitError {
  constructor(
    readonly status: number,
    readonly errors: Diagnostic[],
    readonly method: string,
    readonly url: string,
  ) {
    super(errors[0]?.code ?? `HTTP_${status}`, TmkitApiError.describe(status, errors, method, url), errors);
  }

  private static describe(status: number, errors: readonly Diagnostic[], method: string, url: string): string {
    const head = `${method} ${url} failed with HTTP ${status}`;
    if (errors.length === 0) return head;
    return `${head}:\n${errors.map((e) => `  ${e.path ? `${e.path}: ` : ''}${e.message}${e.hint ? ` (${e.hint})` : ''} [${e.code}]`).join('\n')}`;
  }
}

/** The server could not be reached (after the retries). `code` is always `UNREACHABLE`. */
export class TmkitConnectionError extends TmkitError {
  /** `setting`: how the caller's users set the server (the CLI's `--server`; a provider's own attribute). */
  constructor(
    readonly server: string,
    override readonly cause: unknown,
    readonly attempts: number,
    setting = '--server or TMKIT_SERVER',
  ) {
    super(
      'UNREACHABLE',
      `cannot reach the tmkit server at ${server} after ${count(attempts, 'attempt')}: ${(cause as Error)?.message ?? String(cause)}; ` +
        `is \`tmkit serve\` running there? Set ${setting}`,
    );
  }
}
