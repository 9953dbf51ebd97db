import type { Profile } from '../../core/model/types';
import { validateProfile } from '../../core/validate';

/** A diagnostic as the API reports it (the shape of src/core/validate's Diagnostic). */
export interface WriteDiagnostic {
  severity: 'error' | 'warning';
  code: string;
  path: string;
  message: string;
  hint?: string;
}

/**
 * Validates one profile written through the API against the other stored profiles (cross-profile rules:
 * nested targets exist, no cycle, unique relativeName). Pure; called inside the store's write.
 */
export type ProfileValidator = (input: unknown, context: readonly Profile[]) => WriteDiagnostic[];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structural minimum only (name, method, relativeName and its uniqueness): for tests of the HTTP layer alone. */
export const minimalValidator: ProfileValidator = (input, context) => {
  const out: WriteDiagnostic[] = [];
  const err = (code: string, path: string, message: string) => out.push({ severity: 'error', code, path, message });
  if (!isObj(input)) { err('DOCUMENT_SHAPE', '$', 'a profile is a JSON object'); return out; }
  const name = typeof input.name === 'string' ? input.name : '?';
  const base = `profiles[${name}]`;
  if (typeof input.name !== 'string' || input.name === '') err('PROFILE_NAME', `${base}.name`, 'name is required');
  if (typeof input.trafficRoutingMethod !== 'string') err('ROUTING_METHOD', `${base}.trafficRoutingMethod`, 'trafficRoutingMethod is required');
  const dns = isObj(input.dnsConfig) ? input.dnsConfig : undefined;
  if (!dns || typeof dns.relativeName !== 'string') err('RELATIVE_NAME', `${base}.dnsConfig.relativeName`, 'dnsConfig.relativeName is required');
  else {
    const other = context.find((p) => p.dnsConfig.relativeName.toLowerCase() === String(dns.relativeName).toLowerCase());
    if (other) err('RELATIVE_NAME_DUPLICATE', `${base}.dnsConfig.relativeName`, `relativeName '${String(dns.relativeName)}' is already used by profile '${other.name}'`);
  }
  return out;
};

/**
 * The validator the API uses: every rule of src/core/validate, with the other stored profiles as context
 * (nested targets exist, no cycle or too-deep nesting, unique relativeName).
 */
export const defaultValidator: ProfileValidator = (input, context) => validateProfile(input, { context });
