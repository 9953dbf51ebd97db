/**
 * The etcd client of one node and whether etcd is reachable: every request goes through `call`, which fails
 * fast while etcd is known to be down and keeps the state (reachable, since when, the last error) that
 * /healthz and the API's 503 messages report.
 */
import { isIP } from 'node:net';
import { Channel, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { ConsecutiveBreaker, circuitBreaker, handleWhen, retry } from 'cockatiel';
import { Etcd3, isRecoverableError, type IOptions } from 'etcd3';
import type { Logger } from 'pino';
import { StoreError } from '../../core/store';
import type { RuntimeClock } from '../clock';

export interface ConnectionOptions {
  /** `http(s)://host:port`. */
  hosts: string[];
  /** TLS: CA bundle, client certificate and key (PEM). */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** etcd user (role-based access control). */
  auth?: { username: string; password: string };
  /** Deadline of one etcd request (default 5000 ms). */
  requestTimeoutMs?: number;
  logger?: Logger;
  clock: RuntimeClock;
  /** The configuration revision this node serves (named in the messages of refused writes). */
  servedRevision: () => number;
}

/** True for the failures that mean etcd could not be reached (as opposed to a refused request). */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreError) return err.code === 'STORE_UNAVAILABLE';
  const name = (err as Error | undefined)?.constructor?.name ?? '';
  return (
    isRecoverableError(err as Error) ||
    /DeadlineExceeded|Unavailable|BrokenCircuit|Cancelled|ClientClosed|WatchStreamEnded/.test(name) ||
    /ECONNREFUSED|UNAVAILABLE|DEADLINE|No connection|unavailable/i.test(String((err as Error | undefined)?.message))
  );
}

/** The host of a gRPC address `host:port` or `[v6]:port`. */
const hostOf = (address: string): string =>
  address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.replace(/:\d+$/, '');

/**
 * gRPC's TLS connector sets `servername` (SNI) to the target's host even when it is an IP address, which RFC 6066
 * forbids and Node warns about once per process (DEP0123, on every `etcds://10.0.0.5:2379` start). For an IP
 * literal the connector's options go to `tls.connect` without it: SNI is not sent, and Node checks the certificate
 * against the IP (its IP SANs) from the `host` option, as it would have. Names keep their SNI. This reaches into
 * grpc-js's connector (`connectionOptions`, @grpc/grpc-js 1.14, pinned); if that changes, nothing is removed and
 * only the warning comes back.
 */
function withoutIpServername(credentials: ChannelCredentials): ChannelCredentials {
  type Connector = { connectionOptions?: { servername?: string } };
  const inner = credentials as unknown as { _createSecureConnector?: (...args: unknown[]) => Connector };
  const create = inner._createSecureConnector;
  if (typeof create !== 'function') return credentials;
  const wrapped = Object.create(credentials) as typeof inner;
  wrapped._createSecureConnector = (...args: unknown[]): Connector => {
    const connector = create.apply(credentials, args);
    const o = connector.connectionOptions;
    if (o && typeof o.servername === 'string' && isIP(o.servername) !== 0) delete o.servername;
    return connector;
  };
  return wrapped as unknown as ChannelCredentials;
}

/** The etcd3 client's channels (grpc-js `channelFactoryOverride`): an IP literal's TLS without SNI (above). */
function etcdChannel(address: string, credentials: ChannelCredentials, options: ChannelOptions): Channel {
  return new Channel(address, isIP(hostOf(address)) !== 0 ? withoutIpServername(credentials) : credentials, options);
}

type StateListener = (connected: boolean) => void;

export class EtcdConnection {
  readonly client: Etcd3;
  readonly hosts: string[];
  readonly requestTimeoutMs: number;
  private connected = false;
  private downSince: number | undefined;
  private lastError: string | undefined;
  private closed = false;
  private readonly stateListeners = new Set<StateListener>();
  /** Called when a request finds etcd unreachable (the watch tries to reconnect at once). */
  onUnreachable: () => void = () => undefined;

  constructor(private readonly settings: ConnectionOptions) {
    this.hosts = settings.hosts;
    this.requestTimeoutMs = settings.requestTimeoutMs ?? 5_000;
    const timeout = this.requestTimeoutMs;
    const options: IOptions = {
      hosts: settings.hosts,
      dialTimeout: timeout,
      // Streams (watch, keep-alive) have no deadline; every other call has one, so nothing waits for a
      // silent etcd longer than the request timeout.
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: this.deadline(timeout) }),
      grpcOptions: {
        'grpc.max_receive_message_length': 256 * 1024 * 1024,
        'grpc.max_send_message_length': 16 * 1024 * 1024,
        'grpc.initial_reconnect_backoff_ms': 200,
        'grpc.max_reconnect_backoff_ms': 2_000,
        // Find a silent (partitioned) etcd on idle connections too; etcd's default enforcement allows 5 s.
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
        // Not a channel option but a client one (grpc-js reads it from the same object): see etcdChannel.
        ...({ channelFactoryOverride: etcdChannel } as object),
      },
      faultHandling: {
        // A host that failed twice is skipped for 1 s; a failed call is retried once on each other host.
        host: () => circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: 1_000, breaker: new ConsecutiveBreaker(2) }),
        global: retry(handleWhen(isRecoverableError), { maxAttempts: Math.max(0, settings.hosts.length - 1) }),
      },
    };
    if (settings.tls && (settings.tls.ca || settings.tls.cert)) {
      options.credentials = {
        rootCertificate: settings.tls.ca ?? Buffer.alloc(0),
        ...(settings.tls.key ? { privateKey: settings.tls.key } : {}),
        ...(settings.tls.cert ? { certChain: settings.tls.cert } : {}),
      };
    }
    if (settings.auth) options.auth = { username: settings.auth.username, password: settings.auth.password };
    this.client = new Etcd3(options);
  }

  /** A gRPC deadline `ms` from now. */
  deadline(ms: number): number {
    return this.settings.clock.now() + ms;
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** What /healthz says about etcd. */
  state(): { connected: boolean; since?: number; error?: string } {
    return {
      connected: this.connected,
      ...(this.downSince !== undefined ? { since: this.downSince } : {}),
      ...(this.lastError !== undefined && !this.connected ? { error: this.lastError } : {}),
    };
  }

  onState(l: StateListener): () => void {
    this.stateListeners.add(l);
    return () => this.stateListeners.delete(l);
  }

  markUp(): void {
    if (this.connected) return;
    this.connected = true;
    const wasDown = this.downSince;
    this.downSince = undefined;
    this.lastError = undefined;
    if (wasDown !== undefined)
      this.settings.logger?.info({ downSeconds: Math.round((this.settings.clock.now() - wasDown) / 100) / 10 }, 'etcd is reachable again');
    for (const l of this.stateListeners) {
      try {
        l(true);
      } catch {
        /* listener bug */
      }
    }
  }

  markDown(err: unknown): void {
    const msg = (err as Error | undefined)?.message ?? String(err);
    // Keep the cause: "the circuit breaker is open" only says that the client stopped trying for a moment.
    if (this.lastError === undefined || this.connected || !/circuit breaker/i.test(msg)) this.lastError = msg;
    if (!this.connected && this.downSince !== undefined) return;
    this.connected = false;
    this.downSince = this.settings.clock.now();
    this.settings.logger?.warn(
      { err: this.lastError },
      'etcd is unreachable: answering and probing from the last state; writes are refused',
    );
    for (const l of this.stateListeners) {
      try {
        l(false);
      } catch {
        /* listener bug */
      }
    }
  }

  /** The error a write gets while etcd cannot be reached. */
  unavailable(cause?: unknown): StoreError {
    const now = this.settings.clock.now();
    const since =
      this.downSince !== undefined
        ? `since ${new Date(this.downSince).toISOString()} (${Math.round((now - this.downSince) / 1000)} s)`
        : 'now';
    const why = cause !== undefined ? ((cause as Error).message ?? String(cause)) : this.lastError;
    const revision = this.settings.servedRevision();
    return new StoreError(
      'STORE_UNAVAILABLE',
      `etcd (${this.hosts.join(', ')}) is unreachable ${since}${why ? `: ${why}` : ''}; the change was not stored. ` +
        `This node keeps answering DNS from configuration revision ${revision}; retry when etcd is back`,
      { hosts: this.hosts, revision },
    );
  }

  /** Runs one etcd request: fails fast while etcd is known to be down; tracks the connection state. */
  async call<T>(fn: (c: Etcd3) => Promise<T>, opts: { failFast?: boolean } = {}): Promise<T> {
    if (this.closed) throw new StoreError('STORE_UNAVAILABLE', 'the etcd session is closed');
    if (opts.failFast !== false && !this.connected) throw this.unavailable();
    try {
      const r = await fn(this.client);
      this.markUp();
      return r;
    } catch (err) {
      if (isUnavailable(err)) {
        this.markDown(err);
        this.onUnreachable();
        throw this.unavailable(err);
      }
      throw err;
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    this.client.close();
  }
}
