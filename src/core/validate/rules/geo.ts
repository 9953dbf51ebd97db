/**
 * Geographic mappings. Azure resolves a client to its most specific mapped region (state → country →
 * grouping → WORLD), so a country on one endpoint and its continent on another is legal and useful.
 * Problems are: a code that is not in the hierarchy; the same code on two endpoints (error: the
 * match would be ambiguous, Azure rejects it); the same code twice, or a code together with one of its
 * ancestors, on ONE endpoint (warnings: redundant, the ancestor already covers it).
 */
import { GEO_REGIONS, geoAncestry } from '../../data';
import type { Ctx } from '../context';
import { show } from '../util';

export function checkGeo(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const geographic = p.method === 'Geographic';
    const owner = new Map<string, string>();
    let world = false;
    for (const e of p.endpoints) {
      const codes = e.ep.geoMapping as unknown;
      const gpath = `${e.path}.geoMapping`;
      if (!Array.isArray(codes)) continue;
      if (geographic && codes.length === 0) {
        r.report(
          'GEO_MAPPING_REQUIRED',
          gpath,
          'every endpoint of a Geographic profile needs at least one geoMapping code',
          'map it to regions, e.g. ["GEO-EU"] or ["WORLD"]',
        );
      }
      if (geographic && e.type !== undefined && e.type !== 'nestedEndpoints') {
        r.report(
          'GEO_ENDPOINT_NOT_NESTED',
          e.path,
          'Geographic routing answers with the matched endpoint even when it is unhealthy; this endpoint is not nested, so its regions have no failover',
          'make it a nested endpoint over a Priority/Weighted child profile with two or more endpoints',
        );
      }
      if (!geographic && p.method !== undefined && codes.length > 0) {
        r.report(
          'GEO_MAPPING_IGNORED',
          gpath,
          `geoMapping is ignored by ${p.method} routing (only Geographic uses it)`,
          'remove geoMapping, or use Geographic routing',
        );
      }
      const mine = new Set<string>();
      codes.forEach((c: unknown, i) => {
        if (typeof c !== 'string') return;
        const cpath = `${gpath}[${i}]`;
        if (!GEO_REGIONS.has(c)) {
          const upper = c.trim().toUpperCase();
          r.report(
            'GEO_CODE_UNKNOWN',
            cpath,
            `geographic code ${show(c)} is not in the Azure geographic hierarchy (WORLD, ` +
              `GEO-xx groupings, ISO 3166 countries, US/CA/AU states, UA-CR; exact case)`,
            GEO_REGIONS.has(upper)
              ? `write "${upper}"`
              : 'use a code of the hierarchy (tmkit exports it as GEO_REGIONS), e.g. "DE", "US-CA", "GEO-EU", "WORLD"',
          );
          return;
        }
        if (mine.has(c)) {
          r.report('GEO_CODE_REPEATED', cpath, `geographic code "${c}" is listed twice on this endpoint`, 'remove the repeated code');
          return;
        }
        mine.add(c);
        if (c === 'WORLD') world = true;
        const other = owner.get(c);
        if (other !== undefined) {
          r.report(
            'GEO_CODE_DUPLICATE',
            cpath,
            `geographic code "${c}" is already mapped to endpoint "${other}"; a code maps to at most one endpoint of a profile`,
            'remove it from one of the endpoints',
          );
        } else owner.set(c, String(e.ep.name));
      });
      codes.forEach((c: unknown, i) => {
        if (typeof c !== 'string' || !GEO_REGIONS.has(c) || codes.indexOf(c) !== i) return;
        const anc = geoAncestry(c);
        for (let k = 1; k < anc.length; k++) {
          if (mine.has(anc[k]!)) {
            r.report(
              'GEO_CODE_REDUNDANT',
              `${gpath}[${i}]`,
              `geographic code "${c}" is redundant: its ancestor "${anc[k]}" is mapped to the same endpoint`,
              `remove "${c}"`,
            );
            break;
          }
        }
      });
    }
    if (geographic && p.endpoints.length > 0 && !world) {
      r.report(
        'GEO_WORLD_MISSING',
        `${p.path}.endpoints`,
        'no endpoint maps WORLD: clients from unmapped regions get an empty (NODATA) answer',
        'add "WORLD" to the geoMapping of a fallback (ideally nested) endpoint',
      );
    }
  }
}
