/** One entry of the API's stable error shape: `{"errors":[{code, message, path?}]}` (design §5). */
export interface ApiErrorItem {
  code: string;
  message: string;
  path?: string;
  hint?: string;
  severity?: 'error' | 'warning';
}

/** An HTTP failure with the body to send; thrown by handlers, rendered by the server. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => e.message).join('; '));
    this.name = 'ApiProblem';
  }

  static of(status: number, code: string, message: string, extra: Partial<ApiErrorItem> = {}, headers: Record<string, string> = {}): ApiProblem {
    return new ApiProblem(status, [{ code, message, ...extra }], headers);
  }
}

/** API-level error codes (per-diagnostic codes come from src/core/validate's rule catalog). */
export const API_CODES = {
  UNAUTHORIZED: 'UNAUTHORIZED',
  NOT_FOUND: 'NOT_FOUND',
  ROUTE_NOT_FOUND: 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  MALFORMED_JSON: 'MALFORMED_JSON',
  JSON_TOO_DEEP: 'JSON_TOO_DEEP',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  BAD_REQUEST: 'BAD_REQUEST',
  NAME_MISMATCH: 'NAME_MISMATCH',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  STACK_CONFLICT: 'STACK_CONFLICT',
  PROFILE_REFERENCED: 'PROFILE_REFERENCED',
  PROFILE_NAME_CONFLICT: 'PROFILE_NAME_CONFLICT',
  NOT_AVAILABLE: 'NOT_AVAILABLE',
  /** 507: the store's disk is full (SQLITE_FULL). */
  STORAGE_FULL: 'STORAGE_FULL',
  /** 503: the store's file or file system is read-only (SQLITE_READONLY*). */
  STORAGE_READ_ONLY: 'STORAGE_READ_ONLY',
  /** 503: the store could not be written (SQLITE_IOERR*). */
  STORAGE_IO_ERROR: 'STORAGE_IO_ERROR',
  INTERNAL: 'INTERNAL',
} as const;
