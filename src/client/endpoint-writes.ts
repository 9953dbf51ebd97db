/**
 * `StackResources` (re-exported by resources.ts): the endpoint writes, one endpoint at a time with its own
 * ETag (or compared by content), on top of the profile writes it inherits (profile-writes.ts).
 */
import type { EndpointDeleteResult } from '../core/api';
import type { EndpointInput } from '../core/model/types';
import { responseLost } from './client';
import { ProfileWrites } from './profile-writes';
import {
  apiError,
  DEFAULT_IMPORT,
  type EndpointState,
  endpointChanges,
  endpointOf,
  type PriorEndpoint,
  ResourceError,
} from './resource-common';

/**
 * Profiles and single endpoints of one stack: `stack` is the owner every write carries (Terraform's provider
 * `stack`, default "terraform"; Pulumi's `tmkit:stack`, default "pulumi").
 */
export class StackResources extends ProfileWrites {
  // ------------------------------------------------------------------------------------------ endpoints

  /**
   * One endpoint with its ETag, or undefined when it (or its profile) does not exist. `profile` is the name as
   * given, or with `storedProfileName` as stored (one more request). An endpoint of another stack's profile is
   * RESOURCE_NOT_OWNED, unless `anyStack`.
   */
  async readEndpoint(
    profile: string,
    name: string,
    opts: { anyStack?: boolean; storedProfileName?: boolean } = {},
  ): Promise<EndpointState | undefined> {
    const r = await this.storedEndpoint(profile, name);
    if (!r) return undefined;
    if (!opts.anyStack) this.assertOwned({ name: profile, stack: r.stack });
    if (!opts.storedProfileName) return r;
    // The endpoint's answer does not spell its profile's name: the profile's does (profile names are case-insensitive).
    const entry = await this.client.findProfile(profile);
    return { ...r, profile: entry?.profile.name ?? profile };
  }

  protected async storedEndpoint(profile: string, name: string): Promise<EndpointState | undefined> {
    try {
      return { profile, ...(await this.client.getEndpoint(profile, name)) };
    } catch (err) {
      if (apiError(err, 404)) return undefined;
      throw err;
    }
  }

  protected async endpointWriteError(err: unknown, profile: string): Promise<never> {
    if (apiError(err, 404)) {
      throw new ResourceError(
        'RESOURCE_PROFILE_MISSING',
        `profile '${profile}' does not exist, so its endpoint cannot be written`,
        `create the profile first${this.options.profileFirstHint ? ` (${this.options.profileFirstHint})` : ''}`,
        err,
      );
    }
    return this.ownership(err, profile);
  }

  /**
   * The `If-Match` for a write of an endpoint last seen as `prior`: its ETag, or (without one) the stored
   * endpoint's after comparing it with `prior` (RESOURCE_CHANGED when they differ). Undefined: it is gone.
   */
  protected async endpointPrecondition(profile: string, name: string, prior: PriorEndpoint | undefined): Promise<string | undefined> {
    if (prior?.etag) return prior.etag;
    const current = await this.storedEndpoint(profile, name);
    if (!current) return undefined;
    this.assertOwned({ name: profile, stack: current.stack });
    if (prior) {
      const changes = endpointChanges(prior, current.endpoint);
      if (changes.length > 0) throw this.changed(`endpoint '${profile}/${name}'`, changes);
    }
    return current.etag;
  }

  /**
   * After a 412: what changed since `prior` (or RESOURCE_GONE; `gone` when it is gone and that is fine). When
   * `prior` has an ETag and the stored endpoint still has the content seen (written again, or changed and
   * changed back), `retry` is its current ETag: the write may go ahead with it.
   */
  protected async endpointConflict(
    profile: string,
    name: string,
    prior: PriorEndpoint | undefined,
    err: unknown,
    goneIsFine: boolean,
    retried: boolean,
  ): Promise<ResourceError | { retry: string } | 'gone'> {
    const current = await this.storedEndpoint(profile, name);
    if (!current) return goneIsFine ? 'gone' : this.gone(`endpoint '${profile}/${name}'`, err);
    const changes = prior ? endpointChanges(prior, current.endpoint) : [];
    if (prior?.etag && changes.length === 0 && !retried) {
      this.assertOwned({ name: profile, stack: current.stack });
      return { retry: current.etag };
    }
    return this.changed(`endpoint '${profile}/${name}'`, changes, err);
  }

  /**
   * Creates one endpoint (`If-None-Match: *`): an existing endpoint of that name is RESOURCE_EXISTS (with
   * `importHint`), never replaced; a missing profile RESOURCE_PROFILE_MISSING; another stack's RESOURCE_NOT_OWNED.
   * The server validates the whole resulting profile; its 400 names the conflicting endpoint.
   */
  async createEndpoint(
    profile: string,
    input: EndpointInput,
    opts: { importHint?: string; resent?: boolean } = {},
  ): Promise<EndpointState> {
    try {
      return endpointOf(await this.client.putEndpoint(profile, input, { stack: this.stack, ifNoneMatch: '*' }));
    } catch (err) {
      const lost = responseLost(err);
      if (!lost && !apiError(err, 412)) return this.endpointWriteError(err, profile);
      const current = await this.storedEndpoint(profile, input.name);
      if (!current) {
        if (lost && !opts.resent) return this.createEndpoint(profile, input, { ...opts, resent: true });
        throw err;
      }
      this.assertOwned({ name: profile, stack: current.stack });
      if (endpointChanges({ endpoint: input }, current.endpoint).length === 0) return current; // this create's own write: adopted
      throw this.exists(`endpoint '${input.name}' of profile '${profile}'`, opts.importHint ?? DEFAULT_IMPORT, err);
    }
  }

  /**
   * Replaces one endpoint, `If-Match` what was last seen (`prior`, see PriorEndpoint): a change by someone else
   * is RESOURCE_CHANGED with what changed, a deletion RESOURCE_GONE, and nothing is written. A missing priority
   * keeps the stored one. Without `prior` the stored endpoint is written over.
   */
  async updateEndpoint(profile: string, input: EndpointInput, opts: { prior?: PriorEndpoint } = {}): Promise<EndpointState> {
    const name = opts.prior?.endpoint.name ?? input.name;
    let ifMatch = await this.endpointPrecondition(profile, name, opts.prior);
    if (ifMatch === undefined) throw this.gone(`endpoint '${profile}/${name}'`);
    for (let retried = false; ; retried = true) {
      try {
        return endpointOf(await this.client.putEndpoint(profile, input, { stack: this.stack, ifMatch }));
      } catch (err) {
        if (!apiError(err, 412)) return this.endpointWriteError(err, profile);
        const c = await this.endpointConflict(profile, name, opts.prior, err, false, retried);
        if (c instanceof ResourceError || c === 'gone') throw c;
        ifMatch = c.retry;
      }
    }
  }

  /**
   * Deletes one endpoint, `If-Match` as in updateEndpoint; one already gone (or whose profile is) is fine
   * (undefined). Given the endpoint's ETag (`prior.etag`) it is one request.
   */
  async deleteEndpoint(profile: string, name: string, opts: { prior?: PriorEndpoint } = {}): Promise<EndpointDeleteResult | undefined> {
    let ifMatch = await this.endpointPrecondition(profile, name, opts.prior);
    if (ifMatch === undefined) return undefined;
    for (let retried = false; ; retried = true) {
      try {
        return await this.client.deleteEndpoint(profile, name, { stack: this.stack, ifMatch });
      } catch (err) {
        if (apiError(err, 404)) return undefined;
        if (!apiError(err, 412)) return this.ownership(err, profile);
        const c = await this.endpointConflict(profile, name, opts.prior, err, true, retried);
        if (c === 'gone') return undefined;
        if (c instanceof ResourceError) throw c;
        ifMatch = c.retry;
      }
    }
  }
}
