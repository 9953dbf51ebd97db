/** Errors on the wire: the body of every failed request, and Diagnostics to and from JSON. */
import type { Diagnostic } from '../diagnostics';

/**
 * The error body of every failed request: `{"errors": [...]}`. Each entry is a Diagnostic; on the wire
 * `path` is left out when it is empty (the problem is not about one place).
 */
export interface ApiErrorBody {
  errors: WireDiagnostic[];
}

/** A Diagnostic as JSON: `path` absent when empty; `severity` absent only in bodies of older servers. */
export type WireDiagnostic = Omit<Diagnostic, 'path' | 'severity'> & { path?: string; severity?: Diagnostic['severity'] };

export function toWire(d: Diagnostic): WireDiagnostic {
  const w: WireDiagnostic = { code: d.code, message: d.message, severity: d.severity };
  if (d.path !== '') w.path = d.path;
  if (d.hint !== undefined) w.hint = d.hint;
  return w;
}

export function fromWire(w: WireDiagnostic): Diagnostic {
  const d: Diagnostic = { severity: w.severity ?? 'error', code: String(w.code), path: w.path ?? '', message: String(w.message) };
  if (w.hint !== undefined) d.hint = w.hint;
  return d;
}
