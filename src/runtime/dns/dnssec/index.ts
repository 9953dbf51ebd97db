/**
 * DNSSEC for `tmkit serve --dnssec`: keys and their stores, the online signer, rollovers, and the wiring the
 * engine uses (one call to open, one to connect DNS and metrics, one for the API).
 */
import type { Registry } from 'prom-client';
import type { DnssecRolloverRequest, DnssecReport, DnssecRolloverResult } from '../../../core/api';
import type { Logger } from 'pino';
import type { EtcdSession } from '../../etcd/session';
import type { DnsTarget } from '../target';
import { EtcdKeyStore } from './etcd-key-store';
import { FileKeyStore, MemoryKeyStore } from './key-store';
import { DnssecService } from './service';
import { attachDnssecMetrics } from './metrics';
import type { KeyPolicy } from './keys';

export { DnssecService } from './service';
export {
  ZoneSigner,
  SIGNING_DEFAULTS,
  SIGNING_LIMIT_DEFAULTS,
  SigningBudgetExceeded,
  setSigningLimits,
  type SignerOptions,
  type SignerStats,
  type SigningLimits,
} from './signer';
export { FileKeyStore, MemoryKeyStore, KEY_FILE, readKeyFile, type DnssecKeyStore } from './key-store';
export { EtcdKeyStore, ETCD_KEYS_KEY } from './etcd-key-store';
export {
  DnssecKeyError,
  loadKeySet,
  newKeySet,
  dsText,
  dnskeyText,
  keyState,
  type KeyPolicy,
  type KeySetDocument,
  type ZoneKey,
} from './keys';

/** What the runtime gives the API about DNSSEC. */
export interface DnssecApi {
  report(): DnssecReport;
  rollover(request: Required<DnssecRolloverRequest>): Promise<DnssecRolloverResult>;
}

/** How often a cluster node reads the key set from etcd for another node's rollover. */
export const CLUSTER_POLL_MS = 10_000;

/**
 * Loads or creates the zone's keys: in etcd for a cluster (`session`), else in `<stateDir>/dnssec-keys.json`.
 */
export function openDnssec(o: {
  zone: string;
  policy: KeyPolicy;
  stateDir: string;
  session?: EtcdSession;
  logger: Logger;
  dnskeyTtl?: number;
}): Promise<DnssecService> {
  const store =
    o.session !== undefined
      ? new EtcdKeyStore(o.session, o.stateDir)
      : o.stateDir === ':memory:'
        ? new MemoryKeyStore()
        : new FileKeyStore(o.stateDir);
  return DnssecService.open({
    zone: o.zone,
    policy: o.policy,
    store,
    logger: o.logger.child({ component: 'dnssec' }),
    ...(o.dnskeyTtl !== undefined ? { dnskeyTtl: o.dnskeyTtl } : {}),
    ...(o.session !== undefined ? { pollMs: CLUSTER_POLL_MS } : {}),
  });
}

/** Where the zone's largest TTL comes from (the snapshot pipeline): rollovers wait that long between steps. */
export interface ZoneTtls {
  maxTtl(): number;
}

/**
 * Every new key set goes to DNS (this process or the workers), and the keys and signature figures to
 * `/metrics`; returns what the API serves. `ttls`: the largest TTL in the zone now (for rollover timing).
 */
export function connectDnssec(service: DnssecService, dns: DnsTarget | undefined, registry: Registry, ttls: ZoneTtls): DnssecApi {
  service.onChange((doc) => dns?.setDnssec(doc));
  attachDnssecMetrics(registry, () => (dns === undefined ? undefined : { service, stats: dns.dnssecStats() }));
  return {
    report: () => service.report(dns?.dnssecStats()),
    rollover: async ({ kind, finish }) => {
      const r = await service.rollover(kind, finish, ttls.maxTtl());
      return { steps: r.steps, keyTags: r.keyTags, report: service.report(dns?.dnssecStats()) };
    },
  };
}
