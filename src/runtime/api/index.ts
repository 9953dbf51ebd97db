export { ApiServer, DEFAULT_MAX_BODY, type ApiOptions, type HealthReport, type ResolveRequest, type RuntimeReports } from './server';
export { ApiProblem } from './errors';
export { loadOrCreateToken, bearerMatches, envToken, MIN_TOKEN_LENGTH, TOKEN_FILE, type TokenSource } from './auth';
