/** DNS cookies (RFC 7873/9018): where the node's server secret is kept, and its rotation (docs/dns.md). */

/** `GET /v1/dns/cookies` and `POST /v1/dns/cookies/rotate`: never the secret itself. */
export interface DnsCookiesReport {
  enabled: true;
  /** The state dir's `dns-cookie-secret.json` (one node), one etcd key every node shares (a cluster), or memory (`:memory:`). */
  store: 'state-dir' | 'etcd' | 'memory';
  /** The file or the etcd key. */
  where: string;
  /** When the current secret was made (ISO 8601). */
  createdAt: string;
  /** Cookies made with the secret before the last rotation are still accepted. */
  previous: boolean;
}
