export { HealthLedger, type ClusterVerdicts, type HealthLedgerOptions, type HealthPort, type RetargetChange } from './ledger';
export { PreviousRun, SAVED_HISTORY, type LedgerTransition, type SavedEndpoint, type SavedMonitorMeta } from './previous-run';
export { PushedHealth, worseOf, type PushedHealthApi, type PushedTransition } from './pushed-health';
export { ProbeLatencies, type ClusterLatencies, type LatencyPort, type ProbeLatenciesOptions, type ProbeSource } from './latency';
