/**
 * The store's precondition semantics (docs/api.md), shared by every Store implementation: strong ETags from the
 * content, `If-Match` / `If-None-Match: *` per RFC 9110 §13.1, and stack ownership. Pure.
 */
import type { Profile } from '../model/types';
import { sha256Hex } from '../sha256';
import { StoreError, type StoredProfile } from './types';

/**
 * JSON with object keys sorted, so equal content hashes equally whatever the key order. The same text as
 * `JSON.stringify(value)` with every object's keys sorted (toJSON, undefined and non-finite numbers as JSON
 * treats them), written in one pass without copying the objects: it is on every write's path.
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value) as string;
}

/** A property name JSON writes as it is, between quotes (every name of a profile). */
const PLAIN_KEY = /^[A-Za-z0-9_$]*$/;

const isIndexKey = (k: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;

function writeCanonical(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      const withJson = v as { toJSON?: (key: string) => unknown };
      if (typeof withJson.toJSON === 'function') return writeCanonical(withJson.toJSON(''));
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + (writeCanonical(v[i]) ?? 'null');
        return `${s}]`;
      }
      const o = v as Record<string, unknown>;
      // As JSON.stringify of a sorted copy lists them: array-index keys first, ascending (Object.keys
      // already gives them so), then the others sorted.
      const all = Object.keys(o);
      let n = 0;
      while (n < all.length && isIndexKey(all[n]!)) n++;
      const keys = n === 0 ? all.sort() : [...all.slice(0, n), ...all.slice(n).sort()];
      let s = '{';
      let first = true;
      for (const k of keys) {
        const item = writeCanonical(o[k]);
        if (item === undefined) continue;
        s += `${first ? '' : ','}${PLAIN_KEY.test(k) ? `"${k}"` : JSON.stringify(k)}:${item}`;
        first = false;
      }
      return `${s}}`;
    }
    case 'bigint':
      return JSON.stringify(v); // throws, as JSON does
    default:
      return undefined; // undefined, functions, symbols: left out, as JSON does
  }
}

/**
 * Content hash of a normalized profile together with its owner, from the profile's JSON text as the store
 * writes it (`document`). normalizeProfile builds every object in a fixed key order (core/model/normalize.ts),
 * so equal profiles have equal text; the hash of what changed is the hash of what is written, in one pass.
 */
export function documentHash(document: string, stack: string, sha256: (text: string) => string = sha256Hex): string {
  return sha256(`${stack}\n${document}`).slice(0, 16);
}

/** `documentHash` of a normalized profile. */
export function contentHash(profile: Profile, stack: string, sha256: (text: string) => string = sha256Hex): string {
  return documentHash(JSON.stringify(profile), stack, sha256);
}

export function makeEtag(revision: number, hash: string): string {
  return `"${revision}-${hash}"`;
}

/** The entity tags of an `If-Match` / `If-None-Match` value (`*`, or a comma list; weak tags compare weakly). */
export function parseEtagList(header: string): string[] {
  return header
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (s.startsWith('W/') ? s.slice(2) : s));
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
    throw new StoreError(
      'PRECONDITION_FAILED',
      current
        ? `profile '${name}' has changed: If-Match ${ifMatch} does not match the current ETag ${current.etag}; read it again and retry`
        : `profile '${name}' does not exist, so If-Match ${ifMatch} cannot match`,
      { name, currentEtag: current?.etag },
    );
  }
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, current)) {
    throw new StoreError(
      'PRECONDITION_FAILED',
      `profile '${name}' already exists (ETag ${current!.etag}) and If-None-Match ${ifNoneMatch} asks to create only`,
      { name, currentEtag: current?.etag },
    );
  }
}

export function checkStack(name: string, current: StoredProfile | undefined, stack: string | undefined): void {
  if (current && stack !== undefined && current.stack !== stack) {
    throw new StoreError(
      'STACK_CONFLICT',
      `profile '${name}' is owned by stack '${current.stack}', not '${stack}'; rename the profile or remove it from stack '${current.stack}' first`,
      { name, owner: current.stack, stack },
    );
  }
}
