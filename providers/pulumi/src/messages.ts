/**
 * The protobuf side of the gRPC layer (server.ts): request messages to the implementation's types (who a
 * request is about, its property maps) and the implementation's answers back to response messages, and what
 * a failed call becomes (its gRPC status and the message the engine shows).
 */
import * as grpc from '@grpc/grpc-js';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import type { DiffKind, DiffResult } from './diff';
import type { CheckFailure, ErrorCode, RequestContext } from './provider';
import { ProviderError } from './provider';
import type { PropertyMap } from './values';
import { WireError, mapFromWire, mapToWire } from './wire';

const KIND: Record<DiffKind, provproto.PropertyDiff.Kind> = {
  add: provproto.PropertyDiff.Kind.ADD,
  'add-replace': provproto.PropertyDiff.Kind.ADD_REPLACE,
  delete: provproto.PropertyDiff.Kind.DELETE,
  'delete-replace': provproto.PropertyDiff.Kind.DELETE_REPLACE,
  update: provproto.PropertyDiff.Kind.UPDATE,
  'update-replace': provproto.PropertyDiff.Kind.UPDATE_REPLACE,
};

const STATUS: Record<ErrorCode, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  UNKNOWN: grpc.status.UNKNOWN,
};

export function structOf(map: PropertyMap | undefined): Struct {
  return Struct.fromJavaScript(mapToWire(map) as Parameters<typeof Struct.fromJavaScript>[0]);
}

export function mapOf(s: Struct | undefined): PropertyMap {
  return mapFromWire(s?.toJavaScript());
}

/** `urn:pulumi:<stack>::<project>::<[parent$]type>::<name>` → type and name. */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split('::');
  if (parts.length < 4) return { type: '', name: '' };
  return { type: parts[2]!.split('$').pop()!, name: parts.slice(3).join('::') };
}

export function contextOf(req: { getUrn(): string; getName(): string; getType(): string }): RequestContext {
  const urn = req.getUrn();
  const parsed = parseUrn(urn);
  return { urn, name: req.getName() || parsed.name, type: req.getType() || parsed.type };
}

export function failuresOf(failures: readonly CheckFailure[]): provproto.CheckFailure[] {
  return failures.map((f) => new provproto.CheckFailure().setProperty(f.property).setReason(f.reason));
}

export function diffResponse(r: DiffResult): provproto.DiffResponse {
  const resp = new provproto.DiffResponse();
  resp.setChanges(
    r.changes === true
      ? provproto.DiffResponse.DiffChanges.DIFF_SOME
      : r.changes === false
        ? provproto.DiffResponse.DiffChanges.DIFF_NONE
        : provproto.DiffResponse.DiffChanges.DIFF_UNKNOWN,
  );
  resp.setReplacesList([...(r.replaces ?? [])]);
  resp.setStablesList([...(r.stables ?? [])]);
  resp.setDeletebeforereplace(r.deleteBeforeReplace === true);
  if (r.detailedDiff) {
    resp.setHasdetaileddiff(true);
    const m = resp.getDetaileddiffMap();
    const top = new Set<string>();
    for (const [path, kind] of Object.entries(r.detailedDiff)) {
      m.set(path, new provproto.PropertyDiff().setKind(KIND[kind]).setInputdiff(true));
      top.add(/^[^.[]*/.exec(path)![0] || path);
    }
    resp.setDiffsList([...top].sort());
  }
  return resp;
}

/** A failed call: the gRPC status carries the message the engine shows. */
export interface CallError {
  code: grpc.status;
  details: string;
}

export function callError(op: string, ctx: RequestContext | undefined, err: unknown, log: (s: string) => void): CallError {
  const where = ctx?.type ? `${ctx.type} "${ctx.name}"` : '';
  if (err instanceof ProviderError) return { code: STATUS[err.code], details: err.message };
  if (err instanceof WireError) {
    return { code: grpc.status.INVALID_ARGUMENT, details: `${where ? `${where}: ` : ''}property ${err.message}` };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  log(`${op}${where ? ` ${where}` : ''} failed: ${e.stack ?? e.message}`);
  return { code: grpc.status.UNKNOWN, details: `${op}${where ? ` ${where}` : ''} failed: ${e.message}` };
}
