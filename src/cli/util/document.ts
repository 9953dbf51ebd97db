import type { Diagnostic } from '../../core/diagnostics';
import { detectArmInput, importArm, type ArmInputKind } from '../../core/model/arm-import';
import { readJsonFile } from './files';

export interface LoadedDocument {
  /** The tmkit/v1 document input (imported when the file held Azure ARM JSON); unknown shape if neither. */
  input: unknown;
  /** What the file held. */
  kind: ArmInputKind;
  /** Problems found while importing ARM JSON (empty for tmkit documents). */
  importIssues: Diagnostic[];
}

/**
 * Reads a document for `validate`/`plan`-like commands: a `tmkit/v1` document is used as is; Azure's
 * JSON for profiles (or an ARM template) is converted first (see core/model/arm-import.ts). Anything
 * else is passed through so validation reports what is wrong with it.
 */
export function loadDocument(file: string): LoadedDocument {
  const raw = readJsonFile(file, 'document', 'pass a tmkit/v1 document (tmkit synth writes tmkit.out.json) or the JSON Azure prints for a profile');
  const kind = detectArmInput(raw);
  if (kind === 'tmkit' || kind === 'unknown') return { input: raw, kind, importIssues: [] };
  const { document, issues } = importArm(raw);
  return { input: document ?? { apiVersion: 'tmkit/v1', profiles: [] }, kind, importIssues: issues };
}

/** Names of the profiles of a raw document input, for grouping diagnostics (ignores malformed entries). */
export function profileNames(input: unknown): string[] {
  const profiles = (input as { profiles?: unknown } | null)?.profiles;
  if (!Array.isArray(profiles)) return [];
  return profiles.flatMap((p) => (typeof p === 'object' && p !== null && typeof (p as { name?: unknown }).name === 'string' ? [(p as { name: string }).name] : []));
}

/** Number of endpoints over all profiles of a raw document input. */
export function endpointCount(input: unknown): number {
  const profiles = (input as { profiles?: unknown } | null)?.profiles;
  if (!Array.isArray(profiles)) return 0;
  return profiles.reduce((n: number, p) => n + (Array.isArray((p as { endpoints?: unknown } | null)?.endpoints) ? ((p as { endpoints: unknown[] }).endpoints.length) : 0), 0);
}
