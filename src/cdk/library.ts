/**
 * What the tmkit bindings use of a CDK for Terraform library: `cdktf` (0.21, archived by HashiCorp) or `cdktn`
 * (CDK Terrain 0.24, its maintained continuation with the same API). The bindings are made from whichever
 * module is passed in (`tmkitCdk(lib)` in ./index), so this file imports neither.
 */
import type { Construct, IConstruct } from 'constructs';

/** `TerraformResourceConfig` / `TerraformProviderConfig` as the bindings fill them. */
export interface ElementConfig {
  readonly terraformResourceType: string;
  readonly terraformGeneratorMetadata?: { readonly providerName: string; readonly providerVersion?: string };
  readonly terraformProviderSource?: string;
}

/** The public side of TerraformResource / TerraformDataSource the bindings call. */
export interface ResourceBase extends Construct {
  getStringAttribute(terraformAttribute: string): string;
  getNumberAttribute(terraformAttribute: string): number;
  getBooleanAttribute(terraformAttribute: string): unknown;
  overrideLogicalId(newLogicalId: string): void;
}

export interface ProviderBase extends Construct {
  alias?: string | undefined;
}

export interface CdkLibrary {
  readonly TerraformResource: abstract new (scope: Construct, id: string, config: ElementConfig) => ResourceBase;
  readonly TerraformDataSource: abstract new (scope: Construct, id: string, config: ElementConfig) => ResourceBase;
  readonly TerraformProvider: abstract new (scope: Construct, id: string, config: ElementConfig) => ProviderBase;
  readonly TerraformStack: { of(construct: IConstruct): Construct };
  readonly Aspects: { of(scope: IConstruct): { add(aspect: { visit(node: IConstruct): void }): void } };
  readonly Annotations: { of(scope: IConstruct): { addError(message: string): void } };
}

/** The library's `TerraformMetaArguments` (dependsOn, count, provider, lifecycle, forEach, …), from its resource config. */
export type MetaArguments<L extends CdkLibrary> = Omit<
  ConstructorParameters<L['TerraformResource']>[2],
  'terraformResourceType' | 'terraformGeneratorMetadata'
>;
