/** Names: profile and endpoint names, their uniqueness, the stack name. */
import type { Ctx } from '../context';
import type { Reporter } from '../diagnostics';
import { show } from '../util';

const PROFILE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,61}[A-Za-z0-9])?$/;
const STACK_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const ENDPOINT_NAME_BAD = /[/\\\u0000-\u001f\u007f]/;

export function checkStack(r: Reporter, stack: unknown): void {
  if (typeof stack !== 'string' || STACK_NAME.test(stack)) return;
  r.report(
    'STACK_NAME',
    'stack',
    `stack ${show(stack)} is not a DNS label: 1–63 letters, digits and hyphens, starting and ending with a letter or digit`,
    'use a name like "prod" or "team-a"',
  );
}

export function checkNames(ctx: Ctx): void {
  const { r } = ctx;
  const seen = new Map<string, string>();
  for (const p of ctx.profiles) {
    const name = p.profile.name as unknown;
    if (typeof name !== 'string') continue;
    if (!PROFILE_NAME.test(name)) {
      r.report(
        'PROFILE_NAME',
        `${p.path}.name`,
        `profile name ${show(name)} is invalid: 1–63 characters, letters, digits, "-" and ".", first and last a letter or digit`,
        'rename the profile',
      );
    }
    const k = name.toLowerCase();
    const first = seen.get(k);
    if (first !== undefined) {
      r.report(
        'PROFILE_NAME_DUPLICATE',
        `${p.path}.name`,
        `profile name "${name}" is used twice (names are unique, case-insensitive; first: "${first}")`,
        'rename one of the profiles',
      );
    } else seen.set(k, name);

    const epSeen = new Map<string, string>();
    for (const e of p.endpoints) {
      const en = e.ep.name as unknown;
      if (typeof en !== 'string') continue;
      if (en.length === 0 || en.length > 260 || ENDPOINT_NAME_BAD.test(en)) {
        r.report(
          'ENDPOINT_NAME',
          `${e.path}.name`,
          `endpoint name ${show(en)} is invalid: 1–260 characters without "/", "\\" or control characters`,
          'rename the endpoint',
        );
      }
      const ek = en.toLowerCase();
      const f = epSeen.get(ek);
      if (f !== undefined) {
        r.report(
          'ENDPOINT_NAME_DUPLICATE',
          `${e.path}.name`,
          `endpoint name "${en}" is used twice in the profile (unique, case-insensitive; first: "${f}")`,
          'rename one of the endpoints',
        );
      } else epSeen.set(ek, en);
    }
  }
  if (ctx.strictAzure && ctx.profiles.length + ctx.contextSize > 200) {
    r.report(
      'PROFILES_LIMIT',
      'profiles',
      `${ctx.profiles.length + ctx.contextSize} profiles exceed Azure's limit of 200 per subscription`,
      'spread the profiles over several subscriptions or ask Azure support to raise the limit',
    );
  }
}
