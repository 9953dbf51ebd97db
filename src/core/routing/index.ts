export * from './types';
export { buildSnapshot, compiledSnapshot, profileMonitorStatuses, profileStatusReport } from './snapshot';
export { updateSnapshot, type SnapshotChange } from './update';
export type {
  CompiledSnapshot,
  CompiledProfile,
  CompiledEndpoint,
  SnapshotInput,
  ProfileMonitorStatuses,
  RecordKind,
  EndpointKind,
} from './snapshot';
export { resolve, answer, pickOutcome, recordFits, queryClass, canonicalName, MAX_NESTING_DEPTH } from './resolve';
export type { TopResolution, NameMatch } from './resolve';
