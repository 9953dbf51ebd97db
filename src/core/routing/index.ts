export * from './types';
export { buildSnapshot, compiledSnapshot, profileStatusReport } from './snapshot';
export { updateSnapshot, type SnapshotChange } from './update';
export type { CompiledSnapshot, CompiledProfile, CompiledEndpoint, SnapshotInput, ProfileStatusReport, RecordKind, EndpointKind } from './snapshot';
export { resolve, answer, pickOutcome, recordFits, queryClass, canonicalName, MAX_NESTING_DEPTH } from './resolve';
export type { TopResolution, NameMatch } from './resolve';
