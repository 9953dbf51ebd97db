/**
 * The store's precondition semantics (docs/api.md), shared by every Store implementation: strong ETags from the
 * content, `If-Match` / `If-None-Match: *` per RFC 9110 §13.1, and stack ownership. Pure.
 */
import type { Profile } from '../model/types';
import { sha256Hex } from '../sha256';
import { StoreError, type StoredProfile } from './types';

/** JSON with object keys sorted, so equal content hashes equally whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
    }
    return v;
  });
}

/** Content hash of a profile together with its owner. */
export function contentHash(profile: Profile, stack: string): string {
  return sha256Hex(canonicalJson({ stack, profile })).slice(0, 16);
}

export function makeEtag(revision: number, hash: string): string {
  return `"${revision}-${hash}"`;
}

/** The entity tags of an `If-Match` / `If-None-Match` value (`*`, or a comma list; weak tags compare weakly). */
export function parseEtagList(header: string): string[] {
  return header.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => (s.startsWith('W/') ? s.slice(2) : s));
}

function matches(header: string, current: StoredProfile | undefined): boolean {
  const tags = parseEtagList(header);
  if (tags.includes('*')) return current !== undefined;
  if (!current) return false;
  // Accept the tag with or without quotes: shells and scripts often drop them.
  return tags.some((t) => t === current.etag || `"${t}"` === current.etag);
}

/**
 * RFC 9110 §13.1.1–13.1.2 for a write: `If-Match` must match the current tag; `If-None-Match: *` requires
 * that nothing exists (any listed tag that matches also fails). Throws `PRECONDITION_FAILED`.
 */
export function checkPreconditions(name: string, current: StoredProfile | undefined, ifMatch?: string, ifNoneMatch?: string): void {
  if (ifMatch !== undefined && !matches(ifMatch, current)) {
    throw new StoreError('PRECONDITION_FAILED',
      current
        ? `profile '${name}' has changed: If-Match ${ifMatch} does not match the current ETag ${current.etag}; read it again and retry`
        : `profile '${name}' does not exist, so If-Match ${ifMatch} cannot match`,
      { name, currentEtag: current?.etag });
  }
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, current)) {
    throw new StoreError('PRECONDITION_FAILED',
      `profile '${name}' already exists (ETag ${current!.etag}) and If-None-Match ${ifNoneMatch} asks to create only`,
      { name, currentEtag: current?.etag });
  }
}

export function checkStack(name: string, current: StoredProfile | undefined, stack: string | undefined): void {
  if (current && stack !== undefined && current.stack !== stack) {
    throw new StoreError('STACK_CONFLICT',
      `profile '${name}' is owned by stack '${current.stack}', not '${stack}'; rename the profile or remove it from stack '${current.stack}' first`,
      { name, owner: current.stack, stack });
  }
}
