/**
 * The API shapes the dashboard reads: type imports from src/core/api/ and the core model, the one
 * definition the server is type-checked against too (nothing of core is bundled for them). `npm run
 * typecheck` checks ui/ with these, so a change of the API's shapes that the dashboard does not follow
 * fails the build.
 */
export type {
  ApiErrorBody,
  DecisionRecord,
  DecisionsReport,
  DrillList,
  DrillReport,
  EndpointStatusReport,
  FailbackResult,
  LiveEvent,
  OverrideDeleteResult,
  OverrideList,
  OverrideRecord,
  PreviewReport,
  PreviewRequest,
  PreviewRow,
  ProbeResultReport,
  ProfileEntry,
  ProfileList,
  ProfileStatusReport,
  ResolveQuery,
  ResolveResult,
  RevisionEvent,
  StatusTransitionReport,
  TrafficBucket,
  TrafficCount,
  TrafficEvent,
  TrafficReport,
  TransitionEvent,
  WireDiagnostic,
} from '../../../src/core/api';
export type { EndpointMonitorStatus, ProfileMonitorStatus } from '../../../src/core/health/types';
export type { Endpoint, Profile, TrafficRoutingMethod } from '../../../src/core/model/types';
export type { AnswerRecord, ExplanationStep, RoutingOutcome } from '../../../src/core/routing/types';
