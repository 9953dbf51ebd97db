/** Every route of the API with its bodies, by `METHOD path`. */
import type { Profile } from '../model/types';
import type { DecisionsReport } from './decisions';
import type { DnsCookiesReport } from './dns-cookies';
import type { DnssecReport, DnssecRolloverRequest, DnssecRolloverResult } from './dnssec';
import type { HealthzBody, NodeDrainRequest, NodeReadiness } from './healthz';
import type {
  AuditList,
  DrillList,
  DrillReport,
  FailbackResult,
  NodeList,
  OverrideDeleteResult,
  ProbeFailureReport,
  ProbeFailureRequest,
  OverrideList,
  OverrideRequest,
  OverrideResult,
} from './operations';
import type {
  DeleteResult,
  EndpointDeleteResult,
  EndpointEntry,
  EndpointWriteResult,
  ProfileList,
  ProfileSummaryList,
  ResourceCatalogResponse,
  WriteResult,
} from './profiles';
import type { PreviewReport, PreviewRequest, ResolveQuery, ResolveResult, TrafficReport } from './reports';
import type { ProfileStatusReport, PushedHealthReport, PushedHealthRequest } from './status';
import type { ShiftList, ShiftRenewal, ShiftRequest, ShiftResult } from './shifts';
import type { WebhookList, WebhookReport, WebhookRequest } from './webhooks';

/** The API's routes with their bodies (docs/api.md): what the server handles and the client calls. */
export interface ApiRoutes {
  'GET /healthz': { response: HealthzBody | { status: 'ok' | 'degraded' } };
  'GET /readyz': { response: 'text/plain' };
  'GET /v1/node': { response: NodeReadiness };
  'POST /v1/node/drain': { request: NodeDrainRequest; response: NodeReadiness };
  'POST /v1/node/undrain': { request: NodeDrainRequest; response: NodeReadiness };
  'GET /v1/profiles': { response: ProfileList };
  'GET /v1/profiles?view=summary': { response: ProfileSummaryList };
  'GET /v1/profiles/{name}': { response: Profile };
  'PUT /v1/profiles/{name}': { request: unknown; response: WriteResult };
  'PATCH /v1/profiles/{name}': { request: Record<string, unknown>; response: WriteResult };
  'DELETE /v1/profiles/{name}': { response: DeleteResult };
  'GET /v1/profiles/{name}/endpoints/{endpoint}': { response: EndpointEntry };
  'PUT /v1/profiles/{name}/endpoints/{endpoint}': { request: unknown; response: EndpointWriteResult };
  'PATCH /v1/profiles/{name}/endpoints/{endpoint}': { request: Record<string, unknown>; response: WriteResult };
  'DELETE /v1/profiles/{name}/endpoints/{endpoint}': { response: EndpointDeleteResult };
  'GET /v1/profiles/{name}/status': { response: ProfileStatusReport };
  'POST /v1/resolve': { request: ResolveQuery; response: ResolveResult };
  'GET /v1/profiles/{name}/traffic': { response: TrafficReport };
  'GET /v1/decisions': { response: DecisionsReport };
  'POST /v1/preview': { request: PreviewRequest; response: PreviewReport };
  'GET /v1/events': { response: 'text/event-stream' };
  'GET /v1/resources': { response: ResourceCatalogResponse };
  'PUT /v1/resources': { request: unknown; response: { revision: number; count: number } };
  'PUT /v1/profiles/{name}/endpoints/{endpoint}/health': { request: PushedHealthRequest; response: PushedHealthReport };
  'DELETE /v1/profiles/{name}/endpoints/{endpoint}/health': { response: { profile: string; endpoint: string; cleared: boolean } };
  'GET /v1/profiles/{name}/endpoints/{endpoint}/probe-failure': { response: ProbeFailureReport };
  'PUT /v1/profiles/{name}/endpoints/{endpoint}/probe-failure': { request: ProbeFailureRequest; response: ProbeFailureReport };
  'DELETE /v1/profiles/{name}/endpoints/{endpoint}/probe-failure': { response: { profile: string; endpoint: string; cleared: boolean } };
  'GET /v1/webhooks': { response: WebhookList };
  'POST /v1/webhooks': { request: WebhookRequest; response: WebhookReport };
  'DELETE /v1/webhooks/{id}': { response: { id: string; deleted: true } };
  'GET /v1/dnssec': { response: DnssecReport };
  'POST /v1/dnssec/rollover': { request: DnssecRolloverRequest; response: DnssecRolloverResult };
  'GET /v1/dns/cookies': { response: DnsCookiesReport };
  'POST /v1/dns/cookies/rotate': { request: Record<string, never>; response: DnsCookiesReport };
  'POST /v1/overrides': { request: OverrideRequest; response: OverrideResult };
  'GET /v1/overrides': { response: OverrideList };
  'DELETE /v1/overrides/{id}': { response: OverrideDeleteResult };
  'GET /v1/shifts': { response: ShiftList };
  'POST /v1/shifts': { request: ShiftRequest; response: ShiftResult };
  'PUT /v1/shifts/{id}': { request: ShiftRenewal; response: ShiftResult };
  'DELETE /v1/shifts/{id}': { response: ShiftResult };
  'POST /v1/shifts/{id}/cancel': { request: { who?: string; reason?: string }; response: ShiftResult };
  'POST /v1/profiles/{name}/endpoints/{endpoint}/failback': { request: { who?: string; reason?: string }; response: FailbackResult };
  'GET /v1/audit': { response: AuditList };
  'POST /v1/drills': { request: DrillReport; response: DrillReport };
  'GET /v1/drills': { response: DrillList };
  'GET /v1/nodes': { response: NodeList };
}
