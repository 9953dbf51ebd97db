/**
 * The key layout of tmkit in etcd, and what each key holds: the one place both the store (store/etcd.ts:
 * the configuration) and the cluster (cluster/: nodes, verdicts) read it from. Every key is under the
 * cluster's prefix (`--store etcd://…/PREFIX`, default `/tmkit/`), each segment URI-encoded:
 *
 * | key                                      | value                                      | lease |
 * |------------------------------------------|--------------------------------------------|-------|
 * | `config/rev`                             | the configuration revision (decimal)       | no    |
 * | `config/profiles/<name>`                 | `{stack, hash, modRevision, profile}`      | no    |
 * | `config/resources`                       | `{modRevision, catalog}`                   | no    |
 * | `nodes/<node>`                           | `{node, location, lease, startedAt, …}`    | yes   |
 * | `health/<profile>/<endpoint>/<location>` | `{verdict, fingerprint, node, at, reason}` | yes   |
 * | `latency/<location>`                     | `{node, at, rtt: {"<profile>/<endpoint>": {ms, samples}}}` | yes |
 * | `pushed/<profile>/<endpoint>`            | `{status, reason, at, expiresAt}`          | yes: its own, TTL until expiresAt |
 * | `ops/overrides/<id>`                     | an override (core/api OverrideRecord)      | no    |
 * | `ops/failback/<profile>/<endpoint>`      | the latest failback approval               | no    |
 * | `ops/audit/<ms>-<id>`                    | one audit entry (who, what, when, why)     | no    |
 * | `ops/drills/<id>`                        | one drill report                           | no    |
 * | `ops/shifts/<profile>/<endpoint>`         | a running shift's hold (core/api ShiftLease) | no: it lapses at `expiresAt`, renewed by the shift |
 * | `dns/cookie-secret`                      | the DNS cookie secrets (hex), `{current, previous?, createdAt}` | no |
 *
 * The `ops/` keys are the traffic operations (docs/operations.md, store/etcd-operations.ts): never configuration,
 * so they do not bump `config/rev`. The mirror applies overrides and approvals on every node; each node
 * enforces an override's expiry itself (ledger/operations-feed.ts), and one of them deletes the expired key with a
 * compare-and-delete (the one whose transaction wins writes the audit entry). The audit log and drill reports
 * are read by range when asked for, never mirrored. So are the shift holds (one `tmkit shift` per endpoint): a
 * shift takes, renews and ends its hold with a compare on the key's mod_revision, so of two shifts that find
 * an endpoint free at the same moment on two nodes exactly one takes it.
 *
 * Every configuration write bumps `config/rev` in the same transaction; writers compare its mod_revision,
 * so a write commits only against the view it was checked on (store/etcd.ts). Pushed health
 * (store/etcd-pushed-health.ts) is runtime state: no `config/rev`, a lease of its own per key so etcd drops it
 * soon after it ends, and every node also ends it at `expiresAt` by its own clock.
 *
 * `dns/cookie-secret` is the one secret every node's DNS makes and checks server cookies with (dns/cookie-secrets.ts):
 * created once in a transaction that succeeds only while it is absent, replaced by a rotation with a
 * compare-and-swap; the mirror hands it to the DNS of every node. It is kept as is, like the rest of what is under
 * the prefix: etcd (its access control, TLS, snapshots) is the trust boundary. Not in `cluster-cache.json`.
 */
import type { MeasuredRtt } from '../../core/health/latency';
import type { ProbeVerdict } from '../../core/health/types';
import type { ResourceCatalogRecord } from '../../core/model/catalog';
import type { Profile } from '../../core/model/types';

export const REV_KEY = 'config/rev';
export const RESOURCES_KEY = 'config/resources';
export const AUDIT_PREFIX = 'ops/audit/';
export const DRILLS_PREFIX = 'ops/drills/';
export const SHIFTS_PREFIX = 'ops/shifts/';
export const COOKIE_SECRET_KEY = 'dns/cookie-secret';

const enc = (s: string): string => encodeURIComponent(s);
const dec = (s: string): string => decodeURIComponent(s);

export function keyOfProfile(name: string): string {
  return `config/profiles/${enc(name)}`;
}
export function keyOfNode(node: string): string {
  return `nodes/${enc(node)}`;
}
export function keyOfPushed(key: string): string {
  const i = key.indexOf('/');
  return `pushed/${enc(key.slice(0, i))}/${enc(key.slice(i + 1))}`;
}
export function keyOfVerdict(profile: string, endpoint: string, location: string): string {
  return `health/${enc(profile)}/${enc(endpoint)}/${enc(location)}`;
}
export function keyOfLatency(location: string): string {
  return `latency/${enc(location)}`;
}
export function keyOfOverride(id: string): string {
  return `ops/overrides/${enc(id)}`;
}
export function keyOfFailback(profile: string, endpoint: string): string {
  return `ops/failback/${enc(profile)}/${enc(endpoint)}`;
}
export function keyOfShift(profile: string, endpoint: string): string {
  return `${SHIFTS_PREFIX}${enc(profile)}/${enc(endpoint)}`;
}
/** Audit keys sort by time: the time in ms, zero-padded, then a unique id. */
export function keyOfAudit(atMs: number, id: string): string {
  return `${AUDIT_PREFIX}${String(Math.max(0, Math.floor(atMs))).padStart(15, '0')}-${enc(id)}`;
}
export function keyOfDrill(id: string): string {
  return `${DRILLS_PREFIX}${enc(id)}`;
}

/** `config/profiles/<name>`. */
export interface StoredValue {
  stack: string;
  hash: string;
  modRevision: number;
  profile: Profile;
}

/** `config/resources`. */
export interface ResourcesValue {
  modRevision: number;
  catalog: ResourceCatalogRecord;
}

/** `nodes/<node>`: a tmkit node, registered under its lease while it runs. */
export interface NodeRecord {
  node: string;
  location: string;
  /** The lease (decimal id) its keys are attached to. */
  lease: string;
  startedAt: string;
  dns?: string[];
  api?: string;
}

/** `health/<profile>/<endpoint>/<location>`: one location's decided verdict (no key = undecided). */
export interface LocationVerdict {
  verdict: Exclude<ProbeVerdict, 'CheckingEndpoint'>;
  /** Probe settings the verdict was reached with (a verdict for other settings counts as undecided). */
  fingerprint: string;
  node: string;
  /** ms since epoch of the transition. */
  at: number;
  reason: string;
}

/**
 * `latency/<location>`: one location's measured probe round trips (ledger/latency.ts), for Measured
 * Performance profiles on the other nodes; rewritten only when a value moved (cluster/latency.ts).
 */
export interface LocationLatency {
  node: string;
  /** ms since epoch of the write. */
  at: number;
  /** `profile/endpoint` → EWMA of its successful probes' round trips. */
  rtt: Record<string, MeasuredRtt>;
}

/** What a key (without the prefix) names; undefined for a key tmkit does not use. */
export type ParsedKey =
  | { kind: 'rev' }
  | { kind: 'resources' }
  | { kind: 'profile'; name: string }
  | { kind: 'node'; node: string }
  | { kind: 'verdict'; key: string; location: string }
  | { kind: 'latency'; location: string }
  | { kind: 'pushed'; key: string }
  | { kind: 'override'; id: string }
  | { kind: 'failback'; key: string }
  | { kind: 'audit' }
  | { kind: 'drill' }
  | { kind: 'cookies' };

export function parseKey(rest: string): ParsedKey | undefined {
  if (rest === REV_KEY) return { kind: 'rev' };
  if (rest === RESOURCES_KEY) return { kind: 'resources' };
  if (rest === COOKIE_SECRET_KEY) return { kind: 'cookies' };
  const parts = rest.split('/');
  if (parts[0] === 'config' && parts[1] === 'profiles' && parts.length === 3) return { kind: 'profile', name: dec(parts[2]!) };
  if (parts[0] === 'nodes' && parts.length === 2) return { kind: 'node', node: dec(parts[1]!) };
  if (parts[0] === 'latency' && parts.length === 2) return { kind: 'latency', location: dec(parts[1]!) };
  if (parts[0] === 'pushed' && parts.length === 3) return { kind: 'pushed', key: `${dec(parts[1]!)}/${dec(parts[2]!)}` };
  if (parts[0] === 'health' && parts.length === 4)
    return { kind: 'verdict', key: `${dec(parts[1]!)}/${dec(parts[2]!)}`, location: dec(parts[3]!) };
  if (parts[0] === 'ops') {
    if (parts[1] === 'overrides' && parts.length === 3) return { kind: 'override', id: dec(parts[2]!) };
    if (parts[1] === 'failback' && parts.length === 4) return { kind: 'failback', key: `${dec(parts[2]!)}/${dec(parts[3]!)}` };
    if (parts[1] === 'audit' && parts.length === 3) return { kind: 'audit' };
    if (parts[1] === 'drills' && parts.length === 3) return { kind: 'drill' };
  }
  return undefined;
}

/** The next key after every key starting with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}
