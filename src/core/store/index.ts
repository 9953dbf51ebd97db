export * from './types';
export { canonicalJson, contentHash, documentHash, makeEtag, parseEtagList, checkPreconditions, checkStack } from './conditions';
export { applyMonitorChange } from './monitor-state';
export { LiveProfileIndex } from './profile-index';
export { admitProfile, admitDelete, admitEdit, writeName, type Admitted } from './admission';
export { parsePushedRecord, type PushedHealthRecord, type PushedHealthStore, type PushedStatus } from './pushed-health';
export * from './operations';
