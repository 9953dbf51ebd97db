/** Per-endpoint settings: type, status, Always Serve, weight, priority, MinChildEndpoints, location. */
import { findAzureRegion } from '../../data';
import type { Ctx } from '../context';
import type { Endpoint } from '../../model/types';
import { closestValue, enumHint, has, isInt, list, show } from '../util';

const STATUS = ['Enabled', 'Disabled'] as const;
const TYPES = ['azureEndpoints', 'externalEndpoints', 'nestedEndpoints'];

export function checkEndpoints(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const method = p.method;
    const withPriority = p.endpoints.filter((e) => has(e.raw, 'priority'));
    const partial = withPriority.length > 0 && withPriority.length < p.endpoints.length;
    if (partial) {
      const missing = p.endpoints.filter((e) => !has(e.raw, 'priority')).map((e) => String(e.ep.name));
      r.report(
        'PRIORITY_PARTIAL',
        `${p.path}.endpoints`,
        `priority is given on ${withPriority.length} of ${p.endpoints.length} endpoints; give ` +
          `it on every endpoint or on none (then the order decides); missing on ${list(missing)}`,
        'add priority to the other endpoints, or remove it everywhere',
      );
    }
    const priorities = new Map<number, string>();
    for (const [index, e] of p.endpoints.entries()) {
      const ep = e.ep;
      const type = ep.type as unknown;
      if (typeof type === 'string' && e.type === undefined) {
        const near = closestValue(type.replace(/^microsoft\.network\/trafficmanagerprofiles\//i, ''), TYPES);
        r.report(
          'ENDPOINT_TYPE',
          `${e.path}.type`,
          `endpoint type ${show(type)} is not one of ${TYPES.join(', ')} (or the full Microsoft.Network/trafficManagerProfiles/<type> form)`,
          `${near !== undefined ? `did you mean "${near}"? ` : ''}use externalEndpoints for a host ` +
            `name or IP, nestedEndpoints for a child profile, azureEndpoints for an Azure resource id`,
        );
      }
      const st = ep.endpointStatus as unknown;
      if (typeof st === 'string' && !(STATUS as readonly string[]).includes(st)) {
        r.report(
          'ENDPOINT_STATUS',
          `${e.path}.endpointStatus`,
          `endpointStatus ${show(st)} is not one of Enabled, Disabled`,
          enumHint(st, STATUS),
        );
      }
      const as = ep.alwaysServe as unknown;
      if (typeof as === 'string' && !(STATUS as readonly string[]).includes(as)) {
        r.report('ALWAYS_SERVE', `${e.path}.alwaysServe`, `alwaysServe ${show(as)} is not one of Enabled, Disabled`, enumHint(as, STATUS));
      } else if (as === 'Enabled' && e.type === 'nestedEndpoints') {
        r.report(
          'ALWAYS_SERVE_NESTED',
          `${e.path}.alwaysServe`,
          'Always Serve is not allowed on nested endpoints (their availability comes from the child profile)',
          "remove alwaysServe, or set it on the child profile's endpoints",
        );
      } else if (as === 'Enabled' && st === 'Disabled') {
        r.report(
          'ALWAYS_SERVE_DISABLED',
          `${e.path}.alwaysServe`,
          'Always Serve has no effect while the endpoint is Disabled',
          'enable the endpoint or remove alwaysServe',
        );
      }
      const weight = ep.weight as unknown;
      if (typeof weight === 'number' && !(isInt(weight) && weight >= 1 && weight <= 1000)) {
        r.report(
          'WEIGHT_RANGE',
          `${e.path}.weight`,
          `weight ${show(weight)} is out of range: an integer 1–1000`,
          'use e.g. 1 (default) up to 1000',
        );
      } else if (method !== undefined && method !== 'Weighted' && typeof e.raw.weight === 'number' && weight !== 1) {
        r.report(
          'WEIGHT_IGNORED',
          `${e.path}.weight`,
          `weight is ignored by ${method} routing (only Weighted uses it)`,
          'remove weight, or use Weighted routing',
        );
      }
      const prio = ep.priority as unknown;
      if (typeof prio === 'number' && typeof e.raw.priority === 'number') {
        if (!(isInt(prio) && prio >= 1 && prio <= 1000)) {
          r.report(
            'PRIORITY_RANGE',
            `${e.path}.priority`,
            `priority ${show(prio)} is out of range: an integer 1–1000 (lower is preferred)`,
            'use 1 for the primary, 2 for the next, …',
          );
        } else {
          if (!partial) {
            const other = priorities.get(prio);
            if (other !== undefined) {
              r.report(
                'PRIORITY_DUPLICATE',
                `${e.path}.priority`,
                `priority ${prio} is also used by endpoint "${other}"; priorities are unique within a profile`,
                'give each endpoint a different priority',
              );
            } else priorities.set(prio, String(ep.name));
          }
          // Azure prints weight 1 and the order-derived priority on every endpoint: those are no news.
          if (method !== undefined && method !== 'Priority' && prio !== index + 1) {
            r.report(
              'PRIORITY_IGNORED',
              `${e.path}.priority`,
              `priority is ignored by ${method} routing (only Priority uses it)`,
              'remove priority, or use Priority routing',
            );
          }
        }
      }
      checkMinChild(ctx, e.raw, ep, e.path, e.type === 'nestedEndpoints', e.type !== undefined);
      const loc = ep.endpointLocation as unknown;
      if (typeof loc === 'string') {
        if (loc.trim().toLowerCase() === 'global') {
          r.report(
            'ENDPOINT_LOCATION_GLOBAL',
            `${e.path}.endpointLocation`,
            'endpointLocation "global" is not an Azure region',
            'give the region the endpoint runs in, e.g. "westeurope"',
          );
        } else if (findAzureRegion(loc) === undefined) {
          r.report(
            'ENDPOINT_LOCATION_UNKNOWN',
            `${e.path}.endpointLocation`,
            `endpointLocation ${show(e.raw.endpointLocation)} is not an Azure region (canonical name like "westeurope" or display name like "West Europe")`,
            'pick the nearest Azure region to the endpoint',
          );
        }
      }
    }
  }
}

function checkMinChild(ctx: Ctx, raw: Record<string, unknown>, ep: Endpoint, path: string, nested: boolean, typeKnown: boolean): void {
  const { r } = ctx;
  const fields = ['minChildEndpoints', 'minChildEndpointsIPv4', 'minChildEndpointsIPv6'] as const;
  const values = ep as unknown as Record<string, unknown>;
  if (!nested) {
    const set = fields.filter((f) => typeof raw[f] === 'number');
    if (typeKnown && set.length > 0) {
      r.report(
        'MIN_CHILD_ENDPOINTS_IGNORED',
        `${path}.${set[0]}`,
        `${set.join(', ')} apply to nested endpoints only and are ignored here`,
        'remove them',
      );
    }
    return;
  }
  let ok = true;
  for (const f of fields) {
    const v = values[f];
    if (typeof v !== 'number') {
      if (v !== undefined) ok = false;
      continue;
    }
    const min = f === 'minChildEndpoints' ? 1 : 0;
    if (!(isInt(v) && v >= min)) {
      ok = false;
      r.report(
        'MIN_CHILD_ENDPOINTS_RANGE',
        `${path}.${f}`,
        `${f} ${show(v)} is out of range: an integer ≥ ${min}`,
        `use ${min === 1 ? '1 (default) or more' : '0 or more'}`,
      );
    }
  }
  const total = values.minChildEndpoints;
  const v4 = (values.minChildEndpointsIPv4 as number | undefined) ?? 0;
  const v6 = (values.minChildEndpointsIPv6 as number | undefined) ?? 0;
  if (ok && typeof total === 'number' && total < v4 + v6) {
    r.report(
      'MIN_CHILD_ENDPOINTS_SUM',
      `${path}.minChildEndpoints`,
      `minChildEndpoints ${total} is lower than minChildEndpointsIPv4 + minChildEndpointsIPv6 = ${v4 + v6}; it must be at least their sum`,
      `set minChildEndpoints to ${v4 + v6} or more`,
    );
  }
}
