export { ApiServer, DEFAULT_MAX_BODY, type ApiOptions, type HealthReport, type ResolveRequest, type RuntimeReports } from './server';
export { ApiProblem } from './errors';
export { loadOrCreateToken, bearerMatches, TOKEN_FILE, type TokenSource } from './auth';
