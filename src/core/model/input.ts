/**
 * What a document file may hold, turned into a `tmkit/v1` document input: a tmkit document is used as is;
 * Azure's JSON for profiles (or an ARM template) is imported first (arm-import.ts); anything else passes
 * through so validation reports what is wrong with it. Used by every command and provider that takes a
 * document, so they all accept the same inputs.
 */
import type { Diagnostic } from '../diagnostics';
import { detectArmInput, importArm, type ArmInputKind } from './arm-import';

export interface DocumentSource {
  /** The tmkit/v1 document input (imported when the input held Azure ARM JSON); unknown shape if neither. */
  input: unknown;
  /** What the input held. */
  kind: ArmInputKind;
  /** Problems found while importing ARM JSON (empty for tmkit documents). */
  importIssues: Diagnostic[];
}

export function documentSource(raw: unknown): DocumentSource {
  const kind = detectArmInput(raw);
  if (kind === 'tmkit' || kind === 'unknown') return { input: raw, kind, importIssues: [] };
  const { document, issues } = importArm(raw);
  return { input: document ?? { apiVersion: 'tmkit/v1', profiles: [] }, kind, importIssues: issues };
}

const profilesOf = (input: unknown): unknown[] => {
  const profiles = (input as { profiles?: unknown } | null)?.profiles;
  return Array.isArray(profiles) ? profiles : [];
};

/** Names of the profiles of a raw document input, for grouping diagnostics (ignores malformed entries). */
export function profileNames(input: unknown): string[] {
  return profilesOf(input).flatMap((p) =>
    typeof p === 'object' && p !== null && typeof (p as { name?: unknown }).name === 'string' ? [(p as { name: string }).name] : [],
  );
}

/** Number of endpoints over all profiles of a raw document input. */
export function endpointCount(input: unknown): number {
  return profilesOf(input).reduce(
    (n: number, p) =>
      n + (Array.isArray((p as { endpoints?: unknown } | null)?.endpoints) ? (p as { endpoints: unknown[] }).endpoints.length : 0),
    0,
  );
}
