/**
 * The dashboard's API client: same-origin fetch() with the bearer token the user pasted (kept in
 * sessionStorage, so it lives as long as the tab). Every data call needs it; a 401 logs the tab out.
 */
import type {
  ApiErrorBody,
  DecisionsReport,
  DrillList,
  FailbackResult,
  OverrideDeleteResult,
  PreviewReport,
  PreviewRequest,
  ProfileList,
  ProfileStatusReport,
  ResolveQuery,
  ResolveResult,
  TrafficReport,
} from './types';

const TOKEN_KEY = 'tmkit.token';

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** An API call that failed: the HTTP status (0 = no response), the first error code and its message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly route: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The route does not exist on this server (an older tmkit serve). */
  get routeMissing(): boolean {
    return this.status === 404 && this.code === 'ROUTE_NOT_FOUND';
  }
}

type Unauthorized = (message: string) => void;
let onUnauthorized: Unauthorized = () => undefined;
/** Called with a message when the server rejects the token (the app goes back to the login page). */
export function setUnauthorizedHandler(fn: Unauthorized): void {
  onUnauthorized = fn;
}

export const UNAUTHORIZED_HINT =
  'The API token is in <state-dir>/token of the tmkit serve process (default .tmkit/token), or in its TMKIT_TOKEN.';

async function errorOf(res: Response, route: string): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = `${route} answered HTTP ${res.status}`;
  try {
    const body = (await res.json()) as ApiErrorBody;
    const first = body.errors?.[0];
    if (first) {
      code = String(first.code);
      message = `${first.message}${first.path ? ` (at ${first.path})` : ''}`;
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(res.status, code, message, route);
}

/** fetch() with the token; JSON in and out. Throws ApiError. */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = getToken(),
  signal?: AbortSignal,
): Promise<T> {
  if (token === null || token === '') {
    onUnauthorized('Paste the API token to sign in.');
    throw new ApiError(401, 'UNAUTHORIZED', 'not signed in', path);
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(
      0,
      'NETWORK',
      `cannot reach the tmkit API at ${location.origin}: ${(err as Error).message}. Is tmkit serve running?`,
      path,
    );
  }
  if (res.status === 401) {
    const e = await errorOf(res, path);
    onUnauthorized(`The server rejected the token (HTTP 401). ${UNAUTHORIZED_HINT}`);
    throw e;
  }
  if (!res.ok) throw await errorOf(res, path);
  return (await res.json()) as T;
}

const enc = encodeURIComponent;

export const listProfiles = (signal?: AbortSignal) => api<ProfileList>('GET', '/v1/profiles', undefined, getToken(), signal);
export const profileStatus = (name: string, signal?: AbortSignal) =>
  api<ProfileStatusReport>('GET', `/v1/profiles/${enc(name)}/status`, undefined, getToken(), signal);
export const resolve = (q: ResolveQuery) => api<ResolveResult>('POST', '/v1/resolve', q);
export const traffic = (name: string, since?: string, signal?: AbortSignal) =>
  api<TrafficReport>('GET', `/v1/profiles/${enc(name)}/traffic${since ? `?since=${enc(since)}` : ''}`, undefined, getToken(), signal);
export const preview = (req: PreviewRequest) => api<PreviewReport>('POST', '/v1/preview', req);
/** The node's decision log (`GET /v1/decisions`): real answers of one profile, optionally for one client address or prefix. */
export const decisions = (profile: string, client?: string, signal?: AbortSignal) =>
  api<DecisionsReport>(
    'GET',
    `/v1/decisions?profile=${enc(profile)}&limit=20${client ? `&client=${enc(client)}` : ''}`,
    undefined,
    getToken(),
    signal,
  );
// Traffic operations (docs/operations.md): the dashboard clears overrides, fails endpoints back, lists drills.
export const clearOverride = (id: string) => api<OverrideDeleteResult>('DELETE', `/v1/overrides/${enc(id)}?who=dashboard`);
export const failback = (profile: string, endpoint: string) =>
  api<FailbackResult>('POST', `/v1/profiles/${enc(profile)}/endpoints/${enc(endpoint)}/failback`, { who: 'dashboard' });
export const drills = (signal?: AbortSignal) => api<DrillList>('GET', '/v1/drills?limit=50', undefined, getToken(), signal);

/** Checks a token before keeping it: the profile list must load with it. */
export async function checkToken(token: string): Promise<void> {
  await api<ProfileList>('GET', '/v1/profiles', undefined, token);
}
