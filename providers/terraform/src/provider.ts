/**
 * `provider()`: a ProviderServer from per-type handlers, with Terraform's usual planning done for them.
 * This is how a domain provider plugs in:
 *
 *   provider({
 *     schema, configure(config) { return client },             // the context every handler receives
 *     resources: { tmkit_profile: { schema, validate, create, read, update, delete, import, plan?, upgrade? } },
 *     dataSources: { tmkit_profile_status: { schema, read } },
 *   })
 *
 * What the router does so handlers need not:
 * - plan on create: every computed attribute that the configuration leaves null is planned unknown
 *   ("known after apply"), inside nested blocks too; on update the proposal (config merged with prior
 *   computed values) is the plan; on destroy the plan is null. Attributes marked `requiresReplace` that
 *   change go into requires_replace. A resource's own `plan` hook then sees and may change the result.
 * - apply: create/update/delete by the shape of the change.
 * - upgrade: state stored with the current schema version is decoded as is; an older version goes to
 *   the resource's `upgrade(version, json)`; a newer one is refused with what to do.
 * - import: `import(id)` returns a partial state; Terraform then calls read, which completes it.
 * Handlers return values and throw to fail (a DiagnosticsError carries diagnostics with paths; any other
 * error becomes one error diagnostic).
 */
import { decodeJsonValue } from './codec';
import { Dynamic, isObject, PreciseNumber, Unknown, UNKNOWN, type Value, type ValueObject } from './cty';
import { shapeOfBlock, type Block, type Schema } from './schema';
import {
  DiagnosticsError,
  error,
  FunctionArgumentError,
  type AttributePath,
  type ClientCapabilities,
  type Diagnostic,
  type FunctionSignature,
  type MaybePromise,
  type ProviderSchemas,
  type ProviderServer,
  type WithDiagnostics,
} from './tfprotov6';

export interface PlanInput {
  prior: ValueObject | null;
  proposed: ValueObject | null;
  config: ValueObject | null;
  /** The router's plan (see the module comment). */
  planned: ValueObject | null;
  requiresReplace: AttributePath[];
}

export interface PlanOutput {
  planned?: ValueObject | null;
  requiresReplace?: AttributePath[];
  diagnostics?: Diagnostic[];
}

/**
 * What a provider keeps beside a resource's state, unseen by the user (Terraform's "private" bytes, JSON
 * here): e.g. the object's ETag, so a later write can send If-Match without reading first. Terraform hands
 * it back to read, plan (as prior private) and apply (as planned private).
 */
export type PrivateData = Record<string, unknown>;

/** A handler's new state together with the private data Terraform is to keep beside it. */
export class WithPrivate {
  constructor(
    readonly state: ValueObject,
    readonly data: PrivateData,
  ) {}
}

export function encodePrivate(data: PrivateData): Uint8Array {
  return Object.keys(data).length === 0 ? new Uint8Array(0) : Buffer.from(JSON.stringify(data));
}

/** The private data Terraform kept ({} when none, or when it is not this layer's JSON). */
export function decodePrivate(bytes: Uint8Array | undefined): PrivateData {
  if (!bytes || bytes.length === 0) return {};
  try {
    const v: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as PrivateData) : {};
  } catch {
    return {};
  }
}

export type StateResult = ValueObject | WithPrivate;

export interface Resource<Ctx> {
  schema: Schema;
  /** Config checks; values may be unknown (config referencing other resources). */
  validate?(config: ValueObject, info: { clientCapabilities: ClientCapabilities }): MaybePromise<Diagnostic[] | void>;
  plan?(input: PlanInput, ctx: Ctx): MaybePromise<PlanOutput | void>;
  create(input: { planned: ValueObject; config: ValueObject | null }, ctx: Ctx): MaybePromise<StateResult>;
  /** The object's current state, or null when it no longer exists. `data`: the private data kept with it. */
  read(state: ValueObject, ctx: Ctx, data: PrivateData): MaybePromise<StateResult | null>;
  update(
    input: { prior: ValueObject; planned: ValueObject; config: ValueObject | null; data: PrivateData },
    ctx: Ctx,
  ): MaybePromise<StateResult>;
  delete(state: ValueObject, ctx: Ctx, data: PrivateData): MaybePromise<void>;
  /** `terraform import` / import blocks: a state with at least the identifying attributes (read completes it). */
  import?(id: string, ctx: Ctx): MaybePromise<StateResult>;
  /** State stored with an older schema version (`json` is that version's JSON) → state of the current schema. */
  upgrade?(version: number, json: unknown): MaybePromise<ValueObject>;
}

export interface DataSource<Ctx> {
  schema: Schema;
  validate?(config: ValueObject): MaybePromise<Diagnostic[] | void>;
  read(config: ValueObject, ctx: Ctx): MaybePromise<ValueObject>;
}

/**
 * A provider function: pure, called without the provider's configuration (Terraform may call it before, or
 * without, ConfigureProvider). Throw a FunctionArgumentError to fail at one argument, any error to fail.
 */
export interface ProviderFunction {
  signature: FunctionSignature;
  call(args: Value[]): MaybePromise<Value>;
}

export interface ProviderDefinition<Ctx> {
  /** The provider block's schema (default: no arguments). */
  schema?: Schema;
  providerMeta?: Schema;
  validateConfig?(config: ValueObject): MaybePromise<Diagnostic[] | void>;
  /** Turns the provider configuration into the context handed to every handler. */
  configure?(config: ValueObject, info: { terraformVersion: string }): MaybePromise<Ctx>;
  resources: Record<string, Resource<Ctx>>;
  dataSources?: Record<string, DataSource<Ctx>>;
  functions?: Record<string, ProviderFunction>;
  stop?(): MaybePromise<void>;
}

const EMPTY_SCHEMA: Schema = { version: 0, block: {} };

/** Deep equality of values (sets compared in order, as Terraform sends them); an unknown equals nothing. */
export function valueEquals(a: Value | undefined, b: Value | undefined): boolean {
  if (a instanceof Unknown || b instanceof Unknown) return false; // not known to be equal (the singleton too)
  if (a === b) return true;
  if (a instanceof PreciseNumber && b instanceof PreciseNumber) return a.text === b.text;
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a === typeof b && a === b;
  if (a instanceof Dynamic && b instanceof Dynamic)
    return JSON.stringify(a.type) === JSON.stringify(b.type) && valueEquals(a.value, b.value);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((e, i) => valueEquals(e, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && valueEquals(a[k], b[k]));
  }
  return false;
}

/** Planned value on create: computed attributes the config leaves null become unknown (recursively). */
export function planUnknownComputed(block: Block, proposed: ValueObject, config: ValueObject | null): ValueObject {
  const out: ValueObject = { ...proposed };
  for (const [name, a] of Object.entries(block.attributes ?? {})) {
    const configured = config ? config[name] : null;
    if (a.computed && (configured === null || configured === undefined)) out[name] = UNKNOWN;
  }
  for (const [name, nb] of Object.entries(block.blocks ?? {})) {
    const pv = out[name];
    const cv = config ? config[name] : null;
    if (pv === null || pv === undefined || pv instanceof Unknown) continue;
    if (nb.nesting === 'single' || nb.nesting === 'group') {
      if (isObject(pv)) out[name] = planUnknownComputed(nb.block, pv, isObject(cv) ? cv : null);
    } else if (nb.nesting === 'list' || nb.nesting === 'set') {
      if (Array.isArray(pv))
        out[name] = pv.map((e, i) =>
          isObject(e) ? planUnknownComputed(nb.block, e, Array.isArray(cv) && isObject(cv[i]) ? (cv[i] as ValueObject) : null) : e,
        );
    } else if (isObject(pv)) {
      const m: ValueObject = {};
      for (const [k, e] of Object.entries(pv))
        m[k] = isObject(e) ? planUnknownComputed(nb.block, e, isObject(cv) && isObject(cv[k]) ? (cv[k] as ValueObject) : null) : e;
      out[name] = m;
    }
  }
  return out;
}

/** Paths of `requiresReplace` attributes (top level and in single/group blocks) whose value changes. */
export function replacePaths(block: Block, prior: ValueObject, planned: ValueObject, at: AttributePath = []): AttributePath[] {
  const out: AttributePath[] = [];
  for (const [name, a] of Object.entries(block.attributes ?? {})) {
    if (a.requiresReplace && !valueEquals(prior[name] ?? null, planned[name] ?? null)) out.push([...at, { attribute: name }]);
  }
  for (const [name, nb] of Object.entries(block.blocks ?? {})) {
    if (nb.nesting !== 'single' && nb.nesting !== 'group') continue;
    const p = prior[name];
    const q = planned[name];
    if (isObject(p) && isObject(q)) out.push(...replacePaths(nb.block, p, q, [...at, { attribute: name }]));
    else if (!valueEquals(p ?? null, q ?? null) && Object.values(nb.block.attributes ?? {}).some((a) => a.requiresReplace))
      out.push([...at, { attribute: name }]);
  }
  return out;
}

const diags = (d: Diagnostic[] | void): WithDiagnostics => ({ diagnostics: d ?? [] });

export function provider<Ctx>(def: ProviderDefinition<Ctx>): ProviderServer {
  const dataSources = def.dataSources ?? {};
  let ctx: Ctx | undefined;
  let configured = !def.configure;

  const resource = (typeName: string): Resource<Ctx> => {
    const r = Object.hasOwn(def.resources, typeName) ? def.resources[typeName] : undefined;
    if (!r) throw new DiagnosticsError(error(`Unknown resource type "${typeName}"`));
    return r;
  };
  const context = (): Ctx => {
    if (!configured)
      throw new DiagnosticsError(
        error(
          'The provider is not configured yet',
          'Terraform calls ConfigureProvider before managing resources; this is a bug in the calling tool.',
        ),
      );
    return ctx as Ctx;
  };

  return {
    schemas(): ProviderSchemas {
      const resources: Record<string, Schema> = {};
      for (const [k, r] of Object.entries(def.resources)) resources[k] = r.schema;
      const ds: Record<string, Schema> = {};
      for (const [k, d] of Object.entries(dataSources)) ds[k] = d.schema;
      return {
        provider: def.schema ?? EMPTY_SCHEMA,
        ...(def.providerMeta ? { providerMeta: def.providerMeta } : {}),
        resources,
        dataSources: ds,
        ...(def.functions ? { functions: Object.fromEntries(Object.entries(def.functions).map(([k, f]) => [k, f.signature])) } : {}),
      };
    },
    capabilities: () => ({ moveResourceState: false }),

    async validateProviderConfig({ config }) {
      return diags(await def.validateConfig?.(config));
    },
    async configureProvider({ config, terraformVersion }) {
      if (def.configure) ctx = await def.configure(config, { terraformVersion });
      configured = true;
      return {};
    },
    async validateResourceConfig({ typeName, config, clientCapabilities }) {
      return diags(await resource(typeName).validate?.(config, { clientCapabilities }));
    },
    async validateDataResourceConfig({ typeName, config }) {
      const d = dataSources[typeName];
      return diags(await d?.validate?.(config));
    },

    async upgradeResourceState({ typeName, version, rawState }) {
      const r = resource(typeName);
      const current = r.schema.version ?? 0;
      if (rawState.json === undefined) {
        if (rawState.flatmap)
          throw new DiagnosticsError(
            error(
              `${typeName}: the stored state is in the pre-0.12 flatmap form`,
              'Refresh it with a Terraform version that still reads it, or remove it from the state and import the object again.',
            ),
          );
        return { upgradedState: null };
      }
      if (version === current) return { upgradedState: decodeJsonValue(rawState.json, shapeOfBlock(r.schema.block)) as ValueObject };
      if (version > current) {
        throw new DiagnosticsError(
          error(
            `${typeName}: the state was written by a newer provider (schema version ${version}; this provider has ${current})`,
            'Upgrade the provider to the version that wrote the state.',
          ),
        );
      }
      if (!r.upgrade)
        throw new DiagnosticsError(
          error(
            `${typeName}: the state has schema version ${version}, this provider expects ${current} and cannot upgrade it`,
            'This is a bug in the provider; please report it.',
          ),
        );
      return { upgradedState: await r.upgrade(version, rawState.json) };
    },

    async readResource({ typeName, currentState, private: data }) {
      const out = await resource(typeName).read(currentState, context(), decodePrivate(data));
      return out instanceof WithPrivate ? { newState: out.state, private: encodePrivate(out.data) } : { newState: out };
    },

    async planResourceChange({ typeName, priorState, proposedNewState, config }) {
      const r = resource(typeName);
      let planned: ValueObject | null;
      let requiresReplace: AttributePath[] = [];
      if (proposedNewState === null) planned = null;
      else if (priorState === null) planned = planUnknownComputed(r.schema.block, proposedNewState, config);
      else {
        planned = proposedNewState;
        requiresReplace = replacePaths(r.schema.block, priorState, proposedNewState);
      }
      if (!r.plan) return { plannedState: planned, requiresReplace };
      const out = (await r.plan({ prior: priorState, proposed: proposedNewState, config, planned, requiresReplace }, context())) ?? {};
      return {
        plannedState: out.planned === undefined ? planned : out.planned,
        requiresReplace: out.requiresReplace ?? requiresReplace,
        diagnostics: out.diagnostics ?? [],
      };
    },

    async applyResourceChange({ typeName, priorState, plannedState, config, plannedPrivate }) {
      const r = resource(typeName);
      const c = context();
      const data = decodePrivate(plannedPrivate);
      if (plannedState === null) {
        if (priorState !== null) await r.delete(priorState, c, data);
        return { newState: null };
      }
      const out =
        priorState === null
          ? await r.create({ planned: plannedState, config }, c)
          : await r.update({ prior: priorState, planned: plannedState, config, data }, c);
      return out instanceof WithPrivate ? { newState: out.state, private: encodePrivate(out.data) } : { newState: out };
    },

    async importResourceState({ typeName, id }) {
      const r = resource(typeName);
      if (!r.import) throw new DiagnosticsError(error(`${typeName} does not support import`, 'Create it from the configuration instead.'));
      const out = await r.import(id, context());
      return {
        importedResources: [
          out instanceof WithPrivate ? { typeName, state: out.state, private: encodePrivate(out.data) } : { typeName, state: out },
        ],
      };
    },

    async readDataSource({ typeName, config }) {
      const d = Object.hasOwn(dataSources, typeName) ? dataSources[typeName] : undefined;
      if (!d) throw new DiagnosticsError(error(`Unknown data source "${typeName}"`));
      return { state: await d.read(config, context()) };
    },

    async callFunction({ name, arguments: args }) {
      const f = def.functions && Object.hasOwn(def.functions, name) ? def.functions[name] : undefined;
      if (!f) return { error: { text: `This provider has no function "${name}".` } };
      try {
        return { result: await f.call(args) };
      } catch (e) {
        if (e instanceof FunctionArgumentError) return { error: { text: e.message, argument: e.argument } };
        return { error: { text: (e as Error)?.message ?? String(e) } };
      }
    },

    async stopProvider() {
      await def.stop?.();
    },
  };
}
