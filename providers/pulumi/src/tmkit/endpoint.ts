/** tmkit:index:Endpoint as a ResourceImpl (resources.ts tells how its writes and in-place replacements work). */
import { normalizeProfile } from '../../../../src/core/model/normalize';
import { fullEndpointType, parseEndpointType } from '../../../../src/core/model/names';
import { itemSegment } from '../../../../src/core/validate/util';
import { liveHealthNotes, type LiveHealthCache } from '../../../../src/client/deploy';
import { endpointId, parseEndpointId } from '../../../../src/client/ids';
import { normalizeEndpoint, type EndpointState, type PriorEndpoint } from '../../../../src/client/resources';
import type { ResourceImpl } from '../provider';
import { ProviderError } from '../provider';
import { UNKNOWN, containsUnknowns, isUnknown, reveal, type PlainMap, type PropertyMap } from '../values';
import { checkEndpoint, reasonOf } from './check';
import { guard, guardRead, inPlaceNotes, notAnId, stackResources, str, withDefault, type Locate, type TmkitContext } from './common';
import { endpointFromOutputs, endpointInput, endpointInputsOf, endpointOutputsOf, endpointTypeName, knownString } from './convert';
import { diffEndpoint } from './diff';
import { toPulumiPath } from './paths';

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
        throw notAnId(
          req,
          'an endpoint',
          "/tmkit/stacks/<stack>/trafficManagerProfiles/<profile>/<type>/<endpoint> (or ARM's endpoint id, or <profile>/<endpoint>)",
        );
      }
      return guardRead(req, async () => {
        const e = await (await stackResources(ctx)).readEndpoint(parsed.profile, parsed.name, {
          anyStack: true,
          storedProfileName: true,
        });
        if (!e) return undefined;
        const importing = req.inputs === undefined && Object.keys(req.state).length === 0;
        if (importing && e.stack !== ctx.stack()) {
          throw new ProviderError(
            `${req.type} "${req.name}": endpoint '${parsed.profile}/${e.endpoint.name}' belongs to a profile of tmkit stack '${e.stack}', ` +
              `not of this provider's stack '${ctx.stack()}', so it is not imported: ` +
              `set tmkit:stack to '${e.stack}' to manage that stack's profiles`,
            'PERMISSION_DENIED',
          );
        }
        return { id: importing ? idOf(e) : req.id, outputs: outputs(e), inputs: endpointInputsOf(e.profile, e.endpoint) };
      });
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
