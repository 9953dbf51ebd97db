/**
 * The Pulumi provider's gRPC server on loopback, configured against a real API over SQLite (the API test
 * harness, whose status report gives each profile the fqdn `<relativeName>.tm.test`), and a direct client of
 * that API: set up before the file's tests and stopped after them.
 */
import * as provproto from '@pulumi/pulumi/proto/provider_pb';
import { TmkitClient } from '../../../src/client';
import { serve, type RunningServer } from '../../../providers/pulumi/src/server';
import { tmkitProvider } from '../../../providers/pulumi/src/tmkit';
import { connect, struct } from './client';
import { startApi, TOKEN, type Harness } from '../../runtime/api/harness';

export interface ProviderOnApi {
  h: Harness;
  rpc: ReturnType<typeof connect>;
  direct: TmkitClient;
}

/** Registers the file's beforeAll/afterAll; the returned object's fields are set once beforeAll has run. */
export function providerOnApi(log: (line: string) => void = () => undefined): ProviderOnApi {
  const api = {} as ProviderOnApi;
  let running: RunningServer;
  beforeAll(async () => {
    // The monitor's status report is what tells the provider the zone (fqdn = relativeName.zone).
    api.h = await startApi({
      reports: {
        status: (p) => ({
          name: p.profile.name,
          stack: p.stack,
          etag: p.etag,
          revision: 0,
          fqdn: `${p.profile.dnsConfig.relativeName}.tm.test`,
          profileStatus: p.profile.profileStatus,
          profileMonitorStatus: 'Online',
          allDegradedFallback: false,
          endpoints: [],
          transitions: [],
        }),
      },
    });
    api.direct = new TmkitClient({ server: api.h.base, token: TOKEN, env: {} });
    running = await serve(tmkitProvider({}), { writePort: () => undefined, log });
    api.rpc = connect(running.port);
    await api.rpc.call('configure', new provproto.ConfigureRequest().setArgs(struct({ server: api.h.base, token: TOKEN })));
  });
  afterAll(async () => {
    api.rpc.close();
    await running.stop();
    await api.direct.close();
    await api.h.close();
  });
  return api;
}
