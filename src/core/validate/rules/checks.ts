/**
 * tmkit's composite health checks (docs/health.md "Composite checks"): `monitorConfig.checks` and
 * `monitorConfig.quorum`. Absent: the single probe of protocol/port/path, as Azure.
 */
import type { Ctx } from '../context';
import type { Reporter } from '../diagnostics';
import { MONITOR_PROTOCOLS } from '../../model/types';
import { enumHint, isInt, isObj, show } from '../util';
import { MAX_STATUS_RANGES } from './monitor';

/** Most checks per profile: every endpoint is probed this many times a round. */
export const MAX_CHECKS = 10;
const CHECK_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Does a check count towards the quorum (neither mustBeHealthy nor monitoringOnly)? */
export const countingCheck = (c: { mustBeHealthy?: unknown; monitoringOnly?: unknown }): boolean =>
  c.mustBeHealthy !== true && c.monitoringOnly !== true;

function checkOne(r: Reporter, c: Record<string, unknown>, path: string, profileProtocol: unknown): void {
  const protocol = c.protocol ?? profileProtocol;
  if (typeof c.protocol === 'string' && !(MONITOR_PROTOCOLS as readonly string[]).includes(c.protocol)) {
    r.report(
      'MONITOR_PROTOCOL',
      `${path}.protocol`,
      `protocol ${show(c.protocol)} is not one of HTTP, HTTPS, TCP`,
      enumHint(c.protocol, MONITOR_PROTOCOLS),
    );
  }
  const port = c.port;
  if (typeof port === 'number' && !(isInt(port) && port >= 1 && port <= 65535)) {
    r.report(
      'MONITOR_PORT_RANGE',
      `${path}.port`,
      `port ${show(port)} is out of range: an integer 1–65535`,
      'use e.g. 443 for HTTPS, 80 for HTTP',
    );
  }
  const p = c.path;
  if (protocol === 'TCP' && p !== undefined) {
    r.report(
      'MONITOR_PATH_TCP',
      `${path}.path`,
      'path is not allowed with the TCP protocol (TCP checks only open a connection)',
      'remove path, or check with HTTP/HTTPS',
    );
  } else if (typeof p === 'string' && (p === '' || !p.startsWith('/') || /\s/.test(p))) {
    r.report(
      'MONITOR_PATH_INVALID',
      `${path}.path`,
      `path ${show(p)} must be a relative path starting with "/" and without whitespace`,
      'e.g. "/health"',
    );
  }
  const ranges = c.expectedStatusCodeRanges;
  if (Array.isArray(ranges)) {
    if (ranges.length > MAX_STATUS_RANGES) {
      r.report(
        'STATUS_CODE_RANGES_LIMIT',
        `${path}.expectedStatusCodeRanges`,
        `${ranges.length} expected status code ranges exceed the limit of ${MAX_STATUS_RANGES}`,
        'merge adjacent ranges',
      );
    }
    ranges.forEach((x: unknown, i) => {
      if (!isObj(x) || typeof x.min !== 'number' || typeof x.max !== 'number') return;
      if (!(isInt(x.min) && isInt(x.max) && x.min >= 100 && x.max <= 999 && x.min <= x.max)) {
        r.report(
          'STATUS_CODE_RANGE',
          `${path}.expectedStatusCodeRanges[${i}]`,
          `status code range ${x.min}–${x.max} is invalid: integers with min ≤ max, both within 100–999`,
          'e.g. {"min": 200, "max": 299}',
        );
      }
    });
  }
  if (c.mustBeHealthy === true && c.monitoringOnly === true) {
    r.report(
      'MONITOR_CHECK_ROLE',
      path,
      'a check cannot be both mustBeHealthy (it decides the verdict) and monitoringOnly (it never counts)',
      'keep one of the two',
    );
  }
}

export function checkChecks(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    // What the user wrote: omitted values come from the profile's monitorConfig, which its own rules judge.
    const m = isObj(p.raw.monitorConfig) ? p.raw.monitorConfig : {};
    const base = `${p.path}.monitorConfig`;
    const checks = m.checks;
    const quorum = m.quorum;
    if (checks === undefined) {
      if (quorum !== undefined) {
        r.report(
          'MONITOR_QUORUM_RANGE',
          `${base}.quorum`,
          'quorum has no effect without monitorConfig.checks (the single probe decides alone)',
          'add checks, or remove quorum',
        );
      }
      continue;
    }
    if (!Array.isArray(checks)) continue; // structure reports the type
    if (checks.length < 1 || checks.length > MAX_CHECKS) {
      r.report(
        'MONITOR_CHECKS_COUNT',
        `${base}.checks`,
        `${checks.length} checks: a profile has 1–${MAX_CHECKS}`,
        checks.length < 1 ? 'add a check, or remove checks to use the single probe' : `keep at most ${MAX_CHECKS} checks`,
      );
    }
    const names = new Map<string, string>();
    const items = checks.filter(isObj);
    checks.forEach((c: unknown, i) => {
      if (!isObj(c)) return; // structure reports it
      const path = `${base}.checks[${typeof c.name === 'string' && c.name !== '' ? c.name : i}]`;
      if (typeof c.name === 'string') {
        if (!CHECK_NAME.test(c.name)) {
          r.report(
            'MONITOR_CHECK_NAME',
            `${path}.name`,
            `check name ${show(c.name)} is not 1–32 letters, digits, "-" and "_" starting with a letter or digit`,
            'use a short name such as "api" or "login"',
          );
        }
        const prev = names.get(c.name.toLowerCase());
        if (prev !== undefined) {
          // By index: the name alone would point at the first check of that name.
          r.report(
            'MONITOR_CHECK_NAME_DUPLICATE',
            `${base}.checks[${i}].name`,
            `check name "${c.name}" is used twice (as "${prev}"; names are case-insensitive)`,
            'give every check of the profile its own name',
          );
        } else names.set(c.name.toLowerCase(), c.name);
      }
      checkOne(r, c, path, p.profile.monitorConfig.protocol);
    });
    const counting = items.filter(countingCheck).length;
    const deciding = items.filter((c) => c.monitoringOnly !== true).length;
    if (items.length > 0 && deciding === 0) {
      r.report(
        'MONITOR_CHECKS_NONE_COUNT',
        `${base}.checks`,
        'every check is monitoringOnly, so nothing decides whether an endpoint is healthy',
        'make at least one check count (drop monitoringOnly from it)',
      );
    }
    if (typeof quorum === 'number' && !(isInt(quorum) && quorum >= 1 && quorum <= counting)) {
      r.report(
        'MONITOR_QUORUM_RANGE',
        `${base}.quorum`,
        counting === 0
          ? `quorum ${show(quorum)} has nothing to count: every check is mustBeHealthy or monitoringOnly`
          : `quorum ${show(quorum)} is out of range: an integer 1–${counting} (the checks that are neither mustBeHealthy nor monitoringOnly)`,
        counting === 0 ? 'remove quorum' : `use 1–${counting}, or omit it to require all ${counting}`,
      );
    }
  }
}
