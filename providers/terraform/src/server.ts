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
import { shapeOfBlock, type Attribute, type Block, type Schema } from './schema';
import { DiagnosticsError, type AttributePath, type ClientCapabilities, type Diagnostic, type ProviderSchemas, type ProviderServer, type RawState, type ServerCapabilities } from './tfprotov6';

type Kind = 'resource' | 'data source';


const errorDiag = (summary: string, detail?: string): Diagnostic => ({ severity: 'error', summary, ...(detail ? { detail } : {}) });

// ------------------------------------------------------------------------------------------ to wire

function wireAttributes(attrs: Record<string, Attribute> | undefined): Msg[] {
  return Object.keys(attrs ?? {}).sort().map((name) => {
    const a = attrs![name]!;
    return {
      name,
      type: a.type !== undefined ? Buffer.from(JSON.stringify(a.type)) : Buffer.alloc(0),
      nested_type: a.nested ? { attributes: wireAttributes(a.nested.attributes), nesting: a.nested.nesting.toUpperCase() } : null,
      description: a.description ?? '',
      required: !!a.required,
      optional: !!a.optional,
      computed: !!a.computed,
      sensitive: !!a.sensitive,
      description_kind: (a.descriptionKind ?? 'plain').toUpperCase(),
      deprecated: !!a.deprecated,
      write_only: !!a.writeOnly,
    };
  });
}

function wireBlock(b: Block, version: number): Msg {
  return {
    version,
    attributes: wireAttributes(b.attributes),
    block_types: Object.keys(b.blocks ?? {}).sort().map((name) => {
      const nb = b.blocks![name]!;
      return { type_name: name, block: wireBlock(nb.block, 0), nesting: nb.nesting.toUpperCase(), min_items: nb.minItems ?? 0, max_items: nb.maxItems ?? 0 };
    }),
    description: b.description ?? '',
    description_kind: (b.descriptionKind ?? 'plain').toUpperCase(),
    deprecated: !!b.deprecated,
  };
}

export function wireSchema(s: Schema): Msg {
  return { version: s.version ?? 0, block: wireBlock(s.block, s.version ?? 0) };
}

export function wirePath(p: AttributePath): Msg {
  return {
    steps: p.map((s) => ('attribute' in s ? { attribute_name: s.attribute } : 'key' in s ? { element_key_string: s.key } : { element_key_int: s.index })),
  };
}

export function wireDiagnostics(ds: Diagnostic[] | undefined): Msg[] {
  return (ds ?? []).map((d) => ({
    severity: d.severity === 'warning' ? 'WARNING' : 'ERROR',
    summary: d.summary,
    detail: d.detail ?? '',
    attribute: d.path && d.path.length ? wirePath(d.path) : null,
  }));
}

// ---------------------------------------------------------------------------------------- from wire

function caps(m: Msg | null | undefined): ClientCapabilities {
  return { deferralAllowed: !!m?.deferral_allowed, writeOnlyAttributesAllowed: !!m?.write_only_attributes_allowed };
}

function rawState(m: Msg | null | undefined, what: string): RawState {
  const out: RawState = {};
  if (m?.json && m.json.length) {
    try {
      out.json = JSON.parse(Buffer.from(m.json).toString('utf8'));
    } catch (e) {
      throw new DiagnosticsError(errorDiag(`${what}: the stored state is not valid JSON`, (e as Error).message));
    }
  }
  if (m?.flatmap && Object.keys(m.flatmap).length) out.flatmap = m.flatmap as Record<string, string>;
  return out;
}

const bytes = (b: Uint8Array | null | undefined): Uint8Array => (b ? new Uint8Array(b) : new Uint8Array(0));

// ------------------------------------------------------------------------------------------ server

export interface ProviderServiceOptions {
  /** Append one line per RPC (name, type, ms, diagnostics) to this file (env TMKIT_TF_PROVIDER_LOG). */
  logFile?: string;
}

/**
 * The tfplugin6.Provider implementation for grpc-js (`server.addService(serviceDefinition('tfplugin6.Provider'), impl)`).
 */
export function providerService(domain: ProviderServer, opts: ProviderServiceOptions = {}): UntypedServiceImplementation {
  const schemas: ProviderSchemas = domain.schemas();
  const capabilities: ServerCapabilities = {
    planDestroy: true,
    getProviderSchemaOptional: true,
    moveResourceState: typeof domain.moveResourceState === 'function',
    ...domain.capabilities?.(),
  };
  const wireCaps = { plan_destroy: capabilities.planDestroy, get_provider_schema_optional: capabilities.getProviderSchemaOptional, move_resource_state: capabilities.moveResourceState };
  const log = (line: string): void => {
    if (opts.logFile) appendFileSync(opts.logFile, `${new Date().toISOString()} ${line}\n`);
  };

  const schemaOf = (kind: Kind, typeName: string): Schema => {
    const table = kind === 'resource' ? schemas.resources : schemas.dataSources;
    const s = Object.prototype.hasOwnProperty.call(table, typeName) ? table[typeName] : undefined;
    if (!s) {
      const known = Object.keys(table).sort();
      throw new DiagnosticsError(errorDiag(`Unknown ${kind} type "${typeName}"`, `This provider has ${known.length ? known.map((k) => `"${k}"`).join(', ') : `no ${kind}s`}. Check the type name in the configuration, or use a provider version that has it.`));
    }
    return s;
  };

  const decodeValue = (dv: Msg | null | undefined, schema: Schema, what: string): ValueObject | null => {
    if (!dv) return null;
    const shape = shapeOfBlock(schema.block);
    try {
      let v: Value;
      if (dv.msgpack && dv.msgpack.length) v = decodeMsgpack(dv.msgpack, shape);
      else if (dv.json && dv.json.length) v = decodeJson(dv.json, shape);
      else return null;
      return v as ValueObject | null;
    } catch (e) {
      throw new DiagnosticsError(errorDiag(`Terraform sent a ${what} that does not match its schema`, (e as Error).message));
    }
  };
  const decodeRequired = (dv: Msg | null | undefined, schema: Schema, what: string): ValueObject => {
    const v = decodeValue(dv, schema, what);
    if (v === null) throw new DiagnosticsError(errorDiag(`Terraform sent no ${what}`));
    return v;
  };
  const encodeValue = (v: ValueObject | null | undefined, schema: Schema, what: string): Msg => {
    try {
      return { msgpack: Buffer.from(encodeMsgpack(v ?? null, shapeOfBlock(schema.block))) };
    } catch (e) {
      throw new DiagnosticsError(errorDiag(`Provider bug: the ${what} does not match its schema`, `${(e as Error).message}. This is a bug in the provider; please report it.`));
    }
  };
  const metaOf = (dv: Msg | null | undefined): ValueObject | null => (schemas.providerMeta && dv ? decodeValue(dv, schemas.providerMeta, 'provider_meta') : null);

  /** Wraps one RPC: the handler returns the response message; anything thrown becomes its diagnostics. */
  function rpc(name: string, handler: (req: Msg) => Promise<Msg> | Msg, diagField: string | null = 'diagnostics') {
    return (call: ServerUnaryCall<Msg, Msg>, callback: sendUnaryData<Msg>): void => {
      const started = performance.now();
      const req = call.request;
      Promise.resolve()
        .then(() => handler(req))
        .catch((e: unknown): Msg => {
          if (!(e instanceof DiagnosticsError)) log(`${name} threw: ${(e as Error)?.stack ?? String(e)}`);
          const diagnostics = e instanceof DiagnosticsError ? e.diagnostics : [errorDiag(`${req?.type_name ? `${req.type_name}: ` : ''}${(e as Error)?.message ?? String(e)}`)];
          return diagField ? { [diagField]: wireDiagnostics(diagnostics) } : { error: { text: diagnostics.map((d) => d.summary).join('; ') } };
        })
        .then((res: Msg) => {
          if (opts.logFile) log(`${name} ${req?.type_name ?? ''} ${(performance.now() - started).toFixed(1)}ms diagnostics=${JSON.stringify(diagField ? res[diagField] ?? [] : [])}`);
          callback(null, res);
        }, (e: unknown) => callback(e as Error));
    };
  }

  const impl: UntypedServiceImplementation = {
    GetMetadata: rpc('GetMetadata', () => ({
      server_capabilities: wireCaps,
      diagnostics: [],
      data_sources: Object.keys(schemas.dataSources).sort().map((type_name) => ({ type_name })),
      resources: Object.keys(schemas.resources).sort().map((type_name) => ({ type_name })),
      functions: [],
      ephemeral_resources: [],
    })),

    GetProviderSchema: rpc('GetProviderSchema', () => {
      const resource_schemas: Record<string, Msg> = {};
      for (const [k, s] of Object.entries(schemas.resources)) resource_schemas[k] = wireSchema(s);
      const data_source_schemas: Record<string, Msg> = {};
      for (const [k, s] of Object.entries(schemas.dataSources)) data_source_schemas[k] = wireSchema(s);
      return {
        provider: wireSchema(schemas.provider),
        resource_schemas,
        data_source_schemas,
        functions: {},
        ephemeral_resource_schemas: {},
        diagnostics: [],
        provider_meta: schemas.providerMeta ? wireSchema(schemas.providerMeta) : null,
        server_capabilities: wireCaps,
      };
    }),

    ValidateProviderConfig: rpc('ValidateProviderConfig', async (req) => {
      const res = await domain.validateProviderConfig({ config: decodeRequired(req.config, schemas.provider, 'provider configuration') });
      return { diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    ConfigureProvider: rpc('ConfigureProvider', async (req) => {
      const res = await domain.configureProvider({
        terraformVersion: req.terraform_version ?? '',
        config: decodeRequired(req.config, schemas.provider, 'provider configuration'),
        clientCapabilities: caps(req.client_capabilities),
      });
      return { diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    ValidateResourceConfig: rpc('ValidateResourceConfig', async (req) => {
      const schema = schemaOf('resource', req.type_name);
      const res = await domain.validateResourceConfig({ typeName: req.type_name, config: decodeRequired(req.config, schema, 'configuration'), clientCapabilities: caps(req.client_capabilities) });
      return { diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    ValidateDataResourceConfig: rpc('ValidateDataResourceConfig', async (req) => {
      const schema = schemaOf('data source', req.type_name);
      const res = await domain.validateDataResourceConfig({ typeName: req.type_name, config: decodeRequired(req.config, schema, 'configuration') });
      return { diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    UpgradeResourceState: rpc('UpgradeResourceState', async (req) => {
      const schema = schemaOf('resource', req.type_name);
      const res = await domain.upgradeResourceState({ typeName: req.type_name, version: Number(req.version ?? 0), rawState: rawState(req.raw_state, req.type_name) });
      const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
      return {
        upgraded_state: failed && res.upgradedState === undefined ? null : encodeValue(res.upgradedState, schema, `upgraded state of ${req.type_name}`),
        diagnostics: wireDiagnostics(res.diagnostics),
      };
    }),

    ReadResource: rpc('ReadResource', async (req) => {
      const schema = schemaOf('resource', req.type_name);
      const currentState = decodeRequired(req.current_state, schema, 'current state');
      const res = await domain.readResource({ typeName: req.type_name, currentState, private: bytes(req.private), providerMeta: metaOf(req.provider_meta), clientCapabilities: caps(req.client_capabilities) });
      // newState null: gone; left out: unchanged.
      const newState = res.newState === undefined ? currentState : res.newState;
      return { new_state: encodeValue(newState, schema, `state read for ${req.type_name}`), diagnostics: wireDiagnostics(res.diagnostics), private: Buffer.from(res.private ?? bytes(req.private)) };
    }),

    PlanResourceChange: rpc('PlanResourceChange', async (req) => {
      const schema = schemaOf('resource', req.type_name);
      const proposed = decodeValue(req.proposed_new_state, schema, 'proposed new state');
      const res = await domain.planResourceChange({
        typeName: req.type_name,
        priorState: decodeValue(req.prior_state, schema, 'prior state'),
        proposedNewState: proposed,
        config: decodeValue(req.config, schema, 'configuration'),
        priorPrivate: bytes(req.prior_private),
        providerMeta: metaOf(req.provider_meta),
        clientCapabilities: caps(req.client_capabilities),
      });
      const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
      const planned = res.plannedState === undefined ? (failed ? null : proposed) : res.plannedState;
      return {
        planned_state: failed && res.plannedState === undefined ? null : encodeValue(planned, schema, `planned state of ${req.type_name}`),
        requires_replace: (res.requiresReplace ?? []).map(wirePath),
        planned_private: Buffer.from(res.plannedPrivate ?? bytes(req.prior_private)),
        diagnostics: wireDiagnostics(res.diagnostics),
      };
    }),

    ApplyResourceChange: rpc('ApplyResourceChange', async (req) => {
      const schema = schemaOf('resource', req.type_name);
      const priorState = decodeValue(req.prior_state, schema, 'prior state');
      const plannedState = decodeValue(req.planned_state, schema, 'planned state');
      const res = await domain.applyResourceChange({
        typeName: req.type_name,
        priorState,
        plannedState,
        config: decodeValue(req.config, schema, 'configuration'),
        plannedPrivate: bytes(req.planned_private),
        providerMeta: metaOf(req.provider_meta),
      });
      const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
      // Left out: the plan came true, or on failure nothing changed (the prior state stays, so Terraform
      // does not forget an object that still exists).
      const newState = res.newState === undefined ? (failed ? priorState : plannedState) : res.newState;
      return { new_state: encodeValue(newState, schema, `new state of ${req.type_name}`), private: Buffer.from(res.private ?? new Uint8Array(0)), diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    ImportResourceState: rpc('ImportResourceState', async (req) => {
      schemaOf('resource', req.type_name);
      const res = await domain.importResourceState({ typeName: req.type_name, id: req.id ?? '', clientCapabilities: caps(req.client_capabilities) });
      return {
        imported_resources: (res.importedResources ?? []).map((r) => ({
          type_name: r.typeName,
          state: encodeValue(r.state, schemaOf('resource', r.typeName), `imported state of ${r.typeName}`),
          private: Buffer.from(r.private ?? new Uint8Array(0)),
        })),
        diagnostics: wireDiagnostics(res.diagnostics),
      };
    }),

    MoveResourceState: rpc('MoveResourceState', async (req) => {
      const schema = schemaOf('resource', req.target_type_name);
      if (!domain.moveResourceState) throw new DiagnosticsError(errorDiag(`Moving resources into ${req.target_type_name} is not supported`, 'This provider does not implement MoveResourceState; remove the "moved" block or move between resources of the same type.'));
      const res = await domain.moveResourceState({
        sourceProviderAddress: req.source_provider_address ?? '',
        sourceTypeName: req.source_type_name ?? '',
        sourceSchemaVersion: Number(req.source_schema_version ?? 0),
        sourceState: rawState(req.source_state, req.source_type_name),
        targetTypeName: req.target_type_name,
        sourcePrivate: bytes(req.source_private),
      });
      return { target_state: encodeValue(res.targetState, schema, `moved state of ${req.target_type_name}`), diagnostics: wireDiagnostics(res.diagnostics), target_private: Buffer.from(res.targetPrivate ?? new Uint8Array(0)) };
    }),

    ReadDataSource: rpc('ReadDataSource', async (req) => {
      const schema = schemaOf('data source', req.type_name);
      const res = await domain.readDataSource({ typeName: req.type_name, config: decodeRequired(req.config, schema, 'configuration'), providerMeta: metaOf(req.provider_meta), clientCapabilities: caps(req.client_capabilities) });
      const failed = (res.diagnostics ?? []).some((d) => d.severity === 'error');
      return { state: failed && res.state === undefined ? null : encodeValue(res.state, schema, `state of data source ${req.type_name}`), diagnostics: wireDiagnostics(res.diagnostics) };
    }),

    ValidateEphemeralResourceConfig: rpc('ValidateEphemeralResourceConfig', (req) => noEphemeral(req.type_name)),
    OpenEphemeralResource: rpc('OpenEphemeralResource', (req) => noEphemeral(req.type_name)),
    RenewEphemeralResource: rpc('RenewEphemeralResource', (req) => noEphemeral(req.type_name)),
    CloseEphemeralResource: rpc('CloseEphemeralResource', (req) => noEphemeral(req.type_name)),

    GetFunctions: rpc('GetFunctions', () => ({ functions: {}, diagnostics: [] })),
    CallFunction: rpc('CallFunction', (req) => ({ error: { text: `This provider has no functions (called "${req.name}").` } }), null),

    StopProvider: rpc('StopProvider', async () => {
      try {
        const err = await domain.stopProvider?.();
        return { Error: typeof err === 'string' ? err : '' };
      } catch (e) {
        return { Error: (e as Error)?.message ?? String(e) };
      }
    }, null),
  };
  return impl;
}

function noEphemeral(typeName: string): Msg {
  return { diagnostics: wireDiagnostics([errorDiag(`Unknown ephemeral resource type "${typeName}"`, 'This provider has no ephemeral resources.')]) };
}
