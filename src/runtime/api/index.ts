export { ApiServer, DEFAULT_MAX_BODY, type ApiOptions, type ResolveRequest } from './server';
export { ApiProblem } from './errors';
export { loadOrCreateToken, bearerMatches, TOKEN_FILE, type TokenSource } from './auth';
export { RuntimeMetrics } from './metrics';
export { defaultValidator, type ProfileValidator } from './validation';
