/**
 * The protocol-6 provider contract in plain TypeScript (after terraform-plugin-go's tfprotov6): one
 * method per RPC, requests with values already decoded against the schemas (./cty values, `Unknown` for
 * "known after apply"), responses with values to encode and diagnostics with attribute paths. The server
 * (./server) does the wire work: protobuf, msgpack/JSON, and turning a thrown error into an error
 * diagnostic, so nothing but diagnostics crosses the protocol.
 *
 * Most providers implement this through ./provider's `provider()` router (per-type handlers with
 * Terraform's default planning); implement it directly for full control.
 */
import type { CtyType, Value, ValueObject } from './cty';
import type { Schema } from './schema';

export type MaybePromise<T> = T | Promise<T>;

/** One step of an attribute path: an attribute name, a map key or a list/tuple/set index. */
export type PathStep = { attribute: string } | { key: string } | { index: number };
export type AttributePath = PathStep[];

export const attr = (name: string): PathStep => ({ attribute: name });
export const key = (k: string): PathStep => ({ key: k });
export const index = (i: number): PathStep => ({ index: i });

/** path('monitor_config', 0, 'port') — strings are attribute names, numbers indexes; key('x') for map keys. */
export function path(...steps: Array<string | number | PathStep>): AttributePath {
  return steps.map((s) => (typeof s === 'string' ? attr(s) : typeof s === 'number' ? index(s) : s));
}

export interface Diagnostic {
  severity: 'error' | 'warning';
  summary: string;
  detail?: string;
  /** Where in the configuration: Terraform prints the file and line of that attribute. */
  path?: AttributePath;
}

export const error = (summary: string, detail?: string, at?: AttributePath): Diagnostic => ({
  severity: 'error',
  summary,
  ...(detail !== undefined ? { detail } : {}),
  ...(at ? { path: at } : {}),
});
export const warning = (summary: string, detail?: string, at?: AttributePath): Diagnostic => ({
  severity: 'warning',
  summary,
  ...(detail !== undefined ? { detail } : {}),
  ...(at ? { path: at } : {}),
});

/**
 * Throw this from a handler to return these diagnostics (any other thrown error becomes one error
 * diagnostic with its message).
 */
export class DiagnosticsError extends Error {
  readonly diagnostics: Diagnostic[];
  constructor(...diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => (d.detail ? `${d.summary}: ${d.detail}` : d.summary)).join('; '));
    this.name = 'DiagnosticsError';
    this.diagnostics = diagnostics;
  }
}

export interface WithDiagnostics {
  diagnostics?: Diagnostic[];
}

export interface ClientCapabilities {
  deferralAllowed: boolean;
  writeOnlyAttributesAllowed: boolean;
}

export interface ProviderSchemas {
  provider: Schema;
  providerMeta?: Schema;
  resources: Record<string, Schema>;
  dataSources: Record<string, Schema>;
  /** Provider functions (`provider::<name>::<function>(...)`, Terraform ≥ 1.8, OpenTofu ≥ 1.7). */
  functions?: Record<string, FunctionSignature>;
}

/** One parameter of a provider function. `type` 'dynamic' takes a value of any type (a `Dynamic` arrives). */
export interface FunctionParameter {
  name: string;
  type: CtyType;
  /** Terraform refuses a null argument itself unless this is true. */
  allowNull?: boolean;
  /**
   * Terraform does not call the function when the argument is (or contains) an unknown value, and the
   * result is unknown, unless this is true: then the function sees the unknowns and decides.
   */
  allowUnknown?: boolean;
  description?: string;
}

/** A provider function's signature (tfplugin6 Function). */
export interface FunctionSignature {
  parameters: FunctionParameter[];
  /** The trailing parameter that takes any number of arguments (0 or more). */
  variadic?: FunctionParameter;
  returnType: CtyType;
  summary?: string;
  description?: string;
  deprecationMessage?: string;
}

export interface CallFunctionRequest {
  name: string;
  /** Decoded against the parameters' types (the variadic parameter's for the extra ones). */
  arguments: Value[];
}
export interface CallFunctionResponse {
  /** Encoded against the return type; an `Unknown` is an unknown result. */
  result?: Value;
  /** The failure, shown by Terraform at the call (at the argument when `argument` is its 0-based index). */
  error?: { text: string; argument?: number };
}

/** Throw this from a function to fail it at one argument (any other error fails the whole call). */
export class FunctionArgumentError extends Error {
  constructor(
    readonly argument: number,
    message: string,
  ) {
    super(message);
    this.name = 'FunctionArgumentError';
  }
}

export interface ServerCapabilities {
  /** PlanResourceChange is called for destroys too (prior state → null). */
  planDestroy: boolean;
  /** Terraform may skip GetProviderSchema and use a cached schema (this server never needs the call). */
  getProviderSchemaOptional: boolean;
  moveResourceState: boolean;
}

// ---------------------------------------------------------------------------------------- requests

export interface ValidateProviderConfigRequest {
  config: ValueObject;
}
export interface ConfigureProviderRequest {
  terraformVersion: string;
  config: ValueObject;
  clientCapabilities: ClientCapabilities;
}
export interface ValidateResourceConfigRequest {
  typeName: string;
  config: ValueObject;
  clientCapabilities: ClientCapabilities;
}
export interface ValidateDataResourceConfigRequest {
  typeName: string;
  config: ValueObject;
}

/** The stored state: `json` parsed (an object in the form of schema version `version`), `flatmap` for pre-0.12 states. */
export interface RawState {
  json?: unknown;
  flatmap?: Record<string, string>;
}
export interface UpgradeResourceStateRequest {
  typeName: string;
  version: number;
  rawState: RawState;
}
export interface UpgradeResourceStateResponse extends WithDiagnostics {
  upgradedState?: ValueObject | null;
}

export interface ReadResourceRequest {
  typeName: string;
  currentState: ValueObject;
  private: Uint8Array;
  providerMeta: ValueObject | null;
  clientCapabilities: ClientCapabilities;
}
/** newState null: the object is gone (Terraform plans to create it again). */
export interface ReadResourceResponse extends WithDiagnostics {
  newState?: ValueObject | null;
  private?: Uint8Array;
}

export interface PlanResourceChangeRequest {
  typeName: string;
  /** null on create. */
  priorState: ValueObject | null;
  /** null on destroy. Terraform's proposal: config merged with prior state for computed attributes. */
  proposedNewState: ValueObject | null;
  config: ValueObject | null;
  priorPrivate: Uint8Array;
  providerMeta: ValueObject | null;
  clientCapabilities: ClientCapabilities;
}
export interface PlanResourceChangeResponse extends WithDiagnostics {
  plannedState?: ValueObject | null;
  requiresReplace?: AttributePath[];
  plannedPrivate?: Uint8Array;
}

export interface ApplyResourceChangeRequest {
  typeName: string;
  priorState: ValueObject | null;
  plannedState: ValueObject | null;
  config: ValueObject | null;
  plannedPrivate: Uint8Array;
  providerMeta: ValueObject | null;
}
export interface ApplyResourceChangeResponse extends WithDiagnostics {
  newState?: ValueObject | null;
  private?: Uint8Array;
}

export interface ImportResourceStateRequest {
  typeName: string;
  id: string;
  clientCapabilities: ClientCapabilities;
}
export interface ImportedResource {
  typeName: string;
  state: ValueObject;
  private?: Uint8Array;
}
export interface ImportResourceStateResponse extends WithDiagnostics {
  importedResources?: ImportedResource[];
}

export interface MoveResourceStateRequest {
  sourceProviderAddress: string;
  sourceTypeName: string;
  sourceSchemaVersion: number;
  sourceState: RawState;
  targetTypeName: string;
  sourcePrivate: Uint8Array;
}
export interface MoveResourceStateResponse extends WithDiagnostics {
  targetState?: ValueObject | null;
  targetPrivate?: Uint8Array;
}

export interface ReadDataSourceRequest {
  typeName: string;
  config: ValueObject;
  providerMeta: ValueObject | null;
  clientCapabilities: ClientCapabilities;
}
export interface ReadDataSourceResponse extends WithDiagnostics {
  state?: ValueObject | null;
}

/** What a domain provider implements (see ./provider for the convenient way). */
export interface ProviderServer {
  schemas(): ProviderSchemas;
  capabilities?(): Partial<ServerCapabilities>;
  validateProviderConfig(req: ValidateProviderConfigRequest): MaybePromise<WithDiagnostics>;
  configureProvider(req: ConfigureProviderRequest): MaybePromise<WithDiagnostics>;
  validateResourceConfig(req: ValidateResourceConfigRequest): MaybePromise<WithDiagnostics>;
  validateDataResourceConfig(req: ValidateDataResourceConfigRequest): MaybePromise<WithDiagnostics>;
  upgradeResourceState(req: UpgradeResourceStateRequest): MaybePromise<UpgradeResourceStateResponse>;
  readResource(req: ReadResourceRequest): MaybePromise<ReadResourceResponse>;
  planResourceChange(req: PlanResourceChangeRequest): MaybePromise<PlanResourceChangeResponse>;
  applyResourceChange(req: ApplyResourceChangeRequest): MaybePromise<ApplyResourceChangeResponse>;
  importResourceState(req: ImportResourceStateRequest): MaybePromise<ImportResourceStateResponse>;
  moveResourceState?(req: MoveResourceStateRequest): MaybePromise<MoveResourceStateResponse>;
  readDataSource(req: ReadDataSourceRequest): MaybePromise<ReadDataSourceResponse>;
  /** A provider function (those of `schemas().functions`). */
  callFunction?(req: CallFunctionRequest): MaybePromise<CallFunctionResponse>;
  /** Terraform was interrupted: stop work in flight. Returns an error text if stopping failed. */
  stopProvider?(): MaybePromise<string | void>;
}

export type { Value, ValueObject };
