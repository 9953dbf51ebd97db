/** `GET /healthz`: the watchdog, and in cluster mode this node and its etcd connection. */

/** `GET /healthz`: the watchdog (503 with `status: "degraded"` and a reason when DNS lags the store). */
export interface HealthzBody {
  status: 'ok' | 'degraded';
  /** The zone DNS answers for (`serve --zone`): what `tmkit external-dns` offers ExternalDNS as its domain filter. */
  zone?: string;
  /** The store's revision. */
  revision: number;
  /** The revision of the snapshot DNS answers from. */
  servedRevision?: number;
  lagRevisions?: number;
  /** How long the oldest change not yet served has waited. */
  lagSeconds?: number;
  reason?: string;
  /** Cluster mode (`serve --store etcd://…`): this node, its etcd connection and the live locations. */
  cluster?: ClusterHealthBody;
}

/** `GET /healthz` in cluster mode: who this node is and whether it reaches etcd (degraded while it does not). */
export interface ClusterHealthBody {
  store: 'etcd';
  node: string;
  location: string;
  etcd: {
    endpoints: string[];
    connected: boolean;
    /** ISO time etcd became unreachable (while it is). */
    since?: string;
    error?: string;
    /** The node started while etcd was down and serves the configuration it had saved locally. */
    fromLocalCopy?: boolean;
  };
  /** The etcd revision this node's state reflects (its SOA serial: this, or the last earlier one that changed its snapshot). */
  etcdRevision: number;
  /** Probing locations whose node is alive (its lease has not expired). */
  liveLocations: string[];
  nodes: Array<{ node: string; location: string }>;
}

/** Why a node is taken out of rotation by hand (`tmkit node drain`): kept in memory, gone on restart. */
export interface NodeDrain {
  /** ISO time of the drain. */
  at: string;
  who: string;
  reason?: string;
}

/**
 * `GET /v1/node` and what `POST /v1/node/drain|undrain` answer: this node's readiness, as `GET /readyz` says it
 * (200 `ready`, or 503 with `reason`). Readiness is not liveness: a node cut off from etcd that still answers DNS
 * stays ready (`/healthz` says degraded).
 */
export interface NodeReadiness {
  state: 'ready' | 'draining' | 'not ready';
  ready: boolean;
  /** One line, when not ready: the reasons joined with `; ` (what `/readyz` answers with its 503). */
  reason?: string;
  /** Set while the node is drained. */
  drain?: NodeDrain;
}

/** `POST /v1/node/drain` (both optional; `who` defaults to `api`). */
export interface NodeDrainRequest {
  reason?: string;
  who?: string;
}
