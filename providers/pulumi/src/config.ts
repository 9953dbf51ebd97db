/**
 * The tmkit provider's configuration (docs/ARCHITECTURE.md, "Providers"): `tmkit:server`, `tmkit:token` (secret), `tmkit:stack`
 * (default `pulumi`), falling back to TMKIT_SERVER / TMKIT_TOKEN. Stack config and an explicit
 * `new tmkit.Provider(...)` arrive the same way: as the provider's inputs. Pure apart from reading `env`,
 * which the caller passes.
 */
import { RULES } from '../../../src/core/validate/catalog';
import type { CheckFailure, CheckResult } from './provider';
import { isSecret, isUnknown, reveal, secret, type PropertyMap } from './values';

export const CONFIG_KEYS = ['server', 'token', 'stack'] as const;
export const DEFAULT_STACK = 'pulumi';

export interface TmkitConfig {
  /** Management API base URL; undefined: the client's default (TMKIT_SERVER, then http://127.0.0.1:5380). */
  server: string | undefined;
  /** Bearer token; undefined: none (the client may still find a local `tmkit serve` token file). */
  token: string | undefined;
  /** The tmkit stack the provider's writes belong to. */
  stack: string;
}

const STACK = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** Keys the engine itself may put among a provider's inputs. */
const ENGINE_KEYS = new Set(['version', 'pluginDownloadURL']);

function serverProblem(v: string): string | undefined {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return `"${v}" is not a URL: give the management API's base URL, e.g. http://127.0.0.1:5380`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `"${v}" must be an http:// or https:// URL (the management API's base URL)`;
  return undefined;
}

/**
 * CheckConfig: every problem at once, by key; the token comes back as a secret even if it was set in plain
 * text (so state keeps it encrypted). Unknown values (a token from another resource, during preview) pass.
 */
export function checkConfig(news: PropertyMap): CheckResult {
  const failures: CheckFailure[] = [];
  const inputs: PropertyMap = {};
  for (const [k, v] of Object.entries(news)) {
    if (ENGINE_KEYS.has(k)) {
      inputs[k] = v;
      continue;
    }
    if (!(CONFIG_KEYS as readonly string[]).includes(k)) {
      failures.push({
        property: k,
        reason: `unknown configuration key "tmkit:${k}": the tmkit provider takes ${CONFIG_KEYS.map((c) => `tmkit:${c}`).join(', ')}`,
      });
      continue;
    }
    inputs[k] = k === 'token' && v !== null ? secret(v) : v;
    const plain = reveal(v);
    if (plain === null || isUnknown(plain)) continue;
    if (typeof plain !== 'string') {
      failures.push({ property: k, reason: `tmkit:${k} must be a string, not ${Array.isArray(plain) ? 'an array' : typeof plain}` });
      continue;
    }
    if (k === 'server') {
      const p = serverProblem(plain);
      if (p) failures.push({ property: k, reason: `tmkit:server ${p}` });
    } else if (k === 'stack' && !STACK.test(plain)) {
      failures.push({ property: k, reason: `tmkit:stack "${plain}" is invalid: ${RULES.STACK_NAME.rule}` });
    } else if (k === 'token' && plain.trim() === '') {
      failures.push({ property: k, reason: 'tmkit:token is empty: set the management API token, or leave it unset to use TMKIT_TOKEN' });
    }
  }
  return { inputs, failures };
}

function str(v: PropertyMap[string] | undefined): string | undefined {
  if (v === undefined) return undefined;
  const plain = reveal(v);
  return typeof plain === 'string' && plain !== '' ? plain : undefined;
}

/** Configure: the checked config, with the env fallbacks and the default stack applied. */
export function resolveConfig(config: PropertyMap, env: Readonly<Record<string, string | undefined>>): TmkitConfig {
  return {
    server: str(config.server) ?? (env.TMKIT_SERVER?.trim() || undefined),
    token: str(config.token) ?? (env.TMKIT_TOKEN?.trim() || undefined),
    stack: str(config.stack) ?? DEFAULT_STACK,
  };
}

/** True when the token was given as a secret value (for tests and diagnostics; the value is never logged). */
export function tokenIsSecret(config: PropertyMap): boolean {
  return isSecret(config.token);
}
