/**
 * The probes' default User-Agent (docs/health.md "User-Agent"): HTTP and HTTPS probes send Azure's
 * `Azure Traffic Manager Endpoint Monitor` unless `customHeaders` name a User-Agent (any case), which then
 * replaces it: one User-Agent header on the wire, never two. Asserted on real loopback servers, by the probe
 * itself and through the runtime from a profile's `monitorConfig.customHeaders` and an endpoint's.
 */
import type { TmkitClient } from '../../../src/client';
import { DEFAULT_PROBE_USER_AGENT, probe } from '../../../src/runtime/monitor/probe';
import { profileInput } from '../api/fixtures';
import { engineHarness } from '../engine/harness';
import { waitFor } from '../../support/wait';
import { httpServer, httpsServer, selfSignedCert, target, type SeenRequest } from './servers';

/** Every User-Agent header the request carried on the wire (raw names, any case). */
function userAgents(r: SeenRequest): string[] {
  const out: string[] = [];
  for (let i = 0; i < r.raw.length; i += 2) if (r.raw[i]!.toLowerCase() === 'user-agent') out.push(r.raw[i + 1]!);
  return out;
}

test("the default is Azure's probe string, byte for byte", () => {
  expect(DEFAULT_PROBE_USER_AGENT).toBe('Azure Traffic Manager Endpoint Monitor');
});

describe('the probe, asserted on the server', () => {
  test('HTTP without a custom User-Agent: the default, once', async () => {
    const srv = await httpServer('127.0.0.2', (_r, res) => res.writeHead(200).end());
    try {
      expect(await probe(target({ target: '127.0.0.2', port: srv.port }))).toMatchObject({ ok: true });
      expect(userAgents(srv.requests[0]!)).toEqual([DEFAULT_PROBE_USER_AGENT]);
    } finally {
      await srv.close();
    }
  });

  test('HTTPS without a custom User-Agent: the default, once', async () => {
    const srv = await httpsServer('127.0.0.2', selfSignedCert('127.0.0.2'), (_r, res) => res.writeHead(200).end());
    try {
      expect(await probe(target({ target: '127.0.0.2', port: srv.port, protocol: 'HTTPS' }))).toMatchObject({ ok: true });
      expect(userAgents(srv.requests[0]!)).toEqual([DEFAULT_PROBE_USER_AGENT]);
    } finally {
      await srv.close();
    }
  });

  test.each(['User-Agent', 'user-agent', 'USER-AGENT'])(
    'a custom %s header replaces the default (one header on the wire)',
    async (name) => {
      const srv = await httpServer('127.0.0.2', (_r, res) => res.writeHead(200).end());
      try {
        await probe(target({ target: '127.0.0.2', port: srv.port, headers: [{ name, value: 'contoso-monitor/2.1' }] }));
        expect(userAgents(srv.requests[0]!)).toEqual(['contoso-monitor/2.1']);
      } finally {
        await srv.close();
      }
    },
  );
});

describe('through the runtime: monitorConfig.customHeaders and endpoint customHeaders', () => {
  const { start, closers } = engineHarness('tmkit-user-agent-');

  /** A recording HTTP server on `host`; resolves to its port and the requests it saw. */
  async function endpointServer(host: string): Promise<{ port: number; requests: SeenRequest[] }> {
    const srv = await httpServer(host, (_r, res) => res.writeHead(200).end('ok'));
    closers.push(() => srv.close());
    return srv;
  }

  /** A one-endpoint HTTP profile probing `host:port/health`, with a User-Agent in the profile's and/or the endpoint's customHeaders. */
  async function put(
    client: TmkitClient,
    name: string,
    host: string,
    port: number,
    headers: { profile?: string; endpoint?: string },
  ): Promise<void> {
    await client.putProfile(
      profileInput(name, {
        monitorConfig: {
          protocol: 'HTTP',
          port,
          path: '/health',
          intervalInSeconds: 10,
          timeoutInSeconds: 5,
          toleratedNumberOfFailures: 0,
          ...(headers.profile ? { customHeaders: [{ name: 'User-Agent', value: headers.profile }] } : {}),
        },
        endpoints: [
          {
            name: 'web',
            type: 'externalEndpoints',
            target: host,
            ...(headers.endpoint ? { customHeaders: [{ name: 'user-agent', value: headers.endpoint }] } : {}),
          },
        ],
      }),
    );
  }

  test('default without headers; the profile header replaces it; the endpoint header replaces the profile one', async () => {
    const { client } = await start();
    // one server per profile, each on its own loopback address and port 0 (monitorConfig.port is per profile)
    const plain = await endpointServer('127.0.0.71');
    const byProfile = await endpointServer('127.0.0.72');
    const byEndpoint = await endpointServer('127.0.0.73');
    await put(client, 'plain', '127.0.0.71', plain.port, {});
    await put(client, 'byprofile', '127.0.0.72', byProfile.port, { profile: 'contoso-waf-allowed/1.0' });
    await put(client, 'byendpoint', '127.0.0.73', byEndpoint.port, { profile: 'contoso-waf-allowed/1.0', endpoint: 'edge-probe/3' });

    const first = (s: { requests: SeenRequest[] }, what: string) =>
      waitFor(() => s.requests.find((r) => r.url === '/health'), { what: `a probe of ${what}`, timeoutMs: 15_000 });
    expect(userAgents(await first(plain, 'plain'))).toEqual([DEFAULT_PROBE_USER_AGENT]);
    expect(userAgents(await first(byProfile, 'byprofile'))).toEqual(['contoso-waf-allowed/1.0']);
    expect(userAgents(await first(byEndpoint, 'byendpoint'))).toEqual(['edge-probe/3']);
    for (const name of ['plain', 'byprofile', 'byendpoint']) {
      await waitFor(async () => (await client.status(name)).endpoints[0]!.endpointMonitorStatus === 'Online' || undefined, {
        what: `${name} Online`,
        timeoutMs: 15_000,
      });
    }
  });
});
