/**
 * The profile's `failback` property (a tmkit extension; docs/health.md "Failback"): how a Degraded endpoint
 * comes back. Azure has no such property, so `--strict-azure` does not forbid it: ARM export omits it.
 */
import type { Ctx } from '../context';
import { FAILBACK_MODES } from '../../model/types';
import { enumHint, isInt, show } from '../util';

export const MAX_SUCCESSES_TO_RECOVER = 10;
export const MAX_HOLD_DOWN_SECONDS = 3600;

export function checkFailback(ctx: Ctx): void {
  const { r } = ctx;
  for (const p of ctx.profiles) {
    const f = p.profile.failback;
    if (f === undefined || f === null || typeof f !== 'object') continue;
    const base = `${p.path}.failback`;
    const mode = f.mode as unknown;
    if (typeof mode === 'string' && !(FAILBACK_MODES as readonly string[]).includes(mode)) {
      r.report(
        'FAILBACK_MODE',
        `${base}.mode`,
        `failback mode ${show(mode)} is not one of ${FAILBACK_MODES.join(', ')}`,
        enumHint(mode, FAILBACK_MODES),
      );
    }
    const n = f.successesToRecover as unknown;
    if (typeof n === 'number' && !(isInt(n) && n >= 1 && n <= MAX_SUCCESSES_TO_RECOVER)) {
      r.report(
        'FAILBACK_SUCCESSES_RANGE',
        `${base}.successesToRecover`,
        `successesToRecover ${show(n)} is out of range: an integer 1–${MAX_SUCCESSES_TO_RECOVER}`,
        'use e.g. 3 (three good probes in a row)',
      );
    }
    const h = f.holdDownSeconds as unknown;
    if (typeof h === 'number' && !(isInt(h) && h >= 0 && h <= MAX_HOLD_DOWN_SECONDS)) {
      r.report(
        'FAILBACK_HOLD_DOWN_RANGE',
        `${base}.holdDownSeconds`,
        `holdDownSeconds ${show(h)} is out of range: an integer 0–${MAX_HOLD_DOWN_SECONDS}`,
        'use e.g. 300 (five minutes)',
      );
    }
  }
}
