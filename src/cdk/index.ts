/**
 * The tmkit bindings over a CDK for Terraform library, shared by `tmkit/cdktf` (cdktf 0.21) and `tmkit/cdktn`
 * (CDK Terrain 0.24): each entry is `tmkitCdk(theLibrary)`. Nothing here imports either library.
 */
import type { Construct } from 'constructs';
import { markDocumentScope } from '../constructs/tree';
import { type Bindings, makeBindings, type TmkitProviderClass, type TmkitProviderConfig } from './bindings';
import { type Emitter, makeEmitter } from './emit';
import type { CdkLibrary } from './library';

export type * from './bindings';
export type { Emitter } from './emit';
export type { CdkLibrary, MetaArguments } from './library';

export interface TmkitCdk<L extends CdkLibrary> extends Bindings<L>, Emitter {
  /**
   * provider "tmkit", which also makes the tmkit constructs of its stack tmkit_* resources (and the stack one
   * tmkit document for their validation, owned by `stack`).
   */
  readonly TmkitProvider: TmkitProviderClass<L>;
}

/** The bindings, the constructs → tmkit_* bridge and TmkitProvider over `lib` (the cdktf or cdktn module). */
export function tmkitCdk<L extends CdkLibrary>(lib: L): TmkitCdk<L> {
  const bindings = makeBindings(lib);
  const emitter = makeEmitter(lib, bindings);
  const Base = bindings.provider.TmkitProvider as TmkitProviderClass<CdkLibrary>;
  class TmkitProvider extends Base {
    constructor(scope: Construct, id: string, config: TmkitProviderConfig = {}) {
      super(scope, id, config);
      const stack = lib.TerraformStack.of(this);
      markDocumentScope(stack, { stack: config.stack ?? 'terraform' });
      lib.Aspects.of(stack).add(new emitter.TmkitResourcesAspect(stack));
    }
  }
  return { ...bindings, ...emitter, TmkitProvider: TmkitProvider as unknown as TmkitProviderClass<L> };
}
