/**
 * A lean gRPC server for pulumirpc.ResourceProvider over a ProviderImpl (provider.ts), with @grpc/grpc-js and
 * the generated stubs @pulumi/pulumi ships. It does not load the rest of the SDK (start-up time), and unlike
 * the SDK's stock server it passes provider config to the implementation and returns detailed diffs.
 *
 * Protocol notes (checked against the engine, sdk/go/common/resource/plugin/provider_plugin.go):
 * - Handshake is answered, so the engine knows up front that this provider accepts secrets (they arrive
 *   wrapped and must go back wrapped) and neither resource references nor output values (the engine sends ids
 *   and plain values instead). Configure answers the same for engines that skip Handshake.
 * - CheckConfig and DiffConfig receive config with secrets already revealed; Configure receives them wrapped.
 * - With Handshake, the engine always calls Create and Update during preview (preview=true); this layer then
 *   never calls the implementation's create/update.
 * - The process prints its port as the only line on stdout; everything else goes to stderr, which the engine
 *   shows as diagnostics, so the layer writes there only on unexpected errors or with `-v=N` (N ≥ 9).
 */
import * as grpc from '@grpc/grpc-js';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import { Struct } from 'google-protobuf/google/protobuf/struct_pb';
import * as plugproto from '@pulumi/pulumi/proto/plugin_pb';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { ResourceProviderService } from '@pulumi/pulumi/proto/provider_grpc_pb';
import * as engproto from '@pulumi/pulumi/proto/engine_pb';
import { EngineClient } from '@pulumi/pulumi/proto/engine_grpc_pb';
import { diffProperties, type DiffKind, type DiffResult } from './diff';
import type { CheckFailure, CheckResult, ErrorCode, PreviewRequest, ProviderImpl, RequestContext, ResourceImpl } from './provider';
import { ProviderError } from './provider';
import { UNKNOWN, carrySecrets, markSecret, type PropertyMap } from './values';
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

/** Command-line arguments the engine passes: flags (`--logtostderr`, `-v=N`, `--tracing ADDR`), then its address. */
export interface PluginArgs {
  engineAddress: string | undefined;
  verbose: number;
}

export function parsePluginArgs(argv: readonly string[]): PluginArgs {
  let engineAddress: string | undefined;
  let verbose = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--tracing') i++;
    else if (/^-{1,2}v=\d+$/.test(a)) verbose = Number(a.slice(a.indexOf('=') + 1));
    else if (!a.startsWith('-')) engineAddress = a;
  }
  return { engineAddress, verbose };
}

function structOf(map: PropertyMap | undefined): Struct {
  return Struct.fromJavaScript(mapToWire(map) as Parameters<typeof Struct.fromJavaScript>[0]);
}

function mapOf(s: Struct | undefined): PropertyMap {
  return mapFromWire(s?.toJavaScript());
}

/** `urn:pulumi:<stack>::<project>::<[parent$]type>::<name>` → type and name. */
export function parseUrn(urn: string): { type: string; name: string } {
  const parts = urn.split('::');
  if (parts.length < 4) return { type: '', name: '' };
  return { type: parts[2]!.split('$').pop()!, name: parts.slice(3).join('::') };
}

function contextOf(req: { getUrn(): string; getName(): string; getType(): string }): RequestContext {
  const urn = req.getUrn();
  const parsed = parseUrn(urn);
  return { urn, name: req.getName() || parsed.name, type: req.getType() || parsed.type };
}

function failuresOf(failures: readonly CheckFailure[]): provproto.CheckFailure[] {
  return failures.map((f) => new provproto.CheckFailure().setProperty(f.property).setReason(f.reason));
}

function diffResponse(r: DiffResult): provproto.DiffResponse {
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
interface CallError {
  code: grpc.status;
  details: string;
}

function callError(op: string, ctx: RequestContext | undefined, err: unknown, log: (s: string) => void): CallError {
  const where = ctx?.type ? `${ctx.type} "${ctx.name}"` : '';
  if (err instanceof ProviderError) return { code: STATUS[err.code], details: err.message };
  if (err instanceof WireError) {
    return { code: grpc.status.INVALID_ARGUMENT, details: `${where ? `${where}: ` : ''}property ${err.message}` };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  log(`${op}${where ? ` ${where}` : ''} failed: ${e.stack ?? e.message}`);
  return { code: grpc.status.UNKNOWN, details: `${op}${where ? ` ${where}` : ''} failed: ${e.message}` };
}

export interface ServeOptions {
  args?: readonly string[];
  /** Where the port line goes (default: stdout). */
  writePort?: (line: string) => void;
  /** Where diagnostics go (default: stderr). */
  log?: (line: string) => void;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningServer {
  port: number;
  server: grpc.Server;
  /** Stops accepting calls and waits for the running ones. */
  stop(): Promise<void>;
}

/**
 * Warnings on a resource, through the engine's Log service (the address the engine passed): the CLI shows them
 * under the resource, as its own. Without an engine (tests, a provider started by hand) they go to `log`.
 */
export function engineWarnings(
  address: string | undefined,
  log: (line: string) => void,
): (urn: string, messages: readonly string[]) => Promise<void> {
  let client: InstanceType<typeof EngineClient> | undefined;
  return async (urn, messages) => {
    if (messages.length === 0) return;
    if (address === undefined) {
      for (const m of messages) log(`warning: ${urn}: ${m}`);
      return;
    }
    client ??= new EngineClient(address, grpc.credentials.createInsecure());
    await Promise.all(
      messages.map(
        (m) =>
          new Promise<void>((done) => {
            const req = new engproto.LogRequest().setSeverity(engproto.LogSeverity.WARNING).setMessage(m).setUrn(urn);
            client!.log(req, new grpc.Metadata(), { deadline: Date.now() + 5_000 }, (err: grpc.ServiceError | null) => {
              if (err) log(`warning: ${urn}: ${m} (the engine's Log failed: ${err.message})`);
              done();
            });
          }),
      ),
    );
  };
}

export interface ProviderServiceOptions {
  log?: (line: string) => void;
  verbose?: number;
  warn?: (urn: string, messages: readonly string[]) => Promise<void>;
}

/**
 * pulumirpc.ResourceProvider over a ProviderImpl, one method per RPC (as the SDK's ResourceProvider server): the
 * method of the service's name (`check` answers Check) takes the request, and for the RPCs about one resource
 * (PER_RESOURCE) who it is about, and returns the response; whatever it throws is the call's gRPC error
 * (providerService). Every public method is an RPC, so the gRPC table is built from their names; the helpers
 * are #private.
 */
export class ResourceProviderServer {
  readonly #impl: ProviderImpl;
  readonly #log: (line: string) => void;
  readonly #verbose: number | undefined;
  readonly #warn: (urn: string, messages: readonly string[]) => Promise<void>;
  #configured: Promise<void> | undefined;

  constructor(impl: ProviderImpl, opts: ProviderServiceOptions = {}) {
    this.#impl = impl;
    this.#log = opts.log ?? ((s: string) => process.stderr.write(`${s}\n`));
    this.#verbose = opts.verbose;
    this.#warn = opts.warn ?? engineWarnings(undefined, this.#log);
  }

  handshake(): provproto.ProviderHandshakeResponse {
    return new provproto.ProviderHandshakeResponse()
      .setAcceptSecrets(true)
      .setAcceptResources(false)
      .setAcceptOutputs(false)
      .setSupportsAutonamingConfiguration(false)
      .setAcceptsByteString(false);
  }

  getPluginInfo(): plugproto.PluginInfo {
    return new plugproto.PluginInfo().setVersion(this.#impl.version);
  }

  getSchema(req: provproto.GetSchemaRequest): provproto.GetSchemaResponse {
    const impl = this.#impl;
    if (req.getVersion() !== 0)
      throw new ProviderError(`schema version ${req.getVersion()} is not supported; this provider serves version 0`, 'INVALID_ARGUMENT');
    if (req.getSubpackageName())
      throw new ProviderError(`the ${impl.name} provider has no subpackage "${req.getSubpackageName()}"`, 'INVALID_ARGUMENT');
    return new provproto.GetSchemaResponse().setSchema(impl.schema());
  }

  async checkConfig(req: provproto.CheckRequest, ctx: RequestContext): Promise<provproto.CheckResponse> {
    const impl = this.#impl;
    const news = mapOf(req.getNews());
    const olds = mapOf(req.getOlds());
    const result = impl.checkConfig
      ? await impl.checkConfig({ ...ctx, news, olds, randomSeed: req.getRandomseed_asU8() })
      : { inputs: news, failures: [] };
    return this.#checked(undefined, result, news);
  }

  async diffConfig(req: provproto.DiffRequest, ctx: RequestContext): Promise<provproto.DiffResponse> {
    const impl = this.#impl;
    const olds = mapOf(req.getOlds());
    const oldInputs = req.getOldInputs() ? mapOf(req.getOldInputs()) : olds;
    const news = mapOf(req.getNews());
    const r = impl.diffConfig
      ? await impl.diffConfig({ ...ctx, id: req.getId(), olds, oldInputs, news, ignoreChanges: req.getIgnorechangesList() })
      : diffProperties(oldInputs, news);
    return diffResponse(r);
  }

  async configure(req: provproto.ConfigureRequest): Promise<provproto.ConfigureResponse> {
    const impl = this.#impl;
    let config: PropertyMap;
    if (req.getArgs()) {
      config = mapOf(req.getArgs());
    } else {
      // Engines before `args` existed sent only `variables`, keyed `<pkg>:config:<key>`, values as strings.
      config = {};
      const prefix = `${impl.name}:config:`;
      for (const [k, v] of req.getVariablesMap().entries()) {
        if (k.startsWith(prefix)) config[k.slice(prefix.length)] = v;
      }
    }
    this.#configured = Promise.resolve(impl.configure(config));
    await this.#configured;
    return new provproto.ConfigureResponse()
      .setAcceptsecrets(true)
      .setAcceptresources(false)
      .setSupportspreview(true)
      .setAcceptoutputs(false);
  }

  async check(req: provproto.CheckRequest, ctx: RequestContext): Promise<provproto.CheckResponse> {
    const r = this.#resourceOf(ctx);
    const news = mapOf(req.getNews());
    const olds = mapOf(req.getOlds());
    const result = await r.check({ ...ctx, news, olds, randomSeed: req.getRandomseed_asU8() });
    await this.#warn(ctx.urn, result.warnings ?? []);
    return this.#checked(r, result, news);
  }

  async diff(req: provproto.DiffRequest, ctx: RequestContext): Promise<provproto.DiffResponse> {
    const r = this.#resourceOf(ctx);
    const olds = mapOf(req.getOlds());
    const oldInputs = req.getOldInputs() ? mapOf(req.getOldInputs()) : olds;
    const news = mapOf(req.getNews());
    const result = r.diff
      ? await r.diff({ ...ctx, id: req.getId(), olds, oldInputs, news, ignoreChanges: req.getIgnorechangesList() })
      : diffProperties(oldInputs, news, { replaceOnChanges: r.replaceOnChanges ?? [] });
    return diffResponse(result);
  }

  async create(req: provproto.CreateRequest, ctx: RequestContext): Promise<provproto.CreateResponse> {
    const r = this.#resourceOf(ctx);
    const inputs = mapOf(req.getProperties());
    const resp = new provproto.CreateResponse();
    if (req.getPreview()) {
      const preq = { ...ctx, id: undefined, inputs, olds: undefined };
      const outs = r.preview ? await r.preview(preq) : defaultPreview(r, inputs, undefined);
      const id = r.previewId ? await r.previewId(preq) : undefined;
      await this.#previewWarnings(r, preq);
      return resp.setId(id ?? '').setProperties(structOf(this.#protect(r, outs, inputs)));
    }
    await this.#configured;
    const result = await r.create({ ...ctx, inputs, timeout: req.getTimeout() });
    if (typeof result.id !== 'string' || result.id === '')
      throw new Error('the implementation returned no id from create (a bug in the provider)');
    await this.#warn(ctx.urn, result.warnings ?? []);
    return resp.setId(result.id).setProperties(structOf(this.#protect(r, result.outputs, inputs)));
  }

  async read(req: provproto.ReadRequest, ctx: RequestContext): Promise<provproto.ReadResponse> {
    const r = this.#resourceOf(ctx);
    const state = mapOf(req.getProperties());
    const inputs = req.getInputs() ? mapOf(req.getInputs()) : undefined;
    await this.#configured;
    const result = await r.read({ ...ctx, id: req.getId(), state, inputs });
    const resp = new provproto.ReadResponse();
    if (!result) return resp.setId('').setProperties(structOf({}));
    resp.setId(result.id ?? req.getId()).setProperties(structOf(this.#protect(r, result.outputs, inputs ?? state)));
    if (result.inputs) resp.setInputs(structOf(this.#protect(r, result.inputs, inputs ?? state)));
    return resp;
  }

  async update(req: provproto.UpdateRequest, ctx: RequestContext): Promise<provproto.UpdateResponse> {
    const r = this.#resourceOf(ctx);
    const olds = mapOf(req.getOlds());
    const oldInputs = req.getOldInputs() ? mapOf(req.getOldInputs()) : olds;
    const news = mapOf(req.getNews());
    const resp = new provproto.UpdateResponse();
    if (req.getPreview()) {
      const preq = { ...ctx, id: req.getId(), inputs: news, olds };
      const outs = r.preview ? await r.preview(preq) : defaultPreview(r, news, olds);
      await this.#previewWarnings(r, preq);
      return resp.setProperties(structOf(this.#protect(r, outs, news)));
    }
    await this.#configured;
    const result = await r.update({
      ...ctx,
      id: req.getId(),
      olds,
      oldInputs,
      news,
      timeout: req.getTimeout(),
      ignoreChanges: req.getIgnorechangesList(),
    });
    await this.#warn(ctx.urn, result.warnings ?? []);
    return resp.setProperties(structOf(this.#protect(r, result.outputs, news)));
  }

  async delete(req: provproto.DeleteRequest, ctx: RequestContext): Promise<Empty> {
    const r = this.#resourceOf(ctx);
    const state = mapOf(req.getProperties());
    const oldInputs = req.getOldInputs() ? mapOf(req.getOldInputs()) : state;
    await this.#configured;
    await r.delete({ ...ctx, id: req.getId(), state, oldInputs, timeout: req.getTimeout() });
    return new Empty();
  }

  async cancel(): Promise<Empty> {
    await this.#impl.cancel?.();
    return new Empty();
  }

  /** The engine attaches to a provider started by hand (PULUMI_DEBUG_PROVIDERS); nothing to connect back to. */
  attach(): Empty {
    return new Empty();
  }

  /** No mappings to other ecosystems (Terraform conversion): an empty answer, not an error. */
  getMapping(): provproto.GetMappingResponse {
    return new provproto.GetMappingResponse().setProvider('').setData(new Uint8Array());
  }

  getMappings(): provproto.GetMappingsResponse {
    return new provproto.GetMappingsResponse();
  }

  invoke(req: provproto.InvokeRequest): provproto.InvokeResponse {
    const impl = this.#impl;
    throw new ProviderError(
      `the ${impl.name} provider has no function "${req.getTok()}" (it offers no functions, only resources: ${Object.keys(impl.resources).join(', ') || 'none yet'})`,
      'UNIMPLEMENTED',
    );
  }

  call(req: provproto.CallRequest): provproto.CallResponse {
    throw new ProviderError(
      `the ${this.#impl.name} provider has no method "${req.getTok()}" (its resources have no methods)`,
      'UNIMPLEMENTED',
    );
  }

  construct(req: provproto.ConstructRequest): provproto.ConstructResponse {
    throw new ProviderError(
      `the ${this.#impl.name} provider has no component resources ("${req.getType()}" cannot be constructed); its types are custom resources`,
      'UNIMPLEMENTED',
    );
  }

  parameterize(): provproto.ParameterizeResponse {
    throw new ProviderError(`the ${this.#impl.name} provider cannot be parameterized`, 'UNIMPLEMENTED');
  }

  /** A resource's preview warnings (after Configure), shown on it; a failing hook costs the warnings only. */
  async #previewWarnings(r: ResourceImpl, req: PreviewRequest): Promise<void> {
    if (!r.previewWarnings) return;
    try {
      await this.#configured;
      await this.#warn(req.urn, await r.previewWarnings(req));
    } catch (err) {
      if (this.#verbose) this.#log(`preview warnings of ${req.urn} failed: ${(err as Error).message}`);
    }
  }

  #resourceOf(ctx: RequestContext): ResourceImpl {
    const impl = this.#impl;
    const r = impl.resources[ctx.type];
    if (!r) {
      const known = Object.keys(impl.resources);
      throw new ProviderError(
        `the ${impl.name} provider (version ${impl.version}) has no resource type "${ctx.type}"; ` +
          (known.length ? `it has: ${known.join(', ')}` : 'it has no resource types yet') +
          '. Check the type token, or upgrade the provider plugin.',
        'INVALID_ARGUMENT',
      );
    }
    return r;
  }

  /** Secrets back on: the declared secret outputs, and whatever was secret in the inputs. */
  #protect(r: ResourceImpl | undefined, outs: PropertyMap, ins: PropertyMap | undefined): PropertyMap {
    const carried = ins ? carrySecrets(outs, ins) : outs;
    return r?.secretOutputs ? markSecret(carried, r.secretOutputs) : carried;
  }

  #checked(r: ResourceImpl | undefined, result: CheckResult, news: PropertyMap): provproto.CheckResponse {
    const resp = new provproto.CheckResponse();
    resp.setInputs(structOf(this.#protect(r, result.inputs, news)));
    resp.setFailuresList(failuresOf(result.failures));
    return resp;
  }
}

/** The RPCs about one resource: who (urn, name, type) is read from the request for the method and for its messages. */
const PER_RESOURCE: ReadonlySet<string> = new Set(['checkConfig', 'diffConfig', 'check', 'diff', 'create', 'read', 'update', 'delete']);

/** The service implementation (exported for tests that drive it without a process): ResourceProviderServer's methods, each a unary handler. */
export function providerService(impl: ProviderImpl, opts: ProviderServiceOptions = {}): grpc.UntypedServiceImplementation {
  const log = opts.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const server = new ResourceProviderServer(impl, { ...opts, log });
  const trace = (opts.verbose ?? 0) >= 9 ? log : () => undefined;

  /** Wraps a handler: request → response, or a gRPC error with a clear message. */
  function unary<Req, Resp>(
    op: string,
    ctxOf: (req: Req) => RequestContext | undefined,
    fn: (req: Req, ctx: RequestContext | undefined) => Promise<Resp> | Resp,
  ): grpc.handleUnaryCall<Req, Resp> {
    return (call, callback) => {
      let ctx: RequestContext | undefined;
      Promise.resolve()
        .then(() => {
          ctx = ctxOf(call.request);
          trace(`${op}${ctx ? ` ${ctx.urn}` : ''}`);
          return fn(call.request, ctx);
        })
        .then(
          (resp) => callback(null, resp),
          (err: unknown) => callback(callError(op, ctx, err, log)),
        );
    };
  }

  const none = (): undefined => undefined;
  const service: grpc.UntypedServiceImplementation = {};
  const methods = server as unknown as Record<string, (req: unknown, ctx: RequestContext | undefined) => unknown>;
  for (const method of Object.getOwnPropertyNames(ResourceProviderServer.prototype)) {
    if (method === 'constructor' || typeof methods[method] !== 'function') continue;
    service[method] = unary<Parameters<typeof contextOf>[0], unknown>(method, PER_RESOURCE.has(method) ? contextOf : none, (req, ctx) =>
      methods[method]!.call(server, req, ctx),
    );
  }
  return service;
}

function defaultPreview(r: ResourceImpl, inputs: PropertyMap, olds: PropertyMap | undefined): PropertyMap {
  const outs: PropertyMap = { ...(olds ?? {}), ...inputs };
  for (const k of r.computed ?? []) outs[k] = UNKNOWN;
  return outs;
}

/**
 * Serves `impl` on a free loopback port and prints the port as the only stdout line (what the engine reads).
 * Resolves once listening.
 */
export function serve(impl: ProviderImpl, opts: ServeOptions = {}): Promise<RunningServer> {
  const args = parsePluginArgs(opts.args ?? []);
  const log = opts.log ?? ((s: string) => process.stderr.write(`${s}\n`));
  const server = new grpc.Server({
    // The engine sends whole states and schemas; Pulumi's own limit is 400 MiB.
    'grpc.max_receive_message_length': 400 * 1024 * 1024,
    'grpc.max_send_message_length': 400 * 1024 * 1024,
  });
  server.addService(
    ResourceProviderService,
    providerService(impl, { log, verbose: args.verbose, warn: engineWarnings(args.engineAddress, log) }),
  );
  return new Promise((resolve, reject) => {
    server.bindAsync(`${opts.host ?? '127.0.0.1'}:0`, grpc.ServerCredentials.createInsecure(), (err, port) => {
      if (err) return reject(err);
      (opts.writePort ?? ((line: string) => process.stdout.write(line)))(`${port}\n`);
      resolve({
        port,
        server,
        stop: () => new Promise<void>((done) => server.tryShutdown(() => done())),
      });
    });
  });
}
