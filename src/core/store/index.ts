export * from './types';
export { canonicalJson, contentHash, makeEtag, parseEtagList, checkPreconditions, checkStack } from './conditions';
export { applyMonitorChange } from './monitor-state';
