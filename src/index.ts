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
// core/validate and core/health both export `TargetKind` (the same union); the root exports validate's.
export type { TargetKind } from './core/validate';
// The management API client (design §5). Its status report is `ServerProfileStatusReport` at the root
// (routing's `ProfileStatusReport` is the pure derivation it is built from).
export { TmkitClient, TmkitApiError, TmkitConnectionError, DEFAULT_SERVER } from './client';
export type { ClientOptions, PutOptions, ApiErrorBody, WireDiagnostic, ProfileEntry, ProfileList, WriteResult, DeleteResult, ResolveQuery, ResolveResult, EndpointStatusReport, StatusTransitionReport, ProbeResultReport, ResourceCatalogResponse, ProfileStatusReport as ServerProfileStatusReport } from './client';
