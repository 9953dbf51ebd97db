/**
 * Health beyond a status code (docs/health.md "Certificates", "Slow is Degraded"), through the real runtime:
 * HTTPS endpoints serving a self-signed, an expired and a wrong-host certificate made with openssl are
 * Degraded with the right reason when certificateValidation is Enabled, and Online when it is Disabled
 * (Azure's behaviour); a certificate about to expire is a warning (status, metric) without failing the probe;
 * an endpoint slower than degradedLatencyMs flips to Degraded at the threshold and back when it is fast again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EndpointStatusReport, TmkitClient } from '../../../src/client';
import type { MonitorConfigInput } from '../../../src/core/model/types';
import { profileInput } from '../api/fixtures';
import { DAY, makeCa, signedCert } from './certs';
import { httpsServer, selfSignedCert, type Cert } from './servers';
import { engineHarness } from '../engine/harness';
import { waitFor } from '../../support/wait';

const { start: run, closers } = engineHarness('tmkit-health-ext-');
const start = (intervalMs = 200) => run({ monitor: { intervalMs: () => intervalMs, timeoutMs: () => 2000 } });

async function https(host: string, cert: Cert): Promise<number> {
  const srv = await httpsServer(host, cert, (_req, res) => res.writeHead(200).end('ok'));
  closers.push(() => srv.close());
  return srv.port;
}

/** One single-endpoint HTTPS profile per case, probed every 200 ms with tolerated 0. */
async function decided(
  client: TmkitClient,
  name: string,
  port: number,
  target: string,
  monitor: MonitorConfigInput,
  host?: string,
): Promise<EndpointStatusReport> {
  await client.putProfile(
    profileInput(name, {
      monitorConfig: {
        protocol: 'HTTPS',
        port,
        path: '/',
        intervalInSeconds: 10,
        timeoutInSeconds: 5,
        toleratedNumberOfFailures: 0,
        ...monitor,
      },
      endpoints: [{ name: 'web', type: 'externalEndpoints', target, ...(host ? { customHeaders: [{ name: 'Host', value: host }] } : {}) }],
    }),
  );
  return waitFor(
    async () => {
      const e = (await client.status(name)).endpoints[0]!;
      return e.lastProbe !== undefined && e.endpointMonitorStatus !== 'CheckingEndpoint' ? e : undefined;
    },
    { what: `${name} decided`, timeoutMs: 15_000 },
  );
}

describe('certificate validation (openssl-made certificates, real HTTPS servers)', () => {
  const ca = makeCa();
  const now = Date.now();
  const certs = {
    good: signedCert(ca, ['127.0.0.60'], now - DAY, now + 30 * DAY),
    soon: signedCert(ca, ['127.0.0.61'], now - DAY, now + 5 * DAY + 3_600_000),
    expired: signedCert(ca, ['127.0.0.62'], now - 30 * DAY, now - 3 * DAY - 3_600_000),
    wrongHost: signedCert(ca, ['a.example'], now - DAY, now + 30 * DAY),
    selfSigned: selfSignedCert('127.0.0.64'),
  };

  test('Enabled: self-signed, expired and wrong-host are Degraded with their reason; a valid one is Online; Disabled: all Online', async () => {
    const { client } = await start();
    const ports = {
      good: await https('127.0.0.60', certs.good),
      soon: await https('127.0.0.61', certs.soon),
      expired: await https('127.0.0.62', certs.expired),
      wrongHost: await https('127.0.0.63', certs.wrongHost),
      selfSigned: await https('127.0.0.64', certs.selfSigned),
    };
    const enabled: MonitorConfigInput = { certificateValidation: 'Enabled', caCertificates: ca.cert };
    const results = await Promise.all([
      decided(client, 'good', ports.good, '127.0.0.60', enabled),
      decided(client, 'soon', ports.soon, '127.0.0.61', enabled),
      decided(client, 'expired', ports.expired, '127.0.0.62', enabled),
      decided(client, 'wrong-host', ports.wrongHost, '127.0.0.63', enabled, 'b.example'),
      // no caCertificates: the system CAs, which never signed it
      decided(client, 'self-signed', ports.selfSigned, '127.0.0.64', { certificateValidation: 'Enabled' }),
    ]);
    const seen = Object.fromEntries(
      results.map((e, i) => [['good', 'soon', 'expired', 'wrong-host', 'self-signed'][i]!, [e.endpointMonitorStatus, e.lastProbe?.reason]]),
    );
    expect(seen).toEqual({
      good: ['Online', 'status 200'],
      soon: ['Online', 'status 200'],
      expired: ['Degraded', 'certificate expired 3 days ago'],
      'wrong-host': ['Degraded', 'hostname mismatch: cert for a.example, probed b.example'],
      'self-signed': ['Degraded', 'self-signed'],
    });
    // About to expire: a warning in the status and the metric, the probe still passes.
    const soon = results[1]!;
    expect(soon.warnings).toEqual([expect.stringMatching(/^certificate expires in 5 days \(/)]);
    expect(soon.lastProbe?.certificate).toMatchObject({ expiresInDays: 5, names: ['127.0.0.61'] });
    expect(results[0]!.warnings).toBeUndefined();
    const metrics = await client.metrics();
    const expiry = (profile: string): number =>
      Number(new RegExp(`tmkit_endpoint_certificate_expiry_seconds\\{profile="${profile}",endpoint="web"\\} (\\S+)`).exec(metrics)?.[1]);
    expect(expiry('soon') / 86_400).toBeCloseTo(5.04, 1);
    expect(expiry('expired')).toBeLessThan(-3 * 86_400);

    // Disabled (Azure's behaviour): any certificate is accepted.
    const disabled = await Promise.all([
      decided(client, 'expired-off', ports.expired, '127.0.0.62', { certificateValidation: 'Disabled' }),
      decided(client, 'wrong-host-off', ports.wrongHost, '127.0.0.63', {}, 'b.example'),
      decided(client, 'self-signed-off', ports.selfSigned, '127.0.0.64', {}),
    ]);
    expect(disabled.map((e) => [e.endpointMonitorStatus, e.lastProbe?.reason, e.warnings])).toEqual([
      ['Online', 'status 200', undefined],
      ['Online', 'status 200', undefined],
      ['Online', 'status 200', undefined],
    ]);
  });
});

describe('slow is Degraded', () => {
  test('an endpoint slower than degradedLatencyMs flips to Degraded at the threshold, and back when it is fast again', async () => {
    let delayMs = 0;
    const server: Server = createServer((_req, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), delayMs);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.70', () => r()));
    closers.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const port = (server.address() as AddressInfo).port;
    const { client } = await start(150);
    await client.putProfile(
      profileInput('slow', {
        monitorConfig: {
          protocol: 'HTTP',
          port,
          path: '/',
          intervalInSeconds: 10,
          timeoutInSeconds: 5,
          toleratedNumberOfFailures: 1,
          degradedLatencyMs: 300,
        },
        endpoints: [{ name: 'web', type: 'externalEndpoints', target: '127.0.0.70' }],
      }),
    );
    const online = await waitFor(
      async () => {
        const e = (await client.status('slow')).endpoints[0]!;
        return e.endpointMonitorStatus === 'Online' ? e : undefined;
      },
      { what: 'Online while fast', timeoutMs: 10_000 },
    );
    expect(online.lastProbe!.latencyMs).toBeLessThan(300);

    // Under the threshold (200 ms < 300 ms): still Online, however many probes.
    delayMs = 200;
    await waitFor(async () => ((await client.status('slow')).endpoints[0]!.lastProbe!.latencyMs >= 200 ? true : undefined), {
      what: 'a 200 ms probe',
      timeoutMs: 10_000,
    });
    await new Promise((r) => setTimeout(r, 800));
    expect((await client.status('slow')).endpoints[0]!.endpointMonitorStatus).toBe('Online');

    // Over it: a failure per probe, Degraded after tolerated + 1 = 2 of them, with the reason.
    delayMs = 450;
    const degraded = await waitFor(
      async () => {
        const s = await client.status('slow');
        return s.endpoints[0]!.endpointMonitorStatus === 'Degraded' ? s : undefined;
      },
      { what: 'Degraded when slow', timeoutMs: 10_000 },
    );
    // The endpoint's latency is the probe's wall time less the time this process's event loop was blocked (which
    // this in-process endpoint's 450 ms timer shares): about 450 ms, less any stall of the loop meanwhile.
    expect(degraded.endpoints[0]!.lastProbe).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^slow: \d+ ms > 300 ms$/),
    });
    expect(degraded.transitions[0]).toMatchObject({
      endpoint: 'web',
      from: 'Online',
      to: 'Degraded',
      reason: expect.stringMatching(/^slow: \d+ ms > 300 ms$/),
    });

    delayMs = 0;
    await waitFor(async () => ((await client.status('slow')).endpoints[0]!.endpointMonitorStatus === 'Online' ? true : undefined), {
      what: 'Online when fast again',
      timeoutMs: 10_000,
    });
  });
});
