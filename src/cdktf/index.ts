/**
 * `tmkit/cdktf`: the tmkit bindings for CDKTF (the optional peer dependency `cdktf` 0.21, archived by HashiCorp;
 * `tmkit/cdktn` is the same over CDK Terrain, the maintained path). The bindings are shaped as `cdktf get`
 * generates them, and the bridge turns the tmkit constructs into tmkit_* resources inside a TerraformStack:
 *
 *   const stack = new TerraformStack(app, 'traffic');
 *   new TmkitProvider(stack, 'tmkit', { stack: 'web' });       // also emits the constructs below as resources
 *   const eu = new Profile(stack, 'app-eu', { trafficRoutingMethod: 'Weighted' });
 *   eu.addExternalEndpoint('eu-1', { target: '192.0.2.11', weight: 3 });
 */
import * as cdktf from 'cdktf';
import { tmkitCdk } from '../cdk';

export type * from '../cdk';

const bound = tmkitCdk(cdktf);
export const { TmkitProvider, emitTmkitResources, TmkitResourcesAspect } = bound;
export const { provider, profile, externalEndpoint, azureEndpoint, nestedEndpoint, dataTmkitProfileStatus } = bound;
