/**
 * The tmkit Pulumi package schema (https://www.pulumi.com/docs/iac/extending-pulumi/schema/): package name,
 * version, and the provider config. Resource types (tmkit:index:Profile, tmkit:index:Endpoint) are added by
 * the resources built on this layer.
 */
import { DEFAULT_STACK } from './config';

export interface PackageSchema {
  name: string;
  version: string;
  displayName?: string;
  description?: string;
  homepage?: string;
  license?: string;
  repository?: string;
  config: { variables: Record<string, unknown>; defaults?: string[] };
  provider: { description?: string; inputProperties: Record<string, unknown>; properties?: Record<string, unknown>; requiredInputs?: string[] };
  resources: Record<string, unknown>;
  functions: Record<string, unknown>;
  types: Record<string, unknown>;
  language?: Record<string, unknown>;
}

const CONFIG_PROPERTIES = {
  server: {
    type: 'string',
    description: 'Base URL of the tmkit management API, e.g. http://127.0.0.1:5380. Falls back to TMKIT_SERVER.',
    defaultInfo: { environment: ['TMKIT_SERVER'] },
  },
  token: {
    type: 'string',
    secret: true,
    description: 'Bearer token of the management API. Falls back to TMKIT_TOKEN.',
    defaultInfo: { environment: ['TMKIT_TOKEN'] },
  },
  stack: {
    type: 'string',
    default: DEFAULT_STACK,
    description: 'The tmkit stack that owns what this provider writes (design: ownership); other stacks are never touched.',
  },
};

export function tmkitSchema(version: string): PackageSchema {
  return {
    name: 'tmkit',
    version,
    displayName: 'tmkit',
    description: 'Azure-Traffic-Manager-style DNS traffic management, self-hosted: profiles and endpoints on a tmkit runtime.',
    license: 'Apache-2.0',
    config: { variables: CONFIG_PROPERTIES },
    provider: {
      description: 'The tmkit provider: where the management API is and which tmkit stack owns the writes.',
      inputProperties: CONFIG_PROPERTIES,
      properties: CONFIG_PROPERTIES,
    },
    resources: {},
    functions: {},
    types: {},
    language: { nodejs: { packageName: 'tmkit' } },
  };
}
