/** The management-API client (design §5) and the deploy module built on it (design §8). */
export * from '../core/api';
export { TmkitClient, DEFAULT_SERVER, DEFAULT_STATE_DIR, type ClientOptions, type PutOptions, type TokenSource } from './client';
export { TmkitApiError, TmkitConnectionError } from './errors';
export * from './deploy';
export * from './resources';
export * from './ids';
