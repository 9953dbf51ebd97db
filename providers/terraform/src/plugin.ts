/**
 * The plugin process (go-plugin's server side, as Terraform expects it): magic cookie, protocol
 * negotiation, a TCP listener on 127.0.0.1 inside PLUGIN_MIN_PORT..PLUGIN_MAX_PORT, AutoMTLS when
 * Terraform sends PLUGIN_CLIENT_CERT, and the handshake line as the very first bytes on stdout:
 *
 *   1|6|tcp|127.0.0.1:PORT|grpc|<server certificate DER, base64 standard alphabet without padding>
 *
 * After it nothing else goes to stdout (console output is sent to stderr). Next to tfplugin6.Provider it
 * serves go-plugin's plugin.GRPCController (Shutdown stops serving and exits), plugin.GRPCStdio (an open,
 * silent stream), plugin.GRPCBroker (an open stream; Terraform providers never broker connections) and
 * grpc.health.v1.Health (SERVING for "plugin").
 */
import {
  Server,
  ServerCredentials,
  status,
  type ServerWritableStream,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { writeSync } from 'node:fs';
import { Console } from 'node:console';
import { generateCert } from './cert';
import { serviceDefinition, type Msg } from './proto';
import { checkSchema } from './schema';
import { providerService } from './server';
import type { ProviderServer } from './tfprotov6';

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
/** go-plugin's core protocol version (first field of the handshake line). */
export const CORE_PROTOCOL_VERSION = 1;
/** The plugin protocol this server speaks: Terraform's protocol 6. */
export const PROTOCOL_VERSION = 6;

/** A start-up problem the user can fix: printed on stderr, exit 1. */
export class PluginStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginStartError';
  }
}

/** Checks the magic cookie and negotiates the protocol version; throws PluginStartError. */
export function negotiate(env: NodeJS.ProcessEnv, name: string): number {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    throw new PluginStartError(
      `${name} is a Terraform provider plugin: Terraform starts it, it is not meant to be run by hand.\n` +
        'Use it from a Terraform configuration: run `tmkit terraform install`, export the TF_CLI_CONFIG_FILE it prints, then `terraform init`.',
    );
  }
  const offered = env.PLUGIN_PROTOCOL_VERSIONS;
  if (offered === undefined || offered.trim() === '') return PROTOCOL_VERSION; // a client that does not negotiate gets our only version
  const versions = offered.split(',').map((s) => Number(s.trim()));
  if (!versions.includes(PROTOCOL_VERSION)) {
    throw new PluginStartError(
      `${name} speaks Terraform plugin protocol ${PROTOCOL_VERSION} only, and this Terraform offers ${offered}. ` +
        'Use Terraform 1.0 or later (OpenTofu works too).',
    );
  }
  return PROTOCOL_VERSION;
}

/** The ports to try, from PLUGIN_MIN_PORT/PLUGIN_MAX_PORT (both unset: any free port, i.e. [0]). */
export function portRange(env: NodeJS.ProcessEnv): number[] {
  const parse = (k: string): number | undefined => {
    const v = env[k];
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) > 65535) throw new PluginStartError(`${k}=${JSON.stringify(v)} is not a port number (0-65535)`);
    return Number(v);
  };
  const min = parse('PLUGIN_MIN_PORT') ?? 0;
  const max = parse('PLUGIN_MAX_PORT') ?? 0;
  if (min > max)
    throw new PluginStartError(
      `PLUGIN_MIN_PORT (${min}) is greater than PLUGIN_MAX_PORT (${max}); set a range with MIN ≤ MAX, or unset both`,
    );
  if (max === 0) return [0];
  const ports: number[] = [];
  for (let p = Math.max(min, 1); p <= max; p++) ports.push(p);
  return ports;
}

export interface ServeOptions {
  /** The name in messages (the executable's name). */
  name: string;
  env?: NodeJS.ProcessEnv;
  /** Called to end the process (default process.exit). */
  exit?: (code: number) => void;
  /** The file descriptor for the handshake line (default 1, stdout). */
  handshakeFd?: number;
  /** Send console output and later stdout writes to stderr after the handshake (default true). */
  redirectStdout?: boolean;
}

export interface RunningPlugin {
  port: number;
  handshake: string;
  /** Stops serving (as GRPCController/Shutdown does) without exiting. */
  stop(): Promise<void>;
}

function bind(server: Server, ports: number[], creds: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    const next = (i: number): void => {
      if (i >= ports.length) {
        reject(
          new PluginStartError(
            `could not bind 127.0.0.1 on any port in ${ports[0]}..${ports[ports.length - 1]} ` +
              `(PLUGIN_MIN_PORT..PLUGIN_MAX_PORT); free a port there or widen the range`,
          ),
        );
        return;
      }
      server.bindAsync(`127.0.0.1:${ports[i]}`, creds, (err, port) => (err ? next(i + 1) : resolve(port)));
    };
    next(0);
  });
}

/**
 * Starts the plugin: validates, binds, prints the handshake. Start-up problems are printed on stderr and
 * exit 1 (a Terraform plugin has no other channel before the handshake).
 */
export async function serve(domain: ProviderServer, opts: ServeOptions): Promise<RunningPlugin | undefined> {
  const env = opts.env ?? process.env;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  try {
    const version = negotiate(env, opts.name);
    const schemas = domain.schemas();
    const problems = [
      ...checkSchema(schemas.provider, 'provider'),
      ...(schemas.providerMeta ? checkSchema(schemas.providerMeta, 'provider_meta') : []),
      ...Object.entries(schemas.resources).flatMap(([k, s]) => checkSchema(s, k)),
      ...Object.entries(schemas.dataSources).flatMap(([k, s]) => checkSchema(s, k)),
    ];
    if (problems.length)
      throw new PluginStartError(`${opts.name}: the provider's schema is invalid (a bug in the provider):\n  ${problems.join('\n  ')}`);

    let creds = ServerCredentials.createInsecure();
    let certField = '';
    const clientCert = env.PLUGIN_CLIENT_CERT;
    if (clientCert) {
      if (!clientCert.includes('-----BEGIN CERTIFICATE-----'))
        throw new PluginStartError(
          'PLUGIN_CLIENT_CERT is set but holds no PEM certificate; it is set by Terraform (AutoMTLS), unset it when starting the plugin by other means',
        );
      const cert = generateCert();
      // Trust only Terraform's certificate, and require it (createSsl's root certs replace the default CAs).
      creds = ServerCredentials.createSsl(
        Buffer.from(clientCert),
        [{ private_key: Buffer.from(cert.keyPem), cert_chain: Buffer.from(cert.certPem) }],
        true,
      );
      certField = cert.der.toString('base64').replace(/=+$/, '');
    }

    const server = new Server({ 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 });
    const streams = new Set<{ end(): void }>();
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        streams.clear();
        // Open client connections (Terraform keeps one) would hold a graceful shutdown: give in-flight
        // calls a moment, then close everything.
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }));

    server.addService(
      serviceDefinition('tfplugin6.Provider'),
      providerService(domain, env.TMKIT_TF_PROVIDER_LOG ? { logFile: env.TMKIT_TF_PROVIDER_LOG } : {}),
    );
    server.addService(serviceDefinition('plugin.GRPCController'), {
      Shutdown: (_call: ServerUnaryCall<Msg, Msg>, cb: sendUnaryData<Msg>) => {
        cb(null, {});
        setImmediate(() => void stop().then(() => exit(0)));
      },
    });
    server.addService(serviceDefinition('plugin.GRPCStdio'), {
      StreamStdio: (call: ServerWritableStream<Msg, Msg>) => {
        streams.add(call);
        call.on('cancelled', () => streams.delete(call));
      },
    });
    server.addService(serviceDefinition('plugin.GRPCBroker'), {
      StartStream: (call: ServerDuplexStream<Msg, Msg>) => {
        streams.add(call);
        call.on('data', () => undefined);
        call.on('end', () => {
          streams.delete(call);
          call.end();
        });
        call.on('cancelled', () => streams.delete(call));
      },
    });
    const healthStatus = (service: string): string | undefined => (service === '' || service === 'plugin' ? 'SERVING' : undefined);
    server.addService(serviceDefinition('grpc.health.v1.Health'), {
      Check: (call: ServerUnaryCall<Msg, Msg>, cb: sendUnaryData<Msg>) => {
        const s = healthStatus(call.request.service ?? '');
        if (s) cb(null, { status: s });
        else cb({ code: status.NOT_FOUND, details: `unknown service "${call.request.service}"; this plugin serves "plugin"` });
      },
      Watch: (call: ServerWritableStream<Msg, Msg>) => {
        streams.add(call);
        call.write({ status: healthStatus(call.request.service ?? '') ?? 'SERVICE_UNKNOWN' });
        call.on('cancelled', () => streams.delete(call));
      },
    });

    const port = await bind(server, portRange(env), creds);
    const handshake = `${CORE_PROTOCOL_VERSION}|${version}|tcp|127.0.0.1:${port}|grpc|${certField}\n`;
    writeSync(opts.handshakeFd ?? 1, handshake);
    if (opts.redirectStdout ?? true) {
      // Anything printed from now on would corrupt nothing (Terraform reads only the first line), but
      // go-plugin forwards stdout lines as log noise: keep stdout for the handshake only.
      globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
      process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
    }
    // go-plugin plugins ignore interrupts: Terraform forwards Ctrl-C as StopProvider and then shuts us down.
    process.on('SIGINT', () => undefined);
    return { port, handshake: handshake.trimEnd(), stop };
  } catch (e) {
    const msg = e instanceof PluginStartError ? e.message : `${opts.name}: failed to start: ${(e as Error)?.stack ?? String(e)}`;
    process.stderr.write(`${msg}\n`);
    exit(1);
    return undefined;
  }
}
