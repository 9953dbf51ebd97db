/**
 * `tmkit/cdktf`: CDKTF bindings for the tmkit Terraform provider (shaped as `cdktf get` generates them) and
 * the bridge that turns the tmkit constructs into tmkit_* resources inside a TerraformStack. Needs the
 * optional peer dependency `cdktf` (0.21).
 *
 *   const stack = new TerraformStack(app, 'traffic');
 *   new TmkitProvider(stack, 'tmkit', { stack: 'web' });       // also emits the constructs below as resources
 *   const eu = new Profile(stack, 'app-eu', { trafficRoutingMethod: 'Weighted' });
 *   eu.addExternalEndpoint('eu-1', { target: '192.0.2.11', weight: 3 });
 */
import { Aspects, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { markDocumentScope } from '../constructs/tree';
import { provider } from './bindings';
import { TmkitResourcesAspect } from './emit';

export * from './bindings';
export { emitTmkitResources, TmkitResourcesAspect } from './emit';

/**
 * provider "tmkit", which also makes the tmkit constructs of its stack tmkit_* resources (and the stack one
 * tmkit document for their validation, owned by `stack`).
 */
export class TmkitProvider extends provider.TmkitProvider {
  constructor(scope: Construct, id: string, config: provider.TmkitProviderConfig = {}) {
    super(scope, id, config);
    const stack = TerraformStack.of(this);
    markDocumentScope(stack, { stack: config.stack ?? 'terraform' });
    Aspects.of(stack).add(new TmkitResourcesAspect(stack));
  }
}
