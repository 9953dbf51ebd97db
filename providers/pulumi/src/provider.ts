/**
 * The domain side of a Pulumi resource provider: what a provider implements so that server.ts can serve it
 * over pulumirpc.ResourceProvider. Everything here is plain TypeScript: property maps are values.ts values
 * (with explicit Secret and Unknown markers), failures are data, and no gRPC or protobuf type leaks in.
 *
 * What the layer does for every provider, so an implementation cannot get it wrong:
 * - converts Structs both ways (unknown sentinels, secret wrappers, undefined stripped);
 * - re-wraps secrets on everything returned from check, create, read and update: the properties listed in
 *   `secretOutputs`, and every property whose input was secret (by key, recursing into objects), so plaintext
 *   never lands in state even if the implementation returns revealed values;
 * - never calls create or update during preview: it calls `preview` (or returns the inputs with the
 *   `computed` outputs unknown);
 * - maps a thrown error to a gRPC error carrying its message (ProviderError chooses the status code).
 */
import type { DiffResult } from './diff';
import type { PropertyMap } from './values';

export type { DiffKind, DiffResult } from './diff';

/** One problem with an input: `property` is a Pulumi property path (`nested.port`), '' for the whole object. */
export interface CheckFailure {
  property: string;
  reason: string;
}

export interface CheckResult {
  /** The checked inputs (defaults applied); they are what diff/create/update receive and what state records. */
  inputs: PropertyMap;
  failures: CheckFailure[];
  /** Warnings about the inputs (the engine shows them on the resource, during preview and up). */
  warnings?: string[];
}

/** Who a request is about. */
export interface RequestContext {
  urn: string;
  /** The resource's logical name (the last URN segment). */
  name: string;
  /** The resource type token, e.g. `tmkit:index:Profile`. */
  type: string;
}

export interface CheckRequest extends RequestContext {
  /** The new inputs from the program. May hold Unknowns during preview. */
  news: PropertyMap;
  /** The previous checked inputs; empty on create. */
  olds: PropertyMap;
  /** Bytes for deterministic random values (auto-names), from the engine. */
  randomSeed: Uint8Array;
}

export interface DiffRequest extends RequestContext {
  id: string;
  /** The previous outputs (state). */
  olds: PropertyMap;
  /** The previous checked inputs. */
  oldInputs: PropertyMap;
  /** The new checked inputs. */
  news: PropertyMap;
  ignoreChanges: string[];
}

export interface CreateRequest extends RequestContext {
  inputs: PropertyMap;
  /** Seconds; 0 = no custom timeout. */
  timeout: number;
}

export interface CreateResult {
  /** Must be non-empty. */
  id: string;
  outputs: PropertyMap;
  /** Warnings the write brought back (the engine shows them on the resource). */
  warnings?: string[];
}

export interface ReadRequest extends RequestContext {
  id: string;
  /** The outputs in state; empty for an import. */
  state: PropertyMap;
  /** The inputs in state; undefined for an import. */
  inputs: PropertyMap | undefined;
}

export interface ReadResult {
  /** Defaults to the requested id. */
  id?: string;
  outputs: PropertyMap;
  /** The inputs that would produce this object (needed for import; refresh keeps the old ones if absent). */
  inputs?: PropertyMap;
}

export interface UpdateRequest extends RequestContext {
  id: string;
  olds: PropertyMap;
  oldInputs: PropertyMap;
  news: PropertyMap;
  timeout: number;
  ignoreChanges: string[];
}

export interface PreviewRequest extends RequestContext {
  /** Undefined for a create. */
  id: string | undefined;
  /** The new checked inputs. */
  inputs: PropertyMap;
  /** The previous outputs, for an update; undefined for a create. */
  olds: PropertyMap | undefined;
}

export interface DeleteRequest extends RequestContext {
  id: string;
  state: PropertyMap;
  oldInputs: PropertyMap;
  timeout: number;
}

type MaybePromise<T> = T | Promise<T>;

/** One resource type. */
export interface ResourceImpl {
  /** Output properties computed by create/update (not inputs): Unknown during a default preview. */
  readonly computed?: readonly string[];
  /** Top-level properties always returned as secrets (in checked inputs and outputs). */
  readonly secretOutputs?: readonly string[];
  /** Properties whose change replaces the object, for the default diff. */
  readonly replaceOnChanges?: readonly string[];
  check(req: CheckRequest): MaybePromise<CheckResult>;
  /** Default: diffProperties(oldInputs, news, {replaceOnChanges}). */
  diff?(req: DiffRequest): MaybePromise<DiffResult>;
  create(req: CreateRequest): MaybePromise<CreateResult>;
  /** undefined: the object no longer exists (refresh drops it from state; import fails). */
  read(req: ReadRequest): MaybePromise<ReadResult | undefined>;
  update(req: UpdateRequest): MaybePromise<{ outputs: PropertyMap; warnings?: string[] }>;
  delete(req: DeleteRequest): MaybePromise<void>;
  /** Outputs to show during preview (no side effects). Default: the inputs (over the old outputs on update) with `computed` Unknown. */
  preview?(req: PreviewRequest): MaybePromise<PropertyMap>;
  /**
   * The id a create would give, when it is known before the create (a name-derived id), so a preview of a
   * replacement with the same id does not show its dependents changing. Default: not known ('').
   */
  previewId?(req: PreviewRequest): MaybePromise<string | undefined>;
  /**
   * Warnings for the preview of a create or update (the engine shows them on the resource), read without
   * side effects after Configure, e.g. tmkit's live health. A hook that cannot say returns none.
   */
  previewWarnings?(req: PreviewRequest): MaybePromise<string[]>;
}

/** A whole provider plugin: its package, config and resource types. */
export interface ProviderImpl {
  /** Package name, e.g. `tmkit` (the plugin binary is `pulumi-resource-<name>`). */
  readonly name: string;
  readonly version: string;
  /** The Pulumi package schema, as JSON text. */
  schema(): string;
  /** Validates provider config (`<name>:<key>` values, or a provider resource's inputs). Default: accept. */
  checkConfig?(req: CheckRequest): MaybePromise<CheckResult>;
  /** Default: diffProperties(oldInputs, news) (no replacement). */
  diffConfig?(req: DiffRequest): MaybePromise<DiffResult>;
  /** Receives the checked config (secrets still wrapped). Called once, before any resource operation. */
  configure(config: PropertyMap): MaybePromise<void>;
  readonly resources: Readonly<Record<string, ResourceImpl>>;
  /** The engine is shutting down: abandon outstanding work. */
  cancel?(): MaybePromise<void>;
}

/** gRPC status codes a provider may choose for an error (the rest map to UNKNOWN). */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'PERMISSION_DENIED'
  | 'UNAUTHENTICATED'
  | 'UNAVAILABLE'
  | 'UNIMPLEMENTED'
  | 'UNKNOWN';

/** An expected failure: its message is shown to the user as is (no stack), with `code` as the gRPC status. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode = 'UNKNOWN',
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
