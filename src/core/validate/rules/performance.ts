/** Performance: external and nested endpoints need an endpointLocation (Azure endpoints take the resource's). */
import type { Ctx } from '../context';
import { has } from '../util';

export function checkPerformance(ctx: Ctx): void {
  for (const p of ctx.profiles) {
    if (p.method !== 'Performance') continue;
    for (const e of p.endpoints) {
      if ((e.type === 'externalEndpoints' || e.type === 'nestedEndpoints') && !has(e.raw, 'endpointLocation')) {
        ctx.r.report(
          'ENDPOINT_LOCATION_REQUIRED',
          `${e.path}.endpointLocation`,
          `Performance routing needs endpointLocation on ${e.type === 'externalEndpoints' ? 'external' : 'nested'} ` +
            `endpoints (the Azure region closest to the endpoint)`,
          'add endpointLocation, e.g. "westeurope"',
        );
      }
    }
  }
}
