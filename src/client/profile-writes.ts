/**
 * The profile writes of `StackResources` (resources.ts): read, create (idempotent), update (a whole PUT for a
 * profile that owns its endpoints, a settings merge patch for one that does not) and delete.
 */
import type { ProfileEntry } from '../core/api';
import { mergePatchFrom } from '../core/model/edit';
import { normalizeProfile } from '../core/model/normalize';
import type { ProfileInput } from '../core/model/types';
import { diffAttributes } from '../core/plan/attributes';
import { responseLost } from './client';
import {
  apiError,
  DEFAULT_IMPORT,
  entryOf,
  normalizeSettings,
  PATCH_ATTEMPTS,
  type PriorProfile,
  profileSettings,
  type ProfileSettingsInput,
  ResourceError,
  StackBase,
  without,
} from './resource-common';

/** The profiles of one stack (`StackResources` adds the endpoints). */
export abstract class ProfileWrites extends StackBase {
  // ------------------------------------------------------------------------------------------- profiles

  /**
   * The stored profile, or undefined when it does not exist. Another stack's profile is RESOURCE_NOT_OWNED,
   * unless `anyStack` (the caller then looks at `stack` itself, e.g. to refuse an import with its own words).
   */
  async readProfile(name: string, opts: { anyStack?: boolean } = {}): Promise<ProfileEntry | undefined> {
    const entry = await this.client.findProfile(name);
    if (entry && !opts.anyStack) this.assertOwned(entry);
    return entry;
  }

  /**
   * Creates the profile (`If-None-Match: *`): with its endpoints when the resource owns them, else with none
   * (its endpoint resources add theirs). An existing profile is never overwritten nor adopted: this stack's is
   * RESOURCE_EXISTS with `importHint`, another stack's RESOURCE_NOT_OWNED.
   */
  async createProfile(
    input: ProfileInput | ProfileSettingsInput,
    opts: { ownsEndpoints?: boolean; importHint?: string; resent?: boolean } = {},
  ): Promise<ProfileEntry> {
    const body: ProfileInput = opts.ownsEndpoints ? input : { ...input, endpoints: [] };
    try {
      return entryOf(await this.client.putProfile(body, { stack: this.stack, ifNoneMatch: '*' }));
    } catch (err) {
      const lost = responseLost(err);
      if (!lost && !apiError(err, 412) && !apiError(err, 409, 'STACK_CONFLICT')) throw err;
      const current = await this.client.findProfile(input.name);
      if (!current) {
        if (lost && !opts.resent) return this.createProfile(input, { ...opts, resent: true });
        throw err;
      }
      if (current.stack !== this.stack) throw this.notOwned(current.profile.name, current.stack, err);
      // Adopted when it is what this create writes: the whole profile, or the settings of one that owns only them.
      const same = opts.ownsEndpoints
        ? diffAttributes(normalizeProfile(body), current.profile).length === 0
        : diffAttributes(normalizeSettings(input), profileSettings(current.profile)).length === 0;
      if (same) return current;
      throw this.exists(`profile '${current.profile.name}' (tmkit stack '${current.stack}')`, opts.importHint ?? DEFAULT_IMPORT, err);
    }
  }

  /**
   * Updates the profile. Owning its endpoints: a PUT of the whole profile with `If-Match` (the prior ETag, or
   * that of the stored version after comparing it with the prior profile). `adoptEndpoints`: the resource
   * declares endpoints from now on, so it takes over the whole set (its settings are compared). Owning only its
   * settings: a merge patch of the settings, after checking that nobody else changed them since `prior`.
   * `unmanaged`: settings the tool does not model (e.g. Terraform's `allowedEndpointRecordTypes`), kept as
   * stored and left out of the comparison. Without `prior` nothing is compared (the stored version is written over).
   */
  async updateProfile(
    input: ProfileInput | ProfileSettingsInput,
    opts: { prior?: PriorProfile; ownsEndpoints?: boolean; adoptEndpoints?: boolean; unmanaged?: readonly string[] } = {},
  ): Promise<ProfileEntry> {
    const prior = opts.prior ? normalizeProfile(opts.prior.profile) : undefined;
    const name = prior?.name ?? input.name;
    if (opts.ownsEndpoints) {
      let ifMatch = opts.adoptEndpoints ? undefined : opts.prior?.etag;
      if (ifMatch === undefined) {
        // No ETag to hold the profile to: compare what was seen with what is stored (only the settings when the
        // resource starts owning the endpoints now), then PUT If-Match the version compared.
        const current = await this.readProfile(name);
        if (!current) throw this.gone(`profile '${name}'`);
        if (prior) {
          const changes = opts.adoptEndpoints
            ? diffAttributes(profileSettings(prior), profileSettings(current.profile))
            : diffAttributes(prior, current.profile);
          if (changes.length > 0)
            throw this.changed(opts.adoptEndpoints ? `the settings of profile '${name}'` : `profile '${name}'`, changes);
        }
        ifMatch = current.etag;
      }
      try {
        return entryOf(await this.client.putProfile(input as ProfileInput, { stack: this.stack, ifMatch }));
      } catch (err) {
        if (apiError(err, 412)) {
          const current = await this.client.findProfile(name);
          if (!current) throw this.gone(`profile '${name}'`, err);
          throw this.changed(`profile '${name}'`, prior ? diffAttributes(prior, current.profile) : [], err);
        }
        return this.ownership(err, name);
      }
    }
    const unmanaged = opts.unmanaged ?? [];
    const desired = without(normalizeSettings(input), unmanaged);
    for (let attempt = 1; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) throw this.gone(`profile '${name}'`);
      const stored = without(profileSettings(current.profile), unmanaged);
      if (prior) {
        const theirs = diffAttributes(without(profileSettings(prior), unmanaged), stored);
        if (theirs.length > 0) throw this.changed(`the settings of profile '${name}'`, theirs);
      }
      const patch = mergePatchFrom(stored, { ...desired, name: current.profile.name }) as Record<string, unknown>;
      if (Object.keys(patch).length === 0) return current;
      try {
        return entryOf(await this.client.patchProfile(current.profile.name, patch, { stack: this.stack, ifMatch: current.etag }));
      } catch (err) {
        // An endpoint resource wrote in between (the ETag moved); compare and patch again.
        if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
        return this.ownership(err, name);
      }
    }
  }

  /**
   * Deletes the profile; one that is gone already is fine. Owning its endpoints: `If-Match` with the prior
   * ETag (or after comparing the whole prior profile). Owning only its settings: after checking its settings,
   * and only once it has no endpoints left (RESOURCE_HAS_ENDPOINTS: those belong to other resources, which
   * delete their own). `unmanaged` as in updateProfile; without `prior` nothing is compared.
   */
  async deleteProfile(
    name: string,
    opts: { prior?: PriorProfile; ownsEndpoints?: boolean; unmanaged?: readonly string[] } = {},
  ): Promise<void> {
    const prior = opts.prior ? normalizeProfile(opts.prior.profile) : undefined;
    const unmanaged = opts.unmanaged ?? [];
    for (let attempt = 1; ; attempt++) {
      const current = await this.readProfile(name);
      if (!current) return; // already gone: the goal of a delete
      if (opts.ownsEndpoints) {
        const etag = opts.prior?.etag;
        if (prior && (etag !== undefined ? current.etag !== etag : diffAttributes(prior, current.profile).length > 0)) {
          throw this.changed(`profile '${name}'`, diffAttributes(prior, current.profile));
        }
      } else {
        if (prior) {
          const theirs = diffAttributes(without(profileSettings(prior), unmanaged), without(profileSettings(current.profile), unmanaged));
          if (theirs.length > 0) throw this.changed(`the settings of profile '${name}'`, theirs);
        }
        if (current.profile.endpoints.length > 0) {
          throw new ResourceError(
            'RESOURCE_HAS_ENDPOINTS',
            `profile '${current.profile.name}' still has ${current.profile.endpoints.length === 1 ? 'endpoint' : 'endpoints'} ` +
              `${current.profile.endpoints.map((e) => `'${e.name}'`).join(', ')}, ` +
              'which this profile resource does not manage ' +
              '(it declares no endpoints), so it is not deleted',
            `delete those endpoints (or their resources) first${this.options.strayEndpointsHint ? `, ${this.options.strayEndpointsHint}` : ''}`,
          );
        }
      }
      try {
        await this.client.deleteProfile(current.profile.name, { stack: this.stack, ifMatch: current.etag });
        return;
      } catch (err) {
        if (apiError(err, 404)) return;
        if (apiError(err, 412) && attempt < PATCH_ATTEMPTS) continue;
        return this.ownership(err, name);
      }
    }
  }
}
