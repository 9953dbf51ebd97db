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
import * as plugproto from '@pulumi/pulumi/proto/plugin_pb';
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { ResourceProviderService } from '@pulumi/pulumi/proto/provider_grpc_pb';
import { diffProperties } from './diff';
import { engineWarnings, parsePluginArgs } from './engine';
import { callError, contextOf, diffResponse, failuresOf, mapOf, structOf } from './messages';
import type { CheckResult, PreviewRequest, ProviderImpl, RequestContext, ResourceImpl } from './provider';
import { ProviderError } from './provider';
import { UNKNOWN, carrySecrets, markSecret, type PropertyMap } from './values';

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
      `the ${impl.name} provider has no function "${req.getTok()}" ` +
        `(it offers no functions, only resources: ${Object.keys(impl.resources).join(', ') || 'none yet'})`,
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
