export * from './types';
export { canonicalJson, contentHash, makeEtag, parseEtagList, checkPreconditions, checkStack } from './conditions';
export { applyMonitorChange } from './monitor-state';
export { admitProfile, admitDelete, writeName, type Admitted } from './admission';
export { parsePushedRecord, type PushedHealthRecord, type PushedHealthStore, type PushedStatus } from './pushed-health';
