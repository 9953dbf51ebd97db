/**
 * The tmkit provider: package, schema, config, and the resource types tmkit:index:Profile and
 * tmkit:index:Endpoint (tmkit/resources.ts). The resource implementations, the validator and the HTTP client
 * are loaded on the first resource call, not at start: the engine starts a plugin for every command and
 * waits for its port line, and `pulumi preview` of an unchanged stack may never call a resource at all.
 */
import { packageVersion } from '../../../src/package';
import type { TmkitClient } from '../../../src/client/client';
import { checkConfig, resolveConfig, type TmkitConfig } from './config';
import { diffProperties } from './diff';
import type { ProviderImpl, ResourceImpl } from './provider';
import { ProviderError } from './provider';
import { tmkitSchema } from './schema';
import type { TmkitContext } from './tmkit/resources';

export const PROFILE = 'tmkit:index:Profile';
export const ENDPOINT = 'tmkit:index:Endpoint';

export interface TmkitProvider extends ProviderImpl {
  /** The resolved config; undefined before Configure. */
  readonly config: TmkitConfig | undefined;
}

type Impl = Omit<ResourceImpl, 'computed' | 'secretOutputs' | 'replaceOnChanges'>;

/** A ResourceImpl whose implementation is built on its first call. */
function lazy(build: () => Impl): ResourceImpl {
  let impl: Impl | undefined;
  const get = (): Impl => (impl ??= build());
  return {
    check: (req) => get().check(req),
    diff: (req) => get().diff!(req),
    preview: (req) => get().preview!(req),
    previewId: (req) => get().previewId?.(req),
    previewWarnings: async (req) => (await get().previewWarnings?.(req)) ?? [],
    create: (req) => get().create(req),
    read: (req) => get().read(req),
    update: (req) => get().update(req),
    delete: (req) => get().delete(req),
  };
}

/**
 * The provider. `resources` replaces the resource types (tests); `clientFor` builds the management-API
 * client from the resolved config (default: TmkitClient).
 */
export function tmkitProvider(
  env: Readonly<Record<string, string | undefined>> = process.env,
  resources?: Record<string, ResourceImpl>,
  clientFor?: (config: TmkitConfig) => TmkitClient,
): TmkitProvider {
  let config: TmkitConfig | undefined;
  let client: TmkitClient | undefined;
  const configured = (): TmkitConfig => {
    if (!config)
      throw new ProviderError(
        'the tmkit provider was not configured (the engine calls Configure before any resource operation)',
        'FAILED_PRECONDITION',
      );
    return config;
  };
  const ctx: TmkitContext = {
    stack: () => configured().stack,
    client: async () => {
      if (client) return client;
      const c = configured();
      if (clientFor) return (client = clientFor(c));
      // Loaded here, not at start (undici is most of the client's load time).
      const { TmkitClient: Client } = await import('../../../src/client/client');
      return (client = new Client({
        ...(c.server !== undefined ? { server: c.server } : {}),
        ...(c.token !== undefined ? { token: c.token } : {}),
        env: { ...env } as NodeJS.ProcessEnv,
        serverSetting: 'tmkit:server (`pulumi config set tmkit:server …`) or TMKIT_SERVER',
      }));
    },
  };
  /* eslint-disable @typescript-eslint/no-require-imports */
  const impls = (): typeof import('./tmkit/resources') => require('./tmkit/resources') as typeof import('./tmkit/resources');
  return {
    name: 'tmkit',
    version: packageVersion(),
    schema: () => JSON.stringify(tmkitSchema(packageVersion())),
    checkConfig: (req) => checkConfig(req.news),
    // A different server, token or stack is an update of the provider, never a replacement of every resource.
    diffConfig: (req) => diffProperties(req.oldInputs, req.news),
    configure: (c) => {
      config = resolveConfig(c, env);
      client = undefined;
    },
    get config() {
      return config;
    },
    resources: resources ?? {
      [PROFILE]: lazy(() => impls().profileResource(ctx)),
      [ENDPOINT]: lazy(() => impls().endpointResource(ctx)),
    },
    cancel: async () => {
      await client?.close();
    },
  };
}
