/** The management-API client (docs/api.md) and the deploy module built on it (docs/ARCHITECTURE.md, "Providers"). */
export * from '../core/api';
export {
  TmkitClient,
  DEFAULT_SERVER,
  DEFAULT_STATE_DIR,
  isLoopback,
  type ClientOptions,
  type PutOptions,
  type TokenSource,
} from './client';
export { TmkitApiError, TmkitConnectionError } from './errors';
export * from './deploy';
export * from './resources';
export * from './ids';
