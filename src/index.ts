/** tmkit's public API: the document model, validation, routing and the constructs. */
export * from './core/diagnostics';
export * from './core/codes';
export * from './core/model/types';
export * from './core/model/normalize';
export * from './core/model/names';
export * from './core/validate';
export * from './core/routing';
export * from './core/zone';
export * from './core/health';
export * from './core/model/arm-import';
export * from './core/model/arm-export';
export * from './core/plan';
export * from './geo';
// The constructs take the short names `Profile` and `Endpoint`; the document shapes of the same names are
// exported as `ProfileDocument` / `EndpointDocument` (and stay `Profile` / `Endpoint` in core/model/types).
export * from './constructs';
export { Profile, Endpoint } from './constructs';
export type { Profile as ProfileDocument, Endpoint as EndpointDocument } from './core/model/types';
// The management API client (docs/api.md). `ProfileStatusReport` is the status API's answer (routing's
// pure derivation it is built from is `ProfileMonitorStatuses`); `ServerProfileStatusReport` is its old name.
export { TmkitClient, TmkitApiError, TmkitConnectionError, DEFAULT_SERVER } from './client';
export type {
  ClientOptions,
  PutOptions,
  ApiErrorBody,
  WireDiagnostic,
  ProfileEntry,
  ProfileList,
  WriteResult,
  DeleteResult,
  ResolveQuery,
  ResolveResult,
  EndpointStatusReport,
  StatusTransitionReport,
  ProbeResultReport,
  ResourceCatalogResponse,
  ProfileStatusReport,
} from './client';
/** @deprecated The old name of `ProfileStatusReport`. */
export type { ProfileStatusReport as ServerProfileStatusReport } from './client';
