/**
 * How tmkit constructs recognise each other in a construct tree without importing each other's classes
 * (the CDK `isFoo` pattern: a symbol on the instance, so two copies of the library still interoperate).
 */
import type { IConstruct } from 'constructs';
import type { EndpointInput, ProfileInput } from '../core/model/types';

export const PROFILE_SYMBOL = Symbol.for('tmkit.constructs.Profile');
export const ENDPOINT_SYMBOL = Symbol.for('tmkit.constructs.Endpoint');
export const DOCUMENT_SCOPE_SYMBOL = Symbol.for('tmkit.constructs.DocumentScope');
/** Set on a construct whose constructor rejected its props (the construct stays in the tree, left out of the document). */
export const REJECTED_SYMBOL = Symbol.for('tmkit.constructs.Rejected');

/** What a construct whose props were rejected records: the error its constructor threw and its document path. */
export interface RejectedProps {
  /** The problems (`<prop> <rule> (got <value>)`). */
  problems: readonly string[];
  /** The document path the construct would have had (`profiles[web]`, `profiles[web].endpoints[eu]`), or `$`. */
  path: string;
  /** `Profile`, `ExternalEndpoint`, ... */
  constructType: string;
}

/** What synthesis needs from a profile construct. */
export interface ProfileNode extends IConstruct {
  /** The profile's `name` in the document. */
  readonly profileName: string;
  /** The profile as a document entry (only the props the user set, plus its endpoints in order). */
  toProfileInput(): ProfileInput;
}

/** What synthesis needs from an endpoint construct. */
export interface EndpointNode extends IConstruct {
  /** The endpoint's `name` in the document. */
  readonly endpointName: string;
  toEndpointInput(): EndpointInput;
}

/** Settings a document scope (the tmkit `App`, or any construct marked with `markDocumentScope`) carries. */
export interface DocumentScopeSettings {
  /** The document's `stack`; omitted from the document (= "default") when undefined. */
  stack?: string;
  /** Also apply Azure-only restrictions (public targets) when validating. */
  strictAzure?: boolean;
}

const has = (x: unknown, sym: symbol): boolean => typeof x === 'object' && x !== null && sym in x;

/** A tmkit profile construct that was constructed successfully (a rejected one is not part of any document). */
export function isProfileNode(x: unknown): x is ProfileNode {
  return has(x, PROFILE_SYMBOL) && !has(x, REJECTED_SYMBOL);
}

/** A tmkit endpoint construct that was constructed successfully. */
export function isEndpointNode(x: unknown): x is EndpointNode {
  return has(x, ENDPOINT_SYMBOL) && !has(x, REJECTED_SYMBOL);
}

/** What the constructor of `x` rejected, when it threw `InvalidPropsError` (user code may catch it). */
export function rejectedProps(x: unknown): RejectedProps | undefined {
  return has(x, REJECTED_SYMBOL) ? (x as Record<symbol, RejectedProps>)[REJECTED_SYMBOL] : undefined;
}

/** Marks `c` as rejected: it stays in the construct tree (constructs cannot be removed safely) but never synthesizes. */
export function markRejected(c: IConstruct, r: RejectedProps): void {
  Object.defineProperty(c, REJECTED_SYMBOL, { value: r, enumerable: false });
}

/**
 * Marks `scope` as the root of one tmkit document: validation hooks of the profiles below it validate
 * the profiles found under this scope as one document. The tmkit `App` marks itself; a CDKTF stack (or any
 * other construct) can be marked so several stacks in one app each form their own document.
 */
export function markDocumentScope(scope: IConstruct, settings: DocumentScopeSettings = {}): void {
  Object.defineProperty(scope, DOCUMENT_SCOPE_SYMBOL, { value: { ...settings }, enumerable: false, configurable: true });
}

/** The settings of a marked document scope, or undefined. */
export function documentScopeSettings(scope: IConstruct): DocumentScopeSettings | undefined {
  return (scope as unknown as Record<symbol, DocumentScopeSettings | undefined>)[DOCUMENT_SCOPE_SYMBOL];
}

/**
 * The scope whose profiles form the document `c` belongs to: the nearest marked ancestor (the tmkit
 * `App`, or a scope passed to `markDocumentScope`), else the root of the tree.
 */
export function documentScopeOf(c: IConstruct): IConstruct {
  const scopes = c.node.scopes; // root first, c last
  for (let i = scopes.length - 1; i >= 0; i--) {
    if (documentScopeSettings(scopes[i]!) !== undefined) return scopes[i]!;
  }
  return c.node.root;
}

/** A construct path for messages; the root's path is empty, shown as `/`. */
export function displayPath(c: IConstruct): string {
  return c.node.path === '' ? '/' : c.node.path;
}
