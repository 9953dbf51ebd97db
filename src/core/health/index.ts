export * from './types';
export * from './status';
export * from './machine';
export * from './targets';
export * from './probe-rules';
export * from './latency';
export * from './checks';
