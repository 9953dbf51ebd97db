/**
 * The tmkit resources and data source as ./provider handlers: thin, over src/client (StackResources for
 * the writes, core's validator for the checks), with what this process knows of the runtime in ./context.
 * What each handler adds to the router:
 *
 * - validate: the shared per-resource rules of core/validate on what is known (unknown values are skipped).
 * - plan: azurerm's defaults planned exactly (so apply stores what the plan shows); dns_config.relative_name
 *   forces a replace; and the cross-object rules that one resource cannot see alone, checked against the
 *   runtime's current profiles: unique priority, overlapping subnets, one endpoint per geo region,
 *   MinChildEndpoints, relativeName taken, a name that exists already (import it) or belongs to another
 *   stack. Rule warnings (WEIGHT_IGNORED, …) are warnings at their attribute. The server checks everything
 *   again on apply. An endpoint is checked with the endpoints the profile's index pairs it with, not the
 *   whole profile (./context). Refresh reads come from the process's listing (./context).
 * - create/update/delete: one profile's settings (PATCH, endpoints untouched) or one endpoint (PUT/DELETE with
 *   its ETag, kept in Terraform's private state), with the provider's stack; state built from what the runtime
 *   stored. A profile with inline `endpoint` blocks owns its endpoints: one PUT of the whole profile (If-Match
 *   its ETag), and it cannot also have endpoint resources. A create whose object exists already with the
 *   planned content, in this stack, adopts it (src/client/resources.ts), so a create whose answer was lost
 *   converges; other content is RESOURCE_EXISTS at plan time.
 *
 * tmkit_profile is ./profile, the endpoint resources ./endpoints (what both use, ./common); the data source is here.
 */
import { TmkitApiError } from '../../../../src/client/errors';
import type { ProfileStatusReport } from '../../../../src/core/api';
import { profileId, TERRAFORM_IDS } from '../../../../src/client/ids';
import type { ValueObject } from '../cty';
import type { DataSource } from '../provider';
import { DiagnosticsError, error } from '../tfprotov6';
import { attr } from './common';
import type { TmkitContext } from './context';
import { profileStatusSchema } from './schemas';

export { TmkitContext, TERRAFORM_REFRESH } from './context';
export { profileResource } from './profile';
export { azureEndpointResource, externalEndpointResource, nestedEndpointResource } from './endpoints';

// -------------------------------------------------------------------------------------- data source

export const profileStatusDataSource: DataSource<TmkitContext> = {
  schema: profileStatusSchema,
  async read(config, ctx): Promise<ValueObject> {
    const name = String(config.name);
    let s: ProfileStatusReport;
    try {
      s = await ctx.client.status(name);
    } catch (err) {
      if (err instanceof TmkitApiError && err.status === 404)
        throw new DiagnosticsError(
          error(
            `profile "${name}" does not exist on the tmkit runtime at ${ctx.client.server}`,
            'Check the name (profile names are case-insensitive).',
            attr('name'),
          ),
        );
      throw err;
    }
    return {
      name,
      id: profileId(s.stack, s.name, TERRAFORM_IDS),
      stack: s.stack,
      fqdn: s.fqdn,
      profile_status: s.profileStatus,
      profile_monitor_status: s.profileMonitorStatus,
      all_degraded_fallback: s.allDegradedFallback,
      endpoints: s.endpoints.map((e) => ({
        name: e.name,
        type: e.type,
        target: e.target ?? null,
        target_resource_id: e.targetResourceId ?? null,
        endpoint_status: e.endpointStatus,
        endpoint_monitor_status: e.endpointMonitorStatus,
        reason: e.reason,
      })),
    };
  },
};
