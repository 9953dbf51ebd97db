/**
 * terraform-provider-tmkit (registry.terraform.io/tmkit/tmkit): the provider process Terraform starts.
 * The provider block is design §8's (server, token, stack with TMKIT_SERVER / TMKIT_TOKEN fallbacks);
 * the tmkit_* resources plug into `resources` / `dataSources` as ./provider handlers over src/client's
 * deploy module (not here yet).
 */
import { provider } from './provider';
import type { Schema } from './schema';

export interface TmkitProviderConfig {
  server: string | null;
  token: string | null;
  stack: string;
}

export const providerSchema: Schema = {
  block: {
    attributes: {
      server: { type: 'string', optional: true, description: 'tmkit management API URL, e.g. http://127.0.0.1:5380 (default: env TMKIT_SERVER)' },
      token: { type: 'string', optional: true, sensitive: true, description: 'API token (default: env TMKIT_TOKEN)' },
      stack: { type: 'string', optional: true, description: 'the stack that owns the profiles this configuration manages (default "terraform")' },
    },
  },
};

export const tmkitProvider = provider<TmkitProviderConfig>({
  schema: providerSchema,
  configure(config) {
    return {
      server: (config.server as string | null) ?? process.env.TMKIT_SERVER ?? null,
      token: (config.token as string | null) ?? process.env.TMKIT_TOKEN ?? null,
      stack: (config.stack as string | null) ?? 'terraform',
    };
  },
  resources: {},
  dataSources: {},
});
