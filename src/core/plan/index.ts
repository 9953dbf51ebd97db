/**
 * The plan engine (docs/ARCHITECTURE.md): `diff` computes typed changes (data), `render*` present them, the
 * routing preview says what the change does to clients. Pure: no I/O, clock or randomness.
 */
export * from './types';
export * from './preview-types';
export { diff, applyOrder, checkPlanBase, plannedProfiles } from './diff';
export { orderSteps } from './order';
export { nestedChildren } from '../model/names';
export { diffAttributes, applyAttributeChanges, parsePath, jsonEqual, REPLACE_PATHS } from './attributes';
export { failoverTimes, detectionSeconds, recoveryEstimate, type FailoverEstimate } from './failover';
export { liveHealth, type LiveHealthInput, type LiveHealthReport, type LiveEndpointRow } from './live';
export { lintProfiles } from './lints';
export {
  buildReport,
  affectedProfiles,
  failoverLimitMessages,
  planExitCode,
  type PlanReport,
  type FailoverRow,
  type ReportOptions,
  type AzurePreview,
  azurePreviewLabel,
} from './report';
export { renderText, writeText, type TextOptions } from './render/text';
export { renderMarkdown, writeMarkdown, GITHUB_COMMENT_LIMIT, DEFAULT_MARKER, type MarkdownOptions } from './render/markdown';
export { renderJson, writeJson, planToJson, readPlanJson, PlanFormatError, PLAN_FORMAT_VERSION } from './render/json';
export { previewRouting, previewPlan, routingMap, type PreviewInput, type RoutingMapRow } from './preview';
export { desiredDocument, documentStack, validationContext, type DesiredDocument } from './desired';
export { planScope, profileSummary } from './scope';
