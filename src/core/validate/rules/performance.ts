/** Performance: external and nested endpoints need an endpointLocation (Azure endpoints take the resource's). */
import type { Ctx } from '../context';
import { PERFORMANCE_LATENCY_SOURCES } from '../../model/types';
import { enumHint, has, isInt, show } from '../util';

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

export const MAX_TOLERANCE_MS = 1000;
export const MAX_MIN_SAMPLES = 100;

/**
 * The profile's `performanceLatency` property (a tmkit extension; docs/routing.md "Measured latency"): only on
 * Performance profiles, with a known source and integer bounds. Azure has no such property, so
 * `--strict-azure` does not forbid it: ARM export omits it.
 */
export function checkPerformanceLatency(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const l = p.profile.performanceLatency;
    if (l === undefined || l === null || typeof l !== 'object') continue;
    const base = `${p.path}.performanceLatency`;
    if (p.method !== undefined && p.method !== 'Performance') {
      r.report(
        'PERF_LATENCY_METHOD',
        base,
        `performanceLatency ranks Performance routing, but this profile's trafficRoutingMethod is ${show(p.method)}`,
        'remove performanceLatency, or set trafficRoutingMethod to "Performance"',
      );
    }
    const source = l.source as unknown;
    if (typeof source === 'string' && !(PERFORMANCE_LATENCY_SOURCES as readonly string[]).includes(source)) {
      r.report(
        'PERF_LATENCY_SOURCE',
        `${base}.source`,
        `performanceLatency source ${show(source)} is not one of ${PERFORMANCE_LATENCY_SOURCES.join(', ')}`,
        enumHint(source, PERFORMANCE_LATENCY_SOURCES),
      );
    }
    const t = l.toleranceMs as unknown;
    if (typeof t === 'number' && !(isInt(t) && t >= 0 && t <= MAX_TOLERANCE_MS)) {
      r.report(
        'PERF_LATENCY_TOLERANCE_RANGE',
        `${base}.toleranceMs`,
        `toleranceMs ${show(t)} is out of range: an integer 0–${MAX_TOLERANCE_MS}`,
        'use e.g. 20 (endpoints within 20 ms of the best count as equal)',
      );
    }
    const n = l.minSamples as unknown;
    if (typeof n === 'number' && !(isInt(n) && n >= 1 && n <= MAX_MIN_SAMPLES)) {
      r.report(
        'PERF_LATENCY_MIN_SAMPLES_RANGE',
        `${base}.minSamples`,
        `minSamples ${show(n)} is out of range: an integer 1–${MAX_MIN_SAMPLES}`,
        'use e.g. 5 (five probes before a measurement ranks an endpoint)',
      );
    }
  }
}
