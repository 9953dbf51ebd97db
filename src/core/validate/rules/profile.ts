/** Profile-level enums and limits. */
import type { Ctx } from '../context';
import { TRAFFIC_ROUTING_METHODS } from '../../model/types';
import { enumHint, show } from '../util';

const STATUS = ['Enabled', 'Disabled'] as const;
export const RECORD_TYPES = ['DomainName', 'IPv4Address', 'IPv6Address', 'Any'] as const;
export const MAX_ENDPOINTS = 200;

export function checkProfile(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const pr = p.profile;
    const st = pr.profileStatus as unknown;
    if (typeof st === 'string' && !(STATUS as readonly string[]).includes(st)) {
      r.report(
        'PROFILE_STATUS',
        `${p.path}.profileStatus`,
        `profileStatus ${show(st)} is not one of Enabled, Disabled`,
        enumHint(st, STATUS),
      );
    }
    const m = pr.trafficRoutingMethod as unknown;
    if (typeof m === 'string' && p.method === undefined) {
      r.report(
        'ROUTING_METHOD',
        `${p.path}.trafficRoutingMethod`,
        `trafficRoutingMethod ${show(m)} is not one of ${TRAFFIC_ROUTING_METHODS.join(', ')}`,
        enumHint(m, TRAFFIC_ROUTING_METHODS),
      );
    }
    const tv = pr.trafficViewEnrollmentStatus as unknown;
    if (typeof tv === 'string' && !(STATUS as readonly string[]).includes(tv)) {
      r.report(
        'TRAFFIC_VIEW_STATUS',
        `${p.path}.trafficViewEnrollmentStatus`,
        `trafficViewEnrollmentStatus ${show(tv)} is not one of Enabled, Disabled`,
        enumHint(tv, STATUS),
      );
    }
    const rts = pr.allowedEndpointRecordTypes as unknown;
    if (Array.isArray(rts)) {
      rts.forEach((t: unknown, i) => {
        if (typeof t === 'string' && !(RECORD_TYPES as readonly string[]).includes(t)) {
          r.report(
            'RECORD_TYPE_INVALID',
            `${p.path}.allowedEndpointRecordTypes[${i}]`,
            `allowedEndpointRecordTypes value ${show(t)} is not one of ${RECORD_TYPES.join(', ')}`,
            enumHint(t, RECORD_TYPES),
          );
        }
      });
    }
    if (p.endpoints.length > MAX_ENDPOINTS) {
      r.report(
        'ENDPOINTS_LIMIT',
        `${p.path}.endpoints`,
        `${p.endpoints.length} endpoints exceed the limit of ${MAX_ENDPOINTS} per profile`,
        'split the endpoints over nested child profiles',
      );
    }
  }
}
