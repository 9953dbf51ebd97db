/**
 * tmkit:index:Profile and tmkit:index:Endpoint as ResourceImpls: check and diff are this package's (tmkit's
 * validator and attribute diff), every write goes through src/client/resources.ts with the provider's stack
 * and ETags, and every read returns inputs and outputs (refresh shows drift, import adopts).
 *
 * Replacement in place. A Profile whose dnsConfig.relativeName changes is replaced (its DNS identity
 * changes, as `tmkit plan` says), but it keeps its name and so its id: the replacement is the same tmkit
 * profile. Diff notes such a replacement; the Create that follows writes over the old object (If-Match, as an
 * update) and the Delete of the old one leaves it be, in whichever order the engine runs them. So nested
 * endpoints that point at the profile, and the endpoints its Endpoint resources own, stay. An Endpoint whose
 * endpointType changes (its id has the type) works the same way. Without that note (a Delete in a later run
 * after an interrupted replacement) the Delete's ETag check refuses to delete the newer object.
 */
import type { ProfileEntry } from '../../../../src/core/api';
import { TmkitError, type Diagnostic } from '../../../../src/core/diagnostics';
import { normalizeProfile } from '../../../../src/core/model/normalize';
import type { Profile, ProfileInput } from '../../../../src/core/model/types';
import { itemSegment } from '../../../../src/core/validate/util';
import type { TmkitClient } from '../../../../src/client/client';
import { TmkitApiError } from '../../../../src/client/errors';
import { liveHealthNotes, type LiveHealthCache } from '../../../../src/client/deploy';
import {
  StackResources,
  normalizeEndpoint,
  type EndpointState,
  type PriorEndpoint,
  type PriorProfile,
} from '../../../../src/client/resources';
import type { ErrorCode, ResourceImpl, RequestContext } from '../provider';
import { ProviderError } from '../provider';
import { UNKNOWN, containsUnknowns, isUnknown, reveal, type Plain, type PlainMap, type PropertyMap, type Value } from '../values';
import { checkEndpoint, checkProfile, reasonOf } from './check';
import {
  PROFILE_ARM_TYPE,
  endpointFromOutputs,
  endpointInput,
  endpointInputsOf,
  endpointOutputsOf,
  endpointTypeName,
  knownString,
  ownsEndpoints,
  profileFromOutputs,
  profileInput,
  profileInputsOf,
  profileOutputsOf,
} from './convert';
import { diffEndpoint, diffProfile } from './diff';
import { endpointId, parseEndpointId, parseProfileId, profileId } from '../../../../src/client/ids';
import { toPulumiPath } from './paths';
import { fullEndpointType, parseEndpointType } from '../../../../src/core/model/names';

/** What the resources need from the configured provider. */
export interface TmkitContext {
  /** The provider's tmkit stack (after Configure). */
  stack(): string;
  /** The management-API client (after Configure). */
  client(): Promise<TmkitClient>;
}

const REFRESH =
  'run `pulumi refresh` to take the change into the state (the next `pulumi up` then shows what it would undo), then `pulumi up`';

/** The stack's resources through the configured client, with Pulumi's words for what to do. */
async function stackResources(ctx: TmkitContext): Promise<StackResources> {
  return new StackResources(await ctx.client(), {
    stack: ctx.stack(),
    refreshHint: REFRESH,
    strayEndpointsHint: 'or declare endpoints on the profile to own them',
    profileFirstHint: "give the endpoint the profile resource's name output, so the profile is created before its endpoints",
  });
}

const CODE: Partial<Record<string, ErrorCode>> = {
  RESOURCE_CHANGED: 'FAILED_PRECONDITION',
  RESOURCE_GONE: 'FAILED_PRECONDITION',
  RESOURCE_EXISTS: 'ALREADY_EXISTS',
  RESOURCE_NOT_OWNED: 'PERMISSION_DENIED',
  RESOURCE_HAS_ENDPOINTS: 'FAILED_PRECONDITION',
  RESOURCE_PROFILE_MISSING: 'FAILED_PRECONDITION',
  UNREACHABLE: 'UNAVAILABLE',
  UNAUTHORIZED: 'UNAUTHENTICATED',
};

/** Where a server diagnostic points, in the resource's terms: its Pulumi path when it is about this resource. */
type Locate = (d: Diagnostic) => string | undefined;

/** An expected failure as the engine should show it: the resource, what the server said, at Pulumi paths. */
function failure(op: string, ctx: RequestContext, err: unknown, locate: Locate): unknown {
  if (!(err instanceof TmkitError)) return err;
  const what = `${ctx.type} "${ctx.name}"`;
  if (err instanceof TmkitApiError && err.status === 400 && err.errors.length > 0) {
    const lines = err.errors
      .filter((d) => d.severity === 'error')
      .map((d) => {
        const at = locate(d);
        return `  ${at !== undefined ? (at === '' ? '(the resource)' : at) : d.path}: ${reasonOf(d)}`;
      });
    return new ProviderError(
      `${what}: the tmkit server refused to ${op} it, nothing was written:\n${lines.join('\n')}`,
      'INVALID_ARGUMENT',
    );
  }
  if (err instanceof TmkitApiError && err.status === 401) {
    return new ProviderError(
      `${what}: the tmkit server refused the token (HTTP 401): set tmkit:token (\`pulumi config set --secret tmkit:token …\`) or TMKIT_TOKEN to the server's token`,
      'UNAUTHENTICATED',
    );
  }
  return new ProviderError(`${what}: ${err.message}`, CODE[err.code] ?? 'UNKNOWN');
}

async function guard<T>(op: string, ctx: RequestContext, locate: Locate, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw failure(op, ctx, err, locate);
  }
}

/** Check's default (the logical name) again, for inputs that did not come through Check. */
function withDefault(inputs: PlainMap, key: 'profileName' | 'endpointName', logical: string): PlainMap {
  if (inputs[key] !== undefined && inputs[key] !== null) return inputs;
  return { ...inputs, [key]: key === 'endpointName' && typeof inputs.name === 'string' ? inputs.name : logical };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The DNS zone the server answers for, learnt from one profile's status (fqdn = relativeName.zone), once. */
function fqdnOf(): (client: TmkitClient, p: Profile) => Promise<Value> {
  let zone: string | undefined;
  return async (client, p) => {
    const relative = p.dnsConfig.relativeName.replace(/\.$/, '').toLowerCase();
    if (zone === undefined) {
      try {
        const fqdn = (await client.status(p.name)).fqdn.toLowerCase();
        if (fqdn === relative) zone = '';
        else if (fqdn.startsWith(`${relative}.`)) zone = fqdn.slice(relative.length + 1);
        else return fqdn;
      } catch {
        return null; // a server without a monitor cannot say; fqdn stays empty rather than failing the write
      }
    }
    return zone === '' ? relative : `${relative}.${zone}`;
  };
}

/** A noted in-place replacement (see the module comment). */
interface InPlace {
  identity: string;
  olds: PropertyMap;
  oldInputs: PropertyMap;
  created: boolean;
  deleted: boolean;
}

function inPlaceNotes() {
  const notes = new Map<string, InPlace>();
  return {
    note(urn: string, identity: string | undefined, replaces: readonly string[], olds: PropertyMap, oldInputs: PropertyMap): void {
      if (identity !== undefined && replaces.length > 0) notes.set(urn, { identity, olds, oldInputs, created: false, deleted: false });
      else notes.delete(urn);
    },
    get(urn: string, identity: string | undefined): InPlace | undefined {
      const n = notes.get(urn);
      return n && identity !== undefined && n.identity === identity ? n : undefined;
    },
    done(urn: string, n: InPlace, step: 'created' | 'deleted'): void {
      n[step] = true;
      if (n.created && n.deleted) notes.delete(urn);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Profile

function priorProfile(outs: PropertyMap): PriorProfile {
  const plain = reveal(outs);
  const profile = normalizeProfile(profileFromOutputs(plain));
  const etag = str(plain.etag);
  return etag !== undefined ? { profile, etag } : { profile };
}

const profileIdentity = (name: Plain | undefined): string | undefined => (knownString(name) ? name.toLowerCase() : undefined);

/** What a request declares: its inputs (profileName defaulting to the logical name), the profile they make, and whether it owns its endpoints. */
function declaredProfile(props: PropertyMap, logical: string): { inputs: PlainMap; model: ProfileInput; owns: boolean } {
  const inputs = withDefault(reveal(props), 'profileName', logical);
  return { inputs, model: profileInput(inputs), owns: ownsEndpoints(inputs) };
}

/** Server diagnostics about this profile at Pulumi paths of its inputs. */
function profileLocator(name: string, inputs: PlainMap): Locate {
  const prefix = `profiles${itemSegment({ name }, 0, true)}`;
  return (d) =>
    d.path === prefix || d.path.startsWith(`${prefix}.`) || d.path.startsWith(`${prefix}[`)
      ? toPulumiPath(d.path.slice(prefix.length), inputs, { name: 'profileName' })
      : undefined;
}

export function profileResource(ctx: TmkitContext): ResourceImpl {
  const notes = inPlaceNotes();
  const live: LiveHealthCache = new Map();
  const fqdn = fqdnOf();

  async function outputs(res: StackResources, e: ProfileEntry, owns: boolean): Promise<PropertyMap> {
    return profileOutputsOf(e.profile, {
      withEndpoints: owns,
      fqdn: await fqdn(res.client, e.profile),
      stack: e.stack,
      ...(owns ? { etag: e.etag } : {}),
    });
  }

  return {
    check: (req) => checkProfile(req.news, req.name),

    diff: (req) => {
      const r = diffProfile(req.oldInputs, req.olds, req.news);
      const oldName = profileIdentity(reveal(req.olds).name ?? reveal(req.oldInputs).profileName);
      const newName = profileIdentity(reveal(req.news).profileName);
      notes.note(req.urn, oldName !== undefined && oldName === newName ? newName : undefined, r.replaces ?? [], req.olds, req.oldInputs);
      return r;
    },

    preview: (req) => {
      const inputs = req.inputs;
      const plain = reveal(inputs);
      const owns = ownsEndpoints(plain);
      const dns = plain.dnsConfig;
      let fqdnValue: Value = UNKNOWN;
      const old = req.olds ? reveal(req.olds) : undefined;
      const oldDns = old?.dnsConfig as PlainMap | undefined;
      if (
        oldDns &&
        typeof dns === 'object' &&
        dns !== null &&
        !Array.isArray(dns) &&
        (dns as PlainMap).relativeName === oldDns.relativeName
      )
        fqdnValue = (oldDns.fqdn ?? UNKNOWN) as Value;
      const out: PropertyMap = {
        ...inputs,
        name: inputs.profileName ?? UNKNOWN,
        type: PROFILE_ARM_TYPE,
        dnsConfig:
          typeof inputs.dnsConfig === 'object' &&
          inputs.dnsConfig !== null &&
          !Array.isArray(inputs.dnsConfig) &&
          !isUnknown(inputs.dnsConfig)
            ? { ...(inputs.dnsConfig as PropertyMap), fqdn: fqdnValue }
            : UNKNOWN,
        stack: ctx.stack(),
      };
      delete out.location;
      if (owns) out.etag = UNKNOWN;
      return out;
    },

    // The id is the name's: known before the create whenever the name is (it stays for an in-place replacement).
    previewId: (req) => {
      const name = reveal(req.inputs).profileName ?? req.name;
      return knownString(name) ? profileId(ctx.stack(), name) : undefined;
    },

    // Plans that see live health (docs/plan.md): the deployed profile's health now, and a warning when this
    // update leaves it with no endpoint Online.
    previewWarnings: async (req) => {
      if (!req.olds || containsUnknowns(req.inputs)) return [];
      const { model, owns } = declaredProfile(req.inputs, req.name);
      return liveHealthNotes(
        await ctx.client(),
        model.name,
        (deployed) => normalizeProfile({ ...model, endpoints: owns ? (model.endpoints ?? []) : deployed.endpoints }),
        live,
      );
    },

    create: async (req) => {
      const { inputs, model, owns } = declaredProfile(req.inputs, req.name);
      return guard('create', req, profileLocator(model.name, inputs), async () => {
        const res = await stackResources(ctx);
        const note = notes.get(req.urn, profileIdentity(model.name));
        let entry: ProfileEntry;
        if (note) {
          entry = await res.updateProfile(model, {
            ownsEndpoints: owns,
            prior: priorProfile(note.olds),
            adoptEndpoints: owns && !ownsEndpoints(reveal(note.oldInputs)),
          });
          notes.done(req.urn, note, 'created');
        } else {
          entry = await res.createProfile(model, {
            ownsEndpoints: owns,
            importHint: 'import it into this program (its id, or its name), or choose another profileName',
          });
        }
        return { id: profileId(ctx.stack(), entry.profile.name), outputs: await outputs(res, entry, owns) };
      });
    },

    read: async (req) => {
      const name = parseProfileId(req.id);
      if (name === undefined) {
        throw new ProviderError(
          `${req.type} "${req.name}": "${req.id}" is not a profile id: give /tmkit/stacks/<stack>/trafficManagerProfiles/<name> (or an ARM id ending in /trafficManagerProfiles/<name>, or the profile's name)`,
          'INVALID_ARGUMENT',
        );
      }
      return guard(
        'read',
        req,
        () => undefined,
        async () => {
          const res = await stackResources(ctx);
          const entry = await res.readProfile(name, { anyStack: true });
          if (!entry) return undefined;
          const importing = req.inputs === undefined && Object.keys(req.state).length === 0;
          if (importing && entry.stack !== ctx.stack()) {
            throw new ProviderError(
              `${req.type} "${req.name}": profile '${entry.profile.name}' belongs to tmkit stack '${entry.stack}', not to this provider's stack '${ctx.stack()}', so it is not imported: set tmkit:stack to '${entry.stack}' to manage that stack's profiles`,
              'PERMISSION_DENIED',
            );
          }
          // An import adopts the whole profile (endpoints included); a refresh keeps what the resource declares.
          const owns = importing || ownsEndpoints(req.inputs ? reveal(req.inputs) : undefined);
          const inputs = profileInputsOf(entry.profile, owns);
          return { id: importing ? profileId(ctx.stack(), entry.profile.name) : req.id, outputs: await outputs(res, entry, owns), inputs };
        },
      );
    },

    update: async (req) => {
      const { inputs, model, owns } = declaredProfile(req.news, req.name);
      return guard('update', req, profileLocator(model.name, inputs), async () => {
        const res = await stackResources(ctx);
        const entry = await res.updateProfile(model, {
          ownsEndpoints: owns,
          prior: priorProfile(req.olds),
          adoptEndpoints: owns && !ownsEndpoints(reveal(req.oldInputs)),
        });
        return { outputs: await outputs(res, entry, owns) };
      });
    },

    delete: async (req) => {
      const prior = priorProfile(req.state);
      const note = notes.get(req.urn, profileIdentity(prior.profile.name));
      if (note) {
        notes.done(req.urn, note, 'deleted'); // the replacement is this very profile: it stays
        return;
      }
      await guard(
        'delete',
        req,
        () => undefined,
        async () => {
          await (await stackResources(ctx)).deleteProfile(prior.profile.name, {
            ownsEndpoints: ownsEndpoints(reveal(req.oldInputs)),
            prior,
          });
        },
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Endpoint

/**
 * The server's rule warnings about this endpoint (e.g. WEIGHT_IGNORED: its profile's routing method is only
 * known to the server), at the Endpoint's Pulumi paths, for the engine to show on the resource.
 */
function warningsOf(e: EndpointState, locate: Locate): string[] {
  const out: string[] = [];
  for (const d of e.warnings ?? []) {
    const at = locate(d);
    if (at !== undefined) out.push(`${at === '' ? '' : `${at}: `}${reasonOf(d)}`);
  }
  return out;
}

/** The endpoint recorded in outputs (normalized) with its ETag, when the outputs have one. */
function priorEndpoint(outs: PropertyMap): PriorEndpoint {
  const plain = reveal(outs);
  const endpoint = normalizeEndpoint(endpointFromOutputs(plain));
  const etag = str(plain.etag);
  return etag !== undefined ? { endpoint, etag } : { endpoint };
}

function endpointIdentity(inputs: PlainMap): string | undefined {
  const p = inputs.profileName;
  const e = inputs.endpointName ?? inputs.name;
  return knownString(p) && knownString(e) ? `${p.toLowerCase()}/${e.toLowerCase()}` : undefined;
}

/** Server diagnostics about this endpoint at the Endpoint's Pulumi paths. */
function endpointLocator(profile: string, endpoint: string, inputs: PlainMap): Locate {
  const prefix = `profiles${itemSegment({ name: profile }, 0, true)}.endpoints${itemSegment({ name: endpoint }, 0, true)}`;
  const typeAt = inputs.endpointType !== undefined && inputs.endpointType !== null ? 'endpointType' : 'type';
  return (d) => {
    const p = d.path.toLowerCase();
    const pre = prefix.toLowerCase();
    if (p === pre || p.startsWith(`${pre}.`) || p.startsWith(`${pre}[`))
      return toPulumiPath(d.path.slice(prefix.length), inputs, { name: 'endpointName', type: typeAt });
    return undefined;
  };
}

export function endpointResource(ctx: TmkitContext): ResourceImpl {
  const notes = inPlaceNotes();
  const live: LiveHealthCache = new Map();

  function outputs(e: EndpointState): PropertyMap {
    return endpointOutputsOf(e.profile, e.endpoint, { stack: e.stack, etag: e.etag });
  }

  function idOf(e: EndpointState): string {
    return endpointId(ctx.stack(), e.profile, e.endpoint.type, e.endpoint.name);
  }

  return {
    check: (req) => checkEndpoint(req.news, req.name),

    diff: (req) => {
      const r = diffEndpoint(req.oldInputs, req.olds, req.news);
      const before = endpointIdentity(reveal(req.oldInputs));
      const after = endpointIdentity(reveal(req.news));
      notes.note(req.urn, before !== undefined && before === after ? after : undefined, r.replaces ?? [], req.olds, req.oldInputs);
      return r;
    },

    preview: (req) => {
      const inputs = req.inputs;
      const plain = reveal(inputs);
      const t = plain.endpointType ?? plain.type;
      const type = typeof t === 'string' ? parseEndpointType(t) : undefined;
      const old = req.olds ? reveal(req.olds) : undefined;
      return {
        ...inputs,
        name: inputs.endpointName ?? UNKNOWN,
        endpointType: type ? endpointTypeName(type) : (inputs.endpointType ?? UNKNOWN),
        type: type ? fullEndpointType(type) : UNKNOWN,
        priority: inputs.priority ?? (old && typeof old.priority === 'number' ? old.priority : UNKNOWN),
        stack: ctx.stack(),
        etag: UNKNOWN,
      };
    },

    // Live health (docs/plan.md): the profile's health now, and a warning when this endpoint's change (disabling
    // the only Online one, say) leaves the profile with no endpoint Online.
    previewWarnings: async (req) => {
      if (containsUnknowns(req.inputs)) return [];
      const inputs = withDefault(reveal(req.inputs), 'endpointName', req.name);
      const model = endpointInput(inputs);
      const same = (n: string): boolean => n.toLowerCase() === model.name.toLowerCase();
      return liveHealthNotes(
        await ctx.client(),
        String(inputs.profileName),
        (deployed) =>
          normalizeProfile({
            ...deployed,
            endpoints: deployed.endpoints.some((e) => same(e.name))
              ? deployed.endpoints.map((e) => (same(e.name) ? { ...model, priority: model.priority ?? e.priority } : e))
              : [...deployed.endpoints, model],
          }),
        live,
      );
    },

    previewId: (req) => {
      const inputs = withDefault(reveal(req.inputs), 'endpointName', req.name);
      const t = inputs.endpointType ?? inputs.type;
      const type = typeof t === 'string' && !isUnknown(t) ? parseEndpointType(t) : undefined;
      return knownString(inputs.profileName) && knownString(inputs.endpointName) && type
        ? endpointId(ctx.stack(), inputs.profileName, type, inputs.endpointName)
        : undefined;
    },

    create: async (req) => {
      const inputs = withDefault(reveal(req.inputs), 'endpointName', req.name);
      const model = endpointInput(inputs);
      const profile = String(inputs.profileName);
      return guard('create', req, endpointLocator(profile, model.name, inputs), async () => {
        const res = await stackResources(ctx);
        const note = notes.get(req.urn, endpointIdentity(inputs));
        let e: EndpointState;
        if (note) {
          e = await res.updateEndpoint(profile, model, { prior: priorEndpoint(note.olds) });
          notes.done(req.urn, note, 'created');
        } else {
          e = await res.createEndpoint(profile, model, {
            importHint: 'import it into this program (its id), or choose another endpointName',
          });
        }
        return { id: idOf(e), outputs: outputs(e), warnings: warningsOf(e, endpointLocator(profile, model.name, inputs)) };
      });
    },

    read: async (req) => {
      const parsed = parseEndpointId(req.id);
      if (!parsed) {
        throw new ProviderError(
          `${req.type} "${req.name}": "${req.id}" is not an endpoint id: give /tmkit/stacks/<stack>/trafficManagerProfiles/<profile>/<type>/<endpoint> (or ARM's endpoint id, or <profile>/<endpoint>)`,
          'INVALID_ARGUMENT',
        );
      }
      return guard(
        'read',
        req,
        () => undefined,
        async () => {
          const e = await (await stackResources(ctx)).readEndpoint(parsed.profile, parsed.name, {
            anyStack: true,
            storedProfileName: true,
          });
          if (!e) return undefined;
          const importing = req.inputs === undefined && Object.keys(req.state).length === 0;
          if (importing && e.stack !== ctx.stack()) {
            throw new ProviderError(
              `${req.type} "${req.name}": endpoint '${parsed.profile}/${e.endpoint.name}' belongs to a profile of tmkit stack '${e.stack}', not of this provider's stack '${ctx.stack()}', so it is not imported: set tmkit:stack to '${e.stack}' to manage that stack's profiles`,
              'PERMISSION_DENIED',
            );
          }
          return { id: importing ? idOf(e) : req.id, outputs: outputs(e), inputs: endpointInputsOf(e.profile, e.endpoint) };
        },
      );
    },

    update: async (req) => {
      const inputs = withDefault(reveal(req.news), 'endpointName', req.name);
      const model = endpointInput(inputs);
      const profile = String(inputs.profileName);
      return guard('update', req, endpointLocator(profile, model.name, inputs), async () => {
        const e = await (await stackResources(ctx)).updateEndpoint(profile, model, { prior: priorEndpoint(req.olds) });
        return { outputs: outputs(e), warnings: warningsOf(e, endpointLocator(profile, model.name, inputs)) };
      });
    },

    delete: async (req) => {
      const state = reveal(req.state);
      const note = notes.get(req.urn, endpointIdentity(reveal(req.oldInputs)));
      if (note) {
        notes.done(req.urn, note, 'deleted');
        return;
      }
      const profile = String(state.profileName ?? reveal(req.oldInputs).profileName);
      await guard(
        'delete',
        req,
        () => undefined,
        async () => {
          const prior = priorEndpoint(req.state);
          await (await stackResources(ctx)).deleteEndpoint(profile, prior.endpoint.name, { prior });
        },
      );
    },
  };
}
