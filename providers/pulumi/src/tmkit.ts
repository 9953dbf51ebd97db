/**
 * The tmkit provider as served today: package, schema and config. Its resource types (Profile, Endpoint)
 * plug in here on top of the deploy module; until then any resource request says the type does not exist.
 */
import { packageVersion } from '../../../src/package';
import { checkConfig, resolveConfig, type TmkitConfig } from './config';
import { diffProperties } from './diff';
import type { ProviderImpl, ResourceImpl } from './provider';
import { tmkitSchema } from './schema';

export interface TmkitProvider extends ProviderImpl {
  /** The resolved config; undefined before Configure. */
  readonly config: TmkitConfig | undefined;
}

export function tmkitProvider(env: Readonly<Record<string, string | undefined>> = process.env, resources: Record<string, ResourceImpl> = {}): TmkitProvider {
  let config: TmkitConfig | undefined;
  return {
    name: 'tmkit',
    version: packageVersion(),
    schema: () => JSON.stringify(tmkitSchema(packageVersion())),
    checkConfig: (req) => checkConfig(req.news),
    // A different server, token or stack is an update of the provider, never a replacement of every resource.
    diffConfig: (req) => diffProperties(req.oldInputs, req.news),
    configure: (c) => {
      config = resolveConfig(c, env);
    },
    get config() {
      return config;
    },
    resources,
  };
}
