import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DnsCounts, DnsSockets, DnstapStats, DnsWorkerReport, ResponderStats } from './dns';

/**
 * The runtime's Prometheus metrics, on a registry of its own (several runtimes can live in one process,
 * as in tests). The DNS server, the monitor and the API report into it; `GET /metrics` renders it.
 */
export class RuntimeMetrics {
  readonly registry = new Registry();
  /** Set by stop(): the sources attached to scrapes (DNS, the pipeline) are closed. */
  private stopped = false;
  readonly probes: Counter<'profile' | 'endpoint' | 'result'>;
  readonly probeLatency: Histogram<'profile' | 'endpoint'>;
  readonly transitions: Counter<'profile' | 'endpoint' | 'from' | 'to'>;
  readonly apiRequests: Counter<'route' | 'method' | 'code'>;
  readonly apiLatency: Histogram<'route' | 'method'>;
  readonly storeRevision: Gauge;
  readonly profiles: Gauge;
  readonly snapshotBuilds: Counter;
  readonly configLatency: Histogram;
  readonly rebuildFailures: Counter;
  readonly certificateExpiry: Gauge<'profile' | 'endpoint'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'tmkit_' });
    this.probes = new Counter({
      name: 'tmkit_probe_results_total',
      help: 'Health probe results by endpoint and result',
      labelNames: ['profile', 'endpoint', 'result'],
      registers,
    });
    this.probeLatency = new Histogram({
      name: 'tmkit_probe_duration_seconds',
      help: 'Health probe round-trip time',
      labelNames: ['profile', 'endpoint'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.transitions = new Counter({
      name: 'tmkit_status_transitions_total',
      help: 'Endpoint monitor status transitions',
      labelNames: ['profile', 'endpoint', 'from', 'to'],
      registers,
    });
    this.apiRequests = new Counter({
      name: 'tmkit_api_requests_total',
      help: 'Management API requests by route, method and status code',
      labelNames: ['route', 'method', 'code'],
      registers,
    });
    this.apiLatency = new Histogram({
      name: 'tmkit_api_request_duration_seconds',
      help: 'Management API request handling time',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.storeRevision = new Gauge({
      name: 'tmkit_store_revision',
      help: 'Store revision of the configuration currently served',
      registers,
    });
    this.profiles = new Gauge({ name: 'tmkit_profiles', help: 'Profiles in the configuration currently served', registers });
    this.snapshotBuilds = new Counter({
      name: 'tmkit_snapshot_builds_total',
      help: 'Routing snapshots built (configuration changes and monitor transitions)',
      registers,
    });
    this.rebuildFailures = new Counter({
      name: 'tmkit_snapshot_rebuild_failures_total',
      help: 'Snapshot rebuilds that failed (each is logged and retried with backoff)',
      registers,
    });
    this.certificateExpiry = new Gauge({
      name: 'tmkit_endpoint_certificate_expiry_seconds',
      help: 'Seconds until the certificate the last HTTPS probe saw expires (negative: expired)',
      labelNames: ['profile', 'endpoint'],
      registers,
    });
    this.configLatency = new Histogram({
      name: 'tmkit_config_apply_seconds',
      help: 'Time from a committed store change to the DNS server serving it',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
  }

  /**
   * `tmkit_store_info{kind, driver}` = 1: which store this server runs on (`sqlite` on the `node` or `wasm`
   * SQLite driver, or `etcd`), so a dashboard shows which Node.js path a node is on.
   */
  attachStoreInfo(kind: string, driver: string): void {
    const g = new Gauge({
      name: 'tmkit_store_info',
      help: 'The store this server runs on (kind: sqlite or etcd; driver: node = node:sqlite, wasm = node-sqlite3-wasm)',
      labelNames: ['kind', 'driver'],
      registers: [this.registry],
    });
    g.set({ kind, driver }, 1);
  }

  /**
   * DNS counters, read from the responder (or summed over the DNS workers) at scrape time: a query costs a
   * few increments in the responder and no callback here. Nothing is read once `stop()` was called.
   */
  attachDns(dns: {
    stats(): ResponderStats | undefined;
    counts(): DnsCounts | undefined;
    workers?(): DnsWorkerReport[];
    readonly sockets?: DnsSockets;
    dnstapStats?(): DnstapStats | undefined;
  }): void {
    const source = (): typeof dns | undefined => (this.stopped ? undefined : dns);
    const registers = [this.registry];
    new Gauge({
      name: 'tmkit_dns_workers',
      help:
        'DNS worker processes running (serve --workers), by how they hold the port: per-worker (each ' +
        'its own SO_REUSEPORT sockets) or shared (one socket); absent: DNS answers in the main process',
      labelNames: ['sockets'],
      registers,
      collect() {
        this.reset();
        const s = source();
        const w = s?.workers?.();
        if (!s || !w || s.sockets === undefined) return;
        this.set({ sockets: s.sockets }, w.filter((r) => r.live).length);
      },
    });
    new Counter({
      name: 'tmkit_dns_worker_queries_total',
      help: 'DNS messages handled by each running DNS worker process since it started (worker: its slot 1..N, kept by a replacement; pid: the process)',
      labelNames: ['worker', 'pid'],
      registers,
      collect() {
        this.reset();
        for (const r of source()?.workers?.() ?? []) if (r.live) this.inc({ worker: String(r.slot), pid: String(r.pid) }, r.stats.queries);
      },
    });
    new Gauge({
      name: 'tmkit_dns_responder_total',
      help:
        'DNS responder counters since start (queries, cacheHits, dropped, errors, truncated, cookies and rate limiting); ' +
        'by profile/rcode/qtype: tmkit_dns_queries_total',
      labelNames: ['kind'],
      registers,
      collect() {
        const s = source()?.stats();
        if (!s) return;
        for (const [k, v] of Object.entries(s)) this.set({ kind: k }, v as number);
      },
    });
    /** A counter set at scrape time from rows of (labels, value), or left as it is when `rows()` has none. */
    const scraped = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      rows: () => Iterable<readonly [Partial<Record<L, string>>, number]> | undefined,
    ): void => {
      new Counter({
        name,
        help,
        labelNames,
        registers,
        collect() {
          const r = rows();
          if (!r) return;
          this.reset();
          for (const [labels, n] of r) this.inc(labels, n);
        },
      });
    };
    /** Rows of one label from the responder's stats: the label's value and the stats field it counts. */
    const fromStats =
      <L extends string>(label: L, fields: ReadonlyArray<readonly [string, keyof ResponderStats]>) =>
      () => {
        const s = source()?.stats();
        return s && fields.map(([value, field]) => [{ [label]: value } as Record<L, string>, s[field] ?? 0] as const);
      };
    scraped(
      'tmkit_dns_rrl_responses_total',
      'Response rate limiting (serve --rrl): UDP answers limited since start, by action: slipped (sent truncated), dropped, would_limit (--rrl-mode log)',
      ['action'],
      fromStats('action', [
        ['slipped', 'rrlSlipped'],
        ['dropped', 'rrlDropped'],
        ['would_limit', 'rrlWouldLimit'],
      ]),
    );
    /** One dnstap figure (summed over the DNS processes), when dnstap is on. */
    const dnstap = (field: keyof DnstapStats) => () => {
      const s = source()?.dnstapStats?.();
      return s && [[{}, s[field]] as const];
    };
    scraped(
      'tmkit_dnstap_frames_total',
      'dnstap (serve --dnstap): frames written to the reader since start (an AUTH_QUERY and an AUTH_RESPONSE per sampled query)',
      [],
      dnstap('sent'),
    );
    scraped(
      'tmkit_dnstap_connections_total',
      'dnstap (serve --dnstap): Frame Streams handshakes completed with the reader since start (one per DNS process, plus one per reconnect)',
      [],
      dnstap('connects'),
    );
    scraped(
      'tmkit_dnstap_dropped_total',
      'dnstap (serve --dnstap): frames dropped since start because the queue to the reader was full (reader slow or away); DNS answers are never held for it',
      [],
      dnstap('dropped'),
    );
    scraped(
      'tmkit_dns_cookies_total',
      'DNS cookies since start, by result: issued (a server cookie made), valid (a client came back with ours), badcookie (a rate-limited client told to)',
      ['result'],
      fromStats('result', [
        ['issued', 'cookiesIssued'],
        ['valid', 'cookiesValid'],
        ['badcookie', 'badCookies'],
      ]),
    );
    scraped(
      'tmkit_dns_proxy_total',
      'PROXY protocol v2 (serve --proxy-protocol-from), datagrams and TCP connections by result: accepted (header read), missing (a front sent none or a broken one: dropped), refused (a header from an address that is not a front: dropped)',
      ['result'],
      fromStats('result', [
        ['accepted', 'proxyAccepted'],
        ['missing', 'proxyMissing'],
        ['refused', 'proxyRefused'],
      ]),
    );
    scraped(
      'tmkit_dns_queries_total',
      'DNS queries answered, by profile (empty: no profile matched, e.g. apex, NXDOMAIN, REFUSED, errors), rcode and qtype',
      ['profile', 'rcode', 'qtype'],
      () =>
        source()
          ?.counts()
          ?.queries.map(([profile, rcode, qtype, n]) => [{ profile, rcode, qtype }, n] as const),
    );
    scraped(
      'tmkit_dns_answers_total',
      'DNS answers carrying records, by profile and leaf endpoint (profile/endpoint path through nesting); MultiValue answers count every endpoint',
      ['profile', 'endpoint'],
      () =>
        source()
          ?.counts()
          ?.answers.map(([profile, endpoint, n]) => [{ profile, endpoint }, n] as const),
    );
  }

  /** The watchdog's figures (see SnapshotPipeline.lag), read at scrape time (not once `stop()` was called). */
  attachLag(pipeline: { lag(): Promise<{ lagSeconds: number; lagRevisions: number }> }): void {
    const lag = (): Promise<{ lagSeconds: number; lagRevisions: number }> | undefined => (this.stopped ? undefined : pipeline.lag());
    const registers = [this.registry];
    new Gauge({
      name: 'tmkit_snapshot_lag_seconds',
      help: 'How long the oldest configuration change or health transition not yet served by DNS has waited (0: DNS is current)',
      registers,
      async collect() {
        const l = await lag();
        if (l) this.set(l.lagSeconds);
      },
    });
    new Gauge({
      name: 'tmkit_snapshot_lag_revisions',
      help: 'Store revision minus the revision of the snapshot DNS serves',
      registers,
      async collect() {
        const l = await lag();
        if (l) this.set(l.lagRevisions);
      },
    });
  }

  /** The runtime stopped: scrapes read DNS and the pipeline no more. */
  stop(): void {
    this.stopped = true;
  }
}
