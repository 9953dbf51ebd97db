export { Monitor, type MonitorOptions, type EndpointTransition, type EndpointProbeStatus, type LastProbe, type ProbeFn } from './monitor';
export { probe, classify, type ProbeOutcome, type ProbeOptions, type LookupFn } from './probe';
export { Scheduler, hashPhase, realTimers, type Timers, type SchedulerOptions, type SchedulerStats } from './scheduler';
export { ProbeResolver, ResolveError, parseHosts, type ProbeResolverOptions, type ResolvedAddress } from './resolver';
