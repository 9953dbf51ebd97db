/**
 * tfplugin6.Provider over a ProviderServer: converts protobuf requests to the plain types of
 * ./tfprotov6 (decoding DynamicValues against the schemas), calls the domain, converts back. Problems
 * travel as diagnostics: a decode failure, an unknown type name, a handler that throws or returns a
 * value that does not fit its schema all become error diagnostics, never a gRPC error.
 */
import type { ServerUnaryCall, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import { appendFileSync } from 'node:fs';
import { decodeJson, decodeMsgpack, encodeMsgpack } from './codec';
import type { Value, ValueObject } from './cty';
import type { Msg } from './proto';
import { shapeOfBlock, shapeOfType, type Schema } from './schema';
import { DiagnosticsError, type ProviderSchemas, type ProviderServer, type ServerCapabilities } from './tfprotov6';
import { bytes, caps, errorDiag, noEphemeral, rawState, wireDiagnostics, wireFunction, wirePath, wireSchema } from './wire';

type Kind = 'resource' | 'data source';

// ------------------------------------------------------------------------------------------ server

/**
 * tfplugin6.Provider over the domain, one method per RPC (as terraform-plugin-go's tfprotov6.ProviderServer):
 * `getMetadata` answers GetMetadata, and so on. Each takes the request message and returns the response
 * message; whatever it throws becomes the response's diagnostics (providerService). Every public method is an
 * RPC, so the gRPC table is built from their names; the helpers are #private.
 */
export class Tfplugin6Server {
  readonly #domain: ProviderServer;
  readonly #schemas: ProviderSchemas;
  readonly #wireCaps: Msg;

  constructor(domain: ProviderServer) {
    this.#domain = domain;
    this.#schemas = domain.schemas();
    const capabilities: ServerCapabilities = {
      planDestroy: true,
      getProviderSchemaOptional: true,
      moveResourceState: typeof domain.moveResourceState === 'function',
      ...domain.capabilities?.(),
    };
    this.#wireCaps = {
      plan_destroy: capabilities.planDestroy,
      get_provider_schema_optional: capabilities.getProviderSchemaOptional,
      move_resource_state: capabilities.moveResourceState,
    };
  }

  getMetadata(): Msg {
    const schemas = this.#schemas;
    return {
      server_capabilities: this.#wireCaps,
      diagnostics: [],
      data_sources: Object.keys(schemas.dataSources)
        .sort()
        .map((type_name) => ({ type_name })),
      resources: Object.keys(schemas.resources)
        .sort()
        .map((type_name) => ({ type_name })),
      functions: Object.keys(schemas.functions ?? {})
        .sort()
        .map((name) => ({ name })),
      ephemeral_resources: [],
    };
  }

  getProviderSchema(): Msg {
    const schemas = this.#schemas;
    const resource_schemas: Record<string, Msg> = {};
    for (const [k, s] of Object.entries(schemas.resources)) resource_schemas[k] = wireSchema(s);
    const data_source_schemas: Record<string, Msg> = {};
    for (const [k, s] of Object.entries(schemas.dataSources)) data_source_schemas[k] = wireSchema(s);
    return {
      provider: wireSchema(schemas.provider),
      resource_schemas,
      data_source_schemas,
      // Terraform (1.8+) and OpenTofu (1.7+) take the functions from here; GetFunctions answers the same.
      functions: this.#wireFunctions(),
      ephemeral_resource_schemas: {},
      diagnostics: [],
      provider_meta: schemas.providerMeta ? wireSchema(schemas.providerMeta) : null,
      server_capabilities: this.#wireCaps,
    };
  }

  async validateProviderConfig(req: Msg): Promise<Msg> {
    const res = await this.#domain.validateProviderConfig({
      config: this.#decodeRequired(req.config, this.#schemas.provider, 'provider configuration'),
    });
    return { diagnostics: wireDiagnostics(res.diagnostics) };
  }

  async configureProvider(req: Msg): Promise<Msg> {
    const res = await this.#domain.configureProvider({
      terraformVersion: req.terraform_version ?? '',
      config: this.#decodeRequired(req.config, this.#schemas.provider, 'provider configuration'),
      clientCapabilities: caps(req.client_capabilities),
    });
    return { diagnostics: wireDiagnostics(res.diagnostics) };
  }

  async validateResourceConfig(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.type_name);
    const res = await this.#domain.validateResourceConfig({
      typeName: req.type_name,
      config: this.#decodeRequired(req.config, schema, 'configuration'),
      clientCapabilities: caps(req.client_capabilities),
    });
    return { diagnostics: wireDiagnostics(res.diagnostics) };
  }

  async validateDataResourceConfig(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('data source', req.type_name);
    const res = await this.#domain.validateDataResourceConfig({
      typeName: req.type_name,
      config: this.#decodeRequired(req.config, schema, 'configuration'),
    });
    return { diagnostics: wireDiagnostics(res.diagnostics) };
  }

  async upgradeResourceState(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.type_name);
    const res = await this.#domain.upgradeResourceState({
      typeName: req.type_name,
      version: Number(req.version ?? 0),
      rawState: rawState(req.raw_state, req.type_name),
    });
    const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
    return {
      upgraded_state:
        failed && res.upgradedState === undefined
          ? null
          : this.#encodeValue(res.upgradedState, schema, `upgraded state of ${req.type_name}`),
      diagnostics: wireDiagnostics(res.diagnostics),
    };
  }

  async readResource(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.type_name);
    const currentState = this.#decodeRequired(req.current_state, schema, 'current state');
    const res = await this.#domain.readResource({
      typeName: req.type_name,
      currentState,
      private: bytes(req.private),
      providerMeta: this.#metaOf(req.provider_meta),
      clientCapabilities: caps(req.client_capabilities),
    });
    // newState null: gone; left out: unchanged.
    const newState = res.newState === undefined ? currentState : res.newState;
    return {
      new_state: this.#encodeValue(newState, schema, `state read for ${req.type_name}`),
      diagnostics: wireDiagnostics(res.diagnostics),
      private: Buffer.from(res.private ?? bytes(req.private)),
    };
  }

  async planResourceChange(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.type_name);
    const proposed = this.#decodeValue(req.proposed_new_state, schema, 'proposed new state');
    const res = await this.#domain.planResourceChange({
      typeName: req.type_name,
      priorState: this.#decodeValue(req.prior_state, schema, 'prior state'),
      proposedNewState: proposed,
      config: this.#decodeValue(req.config, schema, 'configuration'),
      priorPrivate: bytes(req.prior_private),
      providerMeta: this.#metaOf(req.provider_meta),
      clientCapabilities: caps(req.client_capabilities),
    });
    const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
    const planned = res.plannedState === undefined ? (failed ? null : proposed) : res.plannedState;
    return {
      planned_state:
        failed && res.plannedState === undefined ? null : this.#encodeValue(planned, schema, `planned state of ${req.type_name}`),
      requires_replace: (res.requiresReplace ?? []).map(wirePath),
      planned_private: Buffer.from(res.plannedPrivate ?? bytes(req.prior_private)),
      diagnostics: wireDiagnostics(res.diagnostics),
    };
  }

  async applyResourceChange(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.type_name);
    const priorState = this.#decodeValue(req.prior_state, schema, 'prior state');
    const plannedState = this.#decodeValue(req.planned_state, schema, 'planned state');
    const res = await this.#domain.applyResourceChange({
      typeName: req.type_name,
      priorState,
      plannedState,
      config: this.#decodeValue(req.config, schema, 'configuration'),
      plannedPrivate: bytes(req.planned_private),
      providerMeta: this.#metaOf(req.provider_meta),
    });
    const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
    // Left out: the plan came true, or on failure nothing changed (the prior state stays, so Terraform
    // does not forget an object that still exists).
    const newState = res.newState === undefined ? (failed ? priorState : plannedState) : res.newState;
    return {
      new_state: this.#encodeValue(newState, schema, `new state of ${req.type_name}`),
      private: Buffer.from(res.private ?? new Uint8Array(0)),
      diagnostics: wireDiagnostics(res.diagnostics),
    };
  }

  async importResourceState(req: Msg): Promise<Msg> {
    this.#schemaOf('resource', req.type_name);
    const res = await this.#domain.importResourceState({
      typeName: req.type_name,
      id: req.id ?? '',
      clientCapabilities: caps(req.client_capabilities),
    });
    return {
      imported_resources: (res.importedResources ?? []).map((r) => ({
        type_name: r.typeName,
        state: this.#encodeValue(r.state, this.#schemaOf('resource', r.typeName), `imported state of ${r.typeName}`),
        private: Buffer.from(r.private ?? new Uint8Array(0)),
      })),
      diagnostics: wireDiagnostics(res.diagnostics),
    };
  }

  async moveResourceState(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('resource', req.target_type_name);
    if (!this.#domain.moveResourceState)
      throw new DiagnosticsError(
        errorDiag(
          `Moving resources into ${req.target_type_name} is not supported`,
          'This provider does not implement MoveResourceState; remove the "moved" block or move between resources of the same type.',
        ),
      );
    const res = await this.#domain.moveResourceState({
      sourceProviderAddress: req.source_provider_address ?? '',
      sourceTypeName: req.source_type_name ?? '',
      sourceSchemaVersion: Number(req.source_schema_version ?? 0),
      sourceState: rawState(req.source_state, req.source_type_name),
      targetTypeName: req.target_type_name,
      sourcePrivate: bytes(req.source_private),
    });
    return {
      target_state: this.#encodeValue(res.targetState, schema, `moved state of ${req.target_type_name}`),
      diagnostics: wireDiagnostics(res.diagnostics),
      target_private: Buffer.from(res.targetPrivate ?? new Uint8Array(0)),
    };
  }

  async readDataSource(req: Msg): Promise<Msg> {
    const schema = this.#schemaOf('data source', req.type_name);
    const res = await this.#domain.readDataSource({
      typeName: req.type_name,
      config: this.#decodeRequired(req.config, schema, 'configuration'),
      providerMeta: this.#metaOf(req.provider_meta),
      clientCapabilities: caps(req.client_capabilities),
    });
    const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
    return {
      state: failed && res.state === undefined ? null : this.#encodeValue(res.state, schema, `state of data source ${req.type_name}`),
      diagnostics: wireDiagnostics(res.diagnostics),
    };
  }

  validateEphemeralResourceConfig(req: Msg): Msg {
    return noEphemeral(req.type_name);
  }

  openEphemeralResource(req: Msg): Msg {
    return noEphemeral(req.type_name);
  }

  renewEphemeralResource(req: Msg): Msg {
    return noEphemeral(req.type_name);
  }

  closeEphemeralResource(req: Msg): Msg {
    return noEphemeral(req.type_name);
  }

  getFunctions(): Msg {
    return { functions: this.#wireFunctions(), diagnostics: [] };
  }

  /**
   * No diagnostics in its response (WITHOUT_DIAGNOSTICS): a failure is its `error` (with `function_argument`,
   * Terraform shows it at that argument). Arguments are decoded against the parameters' types, the result
   * encoded against the return type.
   */
  async callFunction(req: Msg): Promise<Msg> {
    const fns = this.#schemas.functions ?? {};
    const name = String(req.name ?? '');
    const sig = Object.hasOwn(fns, name) ? fns[name] : undefined;
    if (!sig || !this.#domain.callFunction) {
      const known = Object.keys(fns).sort();
      return {
        error: {
          text: known.length
            ? `This provider has no function "${name}" (it has ${known.join(', ')}).`
            : `This provider has no functions (called "${name}").`,
        },
      };
    }
    const args: Value[] = [];
    const raw: Msg[] = req.arguments ?? [];
    for (const [i, dv] of raw.entries()) {
      const param = i < sig.parameters.length ? sig.parameters[i] : sig.variadic;
      if (!param) return { error: { text: `${name} takes ${sig.parameters.length} arguments, got ${raw.length}.` } };
      try {
        const shape = shapeOfType(param.type);
        args.push(dv?.msgpack?.length ? decodeMsgpack(dv.msgpack, shape) : dv?.json?.length ? decodeJson(dv.json, shape) : null);
      } catch (e) {
        return {
          error: {
            text: `Terraform sent a ${param.name} that is not a ${JSON.stringify(param.type)}: ${(e as Error).message}`,
            function_argument: i,
          },
        };
      }
    }
    const res = await this.#domain.callFunction({ name, arguments: args });
    if (res.error)
      return { error: { text: res.error.text, ...(res.error.argument !== undefined ? { function_argument: res.error.argument } : {}) } };
    try {
      return { result: { msgpack: Buffer.from(encodeMsgpack(res.result ?? null, shapeOfType(sig.returnType))) } };
    } catch (e) {
      return { error: { text: `Provider bug: the result of ${name} is not a ${JSON.stringify(sig.returnType)}: ${(e as Error).message}` } };
    }
  }

  #wireFunctions(): Record<string, Msg> {
    const out: Record<string, Msg> = {};
    for (const [k, f] of Object.entries(this.#schemas.functions ?? {})) out[k] = wireFunction(f);
    return out;
  }

  /** No diagnostics in its response (WITHOUT_DIAGNOSTICS): a failure is its `Error`. */
  async stopProvider(): Promise<Msg> {
    try {
      const err = await this.#domain.stopProvider?.();
      return { Error: typeof err === 'string' ? err : '' };
    } catch (e) {
      return { Error: (e as Error)?.message ?? String(e) };
    }
  }

  #schemaOf(kind: Kind, typeName: string): Schema {
    const table = kind === 'resource' ? this.#schemas.resources : this.#schemas.dataSources;
    const s = Object.hasOwn(table, typeName) ? table[typeName] : undefined;
    if (!s) {
      const known = Object.keys(table).sort();
      throw new DiagnosticsError(
        errorDiag(
          `Unknown ${kind} type "${typeName}"`,
          `This provider has ${known.length ? known.map((k) => `"${k}"`).join(', ') : `no ${kind}s`}. ` +
            'Check the type name in the configuration, or use a provider version that has it.',
        ),
      );
    }
    return s;
  }

  #decodeValue(dv: Msg | null | undefined, schema: Schema, what: string): ValueObject | null {
    if (!dv) return null;
    const shape = shapeOfBlock(schema.block);
    try {
      let v: Value;
      if (dv.msgpack?.length) v = decodeMsgpack(dv.msgpack, shape);
      else if (dv.json?.length) v = decodeJson(dv.json, shape);
      else return null;
      return v as ValueObject | null;
    } catch (e) {
      throw new DiagnosticsError(errorDiag(`Terraform sent a ${what} that does not match its schema`, (e as Error).message));
    }
  }

  #decodeRequired(dv: Msg | null | undefined, schema: Schema, what: string): ValueObject {
    const v = this.#decodeValue(dv, schema, what);
    if (v === null) throw new DiagnosticsError(errorDiag(`Terraform sent no ${what}`));
    return v;
  }

  #encodeValue(v: ValueObject | null | undefined, schema: Schema, what: string): Msg {
    try {
      return { msgpack: Buffer.from(encodeMsgpack(v ?? null, shapeOfBlock(schema.block))) };
    } catch (e) {
      throw new DiagnosticsError(
        errorDiag(
          `Provider bug: the ${what} does not match its schema`,
          `${(e as Error).message}. This is a bug in the provider; please report it.`,
        ),
      );
    }
  }

  #metaOf(dv: Msg | null | undefined): ValueObject | null {
    return this.#schemas.providerMeta && dv ? this.#decodeValue(dv, this.#schemas.providerMeta, 'provider_meta') : null;
  }
}

/** RPCs whose response has no `diagnostics`: a failure is reported as CallFunction's `error` (StopProvider's method catches its own). */
const WITHOUT_DIAGNOSTICS: ReadonlySet<string> = new Set(['CallFunction', 'StopProvider']);

/** The RPC names of a server class's public methods: `getMetadata` → GetMetadata. */
export function rpcMethods(server: object): Array<{ rpc: string; method: string }> {
  return Object.getOwnPropertyNames(Object.getPrototypeOf(server))
    .filter((method) => method !== 'constructor' && typeof (server as Record<string, unknown>)[method] === 'function')
    .map((method) => ({ rpc: `${method[0]!.toUpperCase()}${method.slice(1)}`, method }));
}

export interface ProviderServiceOptions {
  /** Append one line per RPC (name, type, ms, diagnostics) to this file (env TMKIT_TF_PROVIDER_LOG). */
  logFile?: string;
}

/**
 * The tfplugin6.Provider implementation for grpc-js (`server.addService(serviceDefinition('tfplugin6.Provider'), impl)`):
 * Tfplugin6Server's methods, each wrapped so that anything thrown becomes its response's diagnostics.
 */
export function providerService(domain: ProviderServer, opts: ProviderServiceOptions = {}): UntypedServiceImplementation {
  const server = new Tfplugin6Server(domain);
  const log = (line: string): void => {
    if (opts.logFile) appendFileSync(opts.logFile, `${new Date().toISOString()} ${line}\n`);
  };

  /** Wraps one RPC: the handler returns the response message; anything thrown becomes its diagnostics. */
  function rpc(name: string, handler: (req: Msg) => Promise<Msg> | Msg, diagField: string | null = 'diagnostics') {
    return (call: ServerUnaryCall<Msg, Msg>, callback: sendUnaryData<Msg>): void => {
      const started = performance.now();
      const req = call.request;
      Promise.resolve()
        .then(() => handler(req))
        .catch((e: unknown): Msg => {
          if (!(e instanceof DiagnosticsError)) log(`${name} threw: ${(e as Error)?.stack ?? String(e)}`);
          const diagnostics =
            e instanceof DiagnosticsError
              ? e.diagnostics
              : [errorDiag(`${req?.type_name ? `${req.type_name}: ` : ''}${(e as Error)?.message ?? String(e)}`)];
          return diagField
            ? { [diagField]: wireDiagnostics(diagnostics) }
            : { error: { text: diagnostics.map((d) => d.summary).join('; ') } };
        })
        .then(
          (res: Msg) => {
            if (opts.logFile)
              log(
                `${name} ${req?.type_name ?? ''} ${(performance.now() - started).toFixed(1)}ms ` +
                  `diagnostics=${JSON.stringify(diagField ? (res[diagField] ?? []) : [])}`,
              );
            callback(null, res);
          },
          (e: unknown) => callback(e as Error),
        );
    };
  }

  const impl: UntypedServiceImplementation = {};
  const methods = server as unknown as Record<string, (req: Msg) => Promise<Msg> | Msg>;
  for (const { rpc: name, method } of rpcMethods(server)) {
    impl[name] = rpc(name, (req) => methods[method]!.call(server, req), WITHOUT_DIAGNOSTICS.has(name) ? null : 'diagnostics');
  }
  return impl;
}
