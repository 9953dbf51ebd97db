/**
 * `tmkit/cdktn`: the tmkit bindings for CDK Terrain (the optional peer dependency `cdktn` 0.24, the maintained
 * continuation of CDKTF; `tmkit/cdktf` is the same over cdktf 0.21 for those who have not moved). The bindings
 * are shaped as `cdktn get` generates them, and the bridge turns the tmkit constructs into tmkit_* resources
 * inside a TerraformStack:
 *
 *   const stack = new TerraformStack(app, 'traffic');
 *   new TmkitProvider(stack, 'tmkit', { stack: 'web' });       // also emits the constructs below as resources
 *   const eu = new Profile(stack, 'app-eu', { trafficRoutingMethod: 'Weighted' });
 *   eu.addExternalEndpoint('eu-1', { target: '192.0.2.11', weight: 3 });
 */
import * as cdktn from 'cdktn';
import { tmkitCdk } from '../cdk';

export type * from '../cdk';

const bound = tmkitCdk(cdktn);
export const { TmkitProvider, emitTmkitResources, TmkitResourcesAspect } = bound;
export const { provider, profile, externalEndpoint, azureEndpoint, nestedEndpoint, dataTmkitProfileStatus } = bound;
