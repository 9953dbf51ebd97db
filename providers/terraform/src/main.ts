/**
 * terraform-provider-tmkit (registry.terraform.io/tmkit/tmkit): the provider process Terraform starts.
 * The provider block is docs/ARCHITECTURE.md "Providers" (server, token, stack with TMKIT_SERVER / TMKIT_TOKEN fallbacks); the
 * resources and the data source are ./tmkit/resources, handlers over src/client.
 */
import { TmkitClient } from '../../../src/client/client';
import { provider } from './provider';
import type { Schema } from './schema';
import { DiagnosticsError, error, path, type Diagnostic } from './tfprotov6';
import { DEFAULT_TERRAFORM_STACK } from './tmkit/convert';
import { tmkitFunctions } from './tmkit/functions';
import {
  azureEndpointResource,
  externalEndpointResource,
  nestedEndpointResource,
  profileResource,
  profileStatusDataSource,
  TmkitContext,
} from './tmkit/resources';

export { DEFAULT_TERRAFORM_STACK };

export interface TmkitProviderConfig {
  server: string | null;
  token: string | null;
  stack: string;
}

const STACK = /^[A-Za-z0-9._-]{1,64}$/;

export const providerSchema: Schema = {
  block: {
    attributes: {
      server: {
        type: 'string',
        optional: true,
        description: 'tmkit management API URL, e.g. http://127.0.0.1:5380 (default: env TMKIT_SERVER)',
      },
      token: { type: 'string', optional: true, sensitive: true, description: 'API token (default: env TMKIT_TOKEN)' },
      stack: {
        type: 'string',
        optional: true,
        description: 'the stack that owns the profiles this configuration manages (default "terraform")',
      },
    },
  },
};

/** The provider configuration with its environment fallbacks. */
export function providerConfig(config: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): TmkitProviderConfig {
  return {
    server: (typeof config.server === 'string' ? config.server : null) ?? env.TMKIT_SERVER ?? null,
    token: (typeof config.token === 'string' ? config.token : null) ?? env.TMKIT_TOKEN ?? null,
    stack: (typeof config.stack === 'string' ? config.stack : null) ?? DEFAULT_TERRAFORM_STACK,
  };
}

/** The error for a provider without a token: what to set, and where `tmkit serve` wrote the token. */
export function missingToken(client: TmkitClient): Diagnostic {
  const src = client.tokenSource;
  const where =
    src.file !== undefined
      ? `\`tmkit serve\` writes its token to <state dir>/token; for this loopback server the provider ` +
        `looked for ${src.file}, which does not exist (TMKIT_STATE_DIR names another state dir).`
      : `The token file of \`tmkit serve\` (<state dir>/token) is read only for a server on loopback; ${client.server} is not, so give the token.`;
  return error(
    `no API token for the tmkit server at ${client.server}`,
    `Set token in the provider "tmkit" block (e.g. token = var.tmkit_token), or TMKIT_TOKEN (e.g. export TMKIT_TOKEN=$(cat .tmkit/token)). ${where}`,
    path('token'),
  );
}

export const tmkitProvider = provider<TmkitContext>({
  schema: providerSchema,
  validateConfig(config) {
    const out: Diagnostic[] = [];
    if (typeof config.server === 'string' && !/^https?:\/\/[^/\s]+/.test(config.server)) {
      out.push(
        error(
          `server "${config.server}" is not an http(s) URL`,
          'Give the tmkit API address, e.g. server = "http://127.0.0.1:5380".',
          path('server'),
        ),
      );
    }
    if (typeof config.stack === 'string' && !STACK.test(config.stack)) {
      out.push(
        error(
          `stack "${config.stack}" is not a stack name`,
          'Use 1–64 letters, digits, ".", "_" or "-", e.g. stack = "terraform".',
          path('stack'),
        ),
      );
    }
    if (config.token === '')
      out.push(
        error(
          'token is empty',
          'Give the API token (tmkit serve prints where it is), or leave token out to use TMKIT_TOKEN.',
          path('token'),
        ),
      );
    return out;
  },
  configure(config) {
    const c = providerConfig(config);
    const client = new TmkitClient({
      ...(c.server !== null ? { server: c.server } : {}),
      ...(c.token !== null ? { token: c.token } : {}),
      serverSetting: 'server in the provider "tmkit" block, or TMKIT_SERVER',
    });
    // No token: one error on the provider block, before any request (else every resource fails with HTTP 401).
    if (!client.hasToken) throw new DiagnosticsError(missingToken(client));
    return new TmkitContext(client, c.stack);
  },
  resources: {
    tmkit_profile: profileResource,
    tmkit_external_endpoint: externalEndpointResource,
    tmkit_azure_endpoint: azureEndpointResource,
    tmkit_nested_endpoint: nestedEndpointResource,
  },
  dataSources: { tmkit_profile_status: profileStatusDataSource },
  // provider::tmkit::resolve and ::worst_case_failover: pure, offline (no server, no provider configuration).
  functions: tmkitFunctions,
});
