/** The SDK side of the test-only Thing (what codegen would emit from its schema), for inline programs. */
import * as pulumi from '@pulumi/pulumi';
import { THING } from './provider';

export interface ThingArgs {
  name?: pulumi.Input<string>;
  zone: pulumi.Input<string>;
  size?: pulumi.Input<number>;
  token?: pulumi.Input<string>;
  nested: pulumi.Input<{ host: pulumi.Input<string>; port: pulumi.Input<number>; tags?: pulumi.Input<pulumi.Input<string>[]> }>;
}

export class Thing extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  declare readonly zone: pulumi.Output<string>;
  declare readonly size: pulumi.Output<number>;
  declare readonly token: pulumi.Output<string | undefined>;
  declare readonly nested: pulumi.Output<{ host: string; port: number; tags?: string[] }>;
  declare readonly fqdn: pulumi.Output<string>;
  declare readonly revision: pulumi.Output<number>;
  declare readonly owner: pulumi.Output<string>;

  constructor(name: string, args: ThingArgs, opts?: pulumi.CustomResourceOptions) {
    super(THING, name, { ...args, fqdn: undefined, revision: undefined, owner: undefined }, opts);
  }
}
