/** tmkit:index:Profile as a ResourceImpl (resources.ts tells how its writes and in-place replacements work). */
import type { ProfileEntry } from '../../../../src/core/api';
import { normalizeProfile } from '../../../../src/core/model/normalize';
import type { Profile, ProfileInput } from '../../../../src/core/model/types';
import { itemSegment } from '../../../../src/core/validate/util';
import type { TmkitClient } from '../../../../src/client/client';
import { liveHealthNotes, type LiveHealthCache } from '../../../../src/client/deploy';
import { profileId, parseProfileId } from '../../../../src/client/ids';
import type { PriorProfile, StackResources } from '../../../../src/client/resources';
import type { ResourceImpl } from '../provider';
import { ProviderError } from '../provider';
import { UNKNOWN, containsUnknowns, isUnknown, reveal, type Plain, type PlainMap, type PropertyMap, type Value } from '../values';
import { checkProfile } from './check';
import { guard, guardRead, inPlaceNotes, notAnId, stackResources, str, withDefault, type Locate, type TmkitContext } from './common';
import {
  PROFILE_ARM_TYPE,
  knownString,
  ownsEndpoints,
  profileFromOutputs,
  profileInput,
  profileInputsOf,
  profileOutputsOf,
} from './convert';
import { diffProfile } from './diff';
import { toPulumiPath } from './paths';

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
        throw notAnId(
          req,
          'a profile',
          "/tmkit/stacks/<stack>/trafficManagerProfiles/<name> (or an ARM id ending in /trafficManagerProfiles/<name>, or the profile's name)",
        );
      }
      return guardRead(req, async () => {
        const res = await stackResources(ctx);
        const entry = await res.readProfile(name, { anyStack: true });
        if (!entry) return undefined;
        const importing = req.inputs === undefined && Object.keys(req.state).length === 0;
        if (importing && entry.stack !== ctx.stack()) {
          throw new ProviderError(
            `${req.type} "${req.name}": profile '${entry.profile.name}' belongs to tmkit stack '${entry.stack}', ` +
              `not to this provider's stack '${ctx.stack()}', so it is not imported: ` +
              `set tmkit:stack to '${entry.stack}' to manage that stack's profiles`,
            'PERMISSION_DENIED',
          );
        }
        // An import adopts the whole profile (endpoints included); a refresh keeps what the resource declares.
        const owns = importing || ownsEndpoints(req.inputs ? reveal(req.inputs) : undefined);
        const inputs = profileInputsOf(entry.profile, owns);
        return { id: importing ? profileId(ctx.stack(), entry.profile.name) : req.id, outputs: await outputs(res, entry, owns), inputs };
      });
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
