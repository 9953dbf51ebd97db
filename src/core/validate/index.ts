/**
 * Validation of `tmkit/v1` documents: structure first (JSON types, required and unknown properties),
 * then `normalize()` and the semantic rules, one module per rule family. Every problem is reported in
 * one run; nothing here throws, whatever the input.
 */
import { normalize } from '../model/normalize';
import { API_VERSION, type Document, type DocumentInput } from '../model/types';
import { buildCtx, type ValidateOptions } from './context';
import type { Diagnostic } from '../diagnostics';
import { Reporter } from './diagnostics';
import { checkDns } from './rules/dns';
import { checkEndpoints } from './rules/endpoints';
import { checkFailback } from './rules/failback';
import { checkGeo } from './rules/geo';
import { checkChecks } from './rules/checks';
import { checkHealthExtensions } from './rules/health-extensions';
import { checkMonitor } from './rules/monitor';
import { checkMultiValue } from './rules/multivalue';
import { checkNames, checkStack } from './rules/naming';
import { checkNesting } from './rules/nesting';
import { checkPerformance, checkPerformanceLatency } from './rules/performance';
import { checkProfile } from './rules/profile';
import { checkSubnets } from './rules/subnets';
import { checkTargets } from './rules/targets';
import { checkDocumentStructure, checkProfileStructure } from './structure';
import { isObj, itemSegment, show } from './util';

export type { Diagnostic, Severity } from '../diagnostics';
export { formatDiagnostic, hasErrors } from '../diagnostics';
export type { ValidateOptions } from './context';
export { RULES, type RuleCode, type RuleInfo } from './catalog';
export {
  parseIp,
  parseIPv4,
  parseIPv6,
  formatIp,
  networkAddress,
  broadcastAddress,
  nonPublicReason,
  type IpAddress,
  type IpFamily,
} from '../net/ip';
export { classifyTarget } from './target';
export { parsePemCertificates } from './pem';

const FAMILIES = [
  checkNames,
  checkDns,
  checkProfile,
  checkMonitor,
  checkHealthExtensions,
  checkChecks,
  checkEndpoints,
  checkTargets,
  checkGeo,
  checkSubnets,
  checkMultiValue,
  checkPerformance,
  checkNesting,
  checkFailback,
  checkPerformanceLatency,
] as const;

function semantic(r: Reporter, rawProfiles: readonly unknown[], options: ValidateOptions): void {
  const ctx = buildCtx(r, rawProfiles, options);
  for (const family of FAMILIES) family(ctx);
}

/** Runs `fn`; an unexpected exception becomes a diagnostic instead of escaping (defence in depth). */
function guarded(r: Reporter, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    r.diagnostics.push({
      severity: 'error',
      code: 'INTERNAL_ERROR',
      path: '$',
      message: `the validator failed on this input: ${err instanceof Error ? err.message : String(err)}`,
      hint: 'please report this with the document',
    });
  }
}

/** Orders diagnostics by profile (document-level first), keeping each profile's rule order. */
function ordered(d: Diagnostic[], rawProfiles: readonly unknown[]): Diagnostic[] {
  const rank = new Map<string, number>();
  rawProfiles.forEach((p, i) => {
    const key = `profiles${itemSegment(p, i, true)}`;
    if (!rank.has(key)) rank.set(key, i + 1);
  });
  const rankOf = (path: string): number => {
    if (!path.startsWith('profiles[')) return 0;
    let depth = 0;
    for (let i = 8; i < path.length; i++) {
      const ch = path[i];
      if (ch === '[') depth++;
      else if (ch === ']' && --depth === 0) return rank.get(path.slice(0, i + 1)) ?? 0;
    }
    return 0;
  };
  return d
    .map((x, i) => ({ x, i, r: rankOf(x.path) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((y) => y.x);
}

/** Every diagnostic for a whole document (raw user input: JSON, or what a construct tree synthesized). */
export function validate(input: unknown, options: ValidateOptions = {}): Diagnostic[] {
  const r = new Reporter();
  const rawProfiles = isObj(input) && Array.isArray(input.profiles) ? (input.profiles as unknown[]) : [];
  guarded(r, () => {
    checkDocumentStructure(r, input);
    if (!isObj(input)) return;
    const v = input.apiVersion;
    if (typeof v === 'string' && v !== API_VERSION) {
      r.report(
        'API_VERSION',
        'apiVersion',
        `apiVersion ${show(v)} is not supported: this tmkit reads "${API_VERSION}"`,
        `set "apiVersion": "${API_VERSION}"`,
      );
    }
    checkStack(r, input.stack);
    semantic(r, rawProfiles, options ?? {});
  });
  return ordered(r.diagnostics, rawProfiles);
}

/**
 * Every diagnostic for one profile (the management API's PUT body). Paths still start with
 * `profiles[<name>]`. Pass the other deployed profiles as `options.context` so nested references,
 * relativeName uniqueness, cycles and depth are checked against them.
 */
export function validateProfile(input: unknown, options: ValidateOptions = {}): Diagnostic[] {
  const r = new Reporter();
  guarded(r, () => {
    const path = `profiles${itemSegment(input, 0, true)}`;
    checkProfileStructure(r, input, path);
    semantic(r, [input], options ?? {});
  });
  return r.diagnostics;
}

/** Validates and, only when there is no error, returns the normalized document too. */
export function parseDocument(input: unknown, options: ValidateOptions = {}): { document?: Document; diagnostics: Diagnostic[] } {
  const diagnostics = validate(input, options);
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  let document: Document;
  try {
    document = normalize(input as DocumentInput);
  } catch (err) {
    diagnostics.push({
      severity: 'error',
      code: 'INTERNAL_ERROR',
      path: '$',
      message: `normalize failed: ${err instanceof Error ? err.message : String(err)}`,
    });
    return { diagnostics };
  }
  return { document, diagnostics };
}
export { referrersOf, deleteReferenced, nameClash } from './references';
