/**
 * Where a node's DNS cookie secrets live (cookies.ts makes and checks the cookies with them), and their
 * rotation: the state dir (`dns-cookie-secret.json`, mode 0600) for one node, or one etcd key for a
 * cluster, so every node (and every server of an anycast set) accepts the cookies of the others.
 *
 * **Cluster.** The key `<prefix>dns/cookie-secret` holds `{current, previous?, createdAt}` (hex), as the
 * file does. The first node to start creates it in a transaction that succeeds only while it is absent
 * (create revision 0), so two nodes starting together agree: the loser takes the winner's. A node that
 * had a secret of its own in its state dir (a single node becoming a cluster) offers that one, so its
 * clients' cookies stay valid. A rotation replaces the key only if it still holds what the rotation read
 * (compare-and-swap, retried), the current secret becoming the previous. Every node's etcd mirror watches
 * the key and hands a change to DNS (`DnsTarget.setCookies`, which reaches the DNS worker processes too).
 * Each node keeps a private copy in its state dir: it starts with it while etcd is unreachable, and it is
 * what `tmkit backup` of that dir carries. The secret is stored as is: etcd, its access control and TLS,
 * are the trust boundary, as for the configuration and the DNSSEC keys; it is never logged.
 */
import type { Logger } from 'pino';
import type { EtcdSession } from '../etcd/session';
import { COOKIE_SECRET_KEY } from '../etcd/keys';
import {
  COOKIE_SECRET_FILE,
  CookieSecretError,
  cookieSecretsText,
  loadOrCreateCookieSecret,
  newCookieSecrets,
  parseCookieSecrets,
  readCookieSecretFile,
  rotateCookieSecret,
  writeCookieSecretFile,
  type CookieSecrets,
} from './cookies';

/** What the API shows of the secrets (never the secrets). */
export interface CookieSecretInfo {
  store: 'state-dir' | 'etcd' | 'memory';
  where: string;
  createdAt: string;
  /** Cookies made with the secret before the last rotation are still accepted. */
  previous: boolean;
}

/** The node's DNS cookie secrets, their changes and their rotation. */
export interface CookieSecretSource {
  current(): CookieSecrets;
  info(): CookieSecretInfo;
  /** A new current secret; the current one stays accepted as the previous. Everywhere (every node of a cluster). */
  rotate(): Promise<CookieSecrets>;
  /** Called with the secrets whenever they change (a rotation here, or on another node of the cluster). */
  onChange(fn: (s: CookieSecrets) => void): () => void;
  close(): void;
}

const same = (a: CookieSecrets, b: CookieSecrets): boolean => cookieSecretsText(a) === cookieSecretsText(b);

const info = (store: CookieSecretInfo['store'], where: string, s: CookieSecrets): CookieSecretInfo => ({
  store,
  where,
  createdAt: s.createdAt,
  previous: s.previous !== undefined,
});

/** One node: the state dir's file (made on first start), or this run's own secret for `:memory:`. */
class LocalCookieSecrets implements CookieSecretSource {
  private secrets: CookieSecrets;
  private readonly listeners = new Set<(s: CookieSecrets) => void>();
  private readonly where: string;

  constructor(
    private readonly stateDir: string,
    private readonly now: () => number,
  ) {
    this.where = stateDir === ':memory:' ? 'memory' : `${stateDir}/${COOKIE_SECRET_FILE}`;
    this.secrets = stateDir === ':memory:' ? newCookieSecrets(now()) : loadOrCreateCookieSecret(stateDir, now());
  }

  current(): CookieSecrets {
    return this.secrets;
  }

  info(): CookieSecretInfo {
    return info(this.stateDir === ':memory:' ? 'memory' : 'state-dir', this.where, this.secrets);
  }

  async rotate(): Promise<CookieSecrets> {
    this.secrets =
      this.stateDir === ':memory:' ? newCookieSecrets(this.now(), this.secrets.current) : rotateCookieSecret(this.stateDir, this.now());
    for (const fn of this.listeners) fn(this.secrets);
    return this.secrets;
  }

  onChange(fn: (s: CookieSecrets) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    this.listeners.clear();
  }
}

/** A cluster: the etcd key, watched through the node's mirror, with a private copy in the state dir. */
class EtcdCookieSecrets implements CookieSecretSource {
  private readonly listeners = new Set<(s: CookieSecrets) => void>();
  private readonly unwatch: Array<() => void> = [];
  private readonly where: string;
  private readonly key: Buffer;

  private constructor(
    private readonly session: EtcdSession,
    private readonly stateDir: string | undefined,
    private readonly now: () => number,
    private readonly logger: Logger,
    private secrets: CookieSecrets,
  ) {
    this.where = `etcd key ${session.prefix}${COOKIE_SECRET_KEY}`;
    this.key = session.key(COOKIE_SECRET_KEY);
    this.unwatch.push(
      session.onCookieSecret((text) => {
        if (text === undefined) {
          // Deleted (by hand, or a restored etcd without it): offer ours again, so the cluster keeps one.
          void this.ensure();
          return;
        }
        this.adopt(text);
      }),
      // Started while etcd was unreachable: once it is back, agree with the cluster (or give it ours).
      session.onState((up) => {
        if (up) void this.ensure();
      }),
    );
  }

  static async open(session: EtcdSession, stateDir: string | undefined, now: () => number, logger: Logger): Promise<EtcdCookieSecrets> {
    const dir = stateDir !== undefined && stateDir !== ':memory:' ? stateDir : undefined;
    const local = dir !== undefined ? readCookieSecretFile(dir) : undefined;
    const where = `etcd key ${session.prefix}${COOKIE_SECRET_KEY}`;
    let secrets: CookieSecrets;
    if (session.isConnected()) {
      secrets = await createIfAbsent(session, local ?? newCookieSecrets(now()), where);
    } else {
      // etcd down at start: this node's copy (or a secret of its own until etcd is back; clients then get a fresh cookie).
      secrets = local ?? newCookieSecrets(now());
      logger.warn({ cookieSecret: where }, 'etcd is unreachable: DNS cookies use this node’s copy of the secret until it is back');
    }
    const s = new EtcdCookieSecrets(session, dir, now, logger, secrets);
    s.keepCopy();
    // A change the mirror applied between the read and the watch above.
    if (session.cookieSecret !== undefined) s.adopt(session.cookieSecret);
    return s;
  }

  current(): CookieSecrets {
    return this.secrets;
  }

  info(): CookieSecretInfo {
    return info('etcd', this.where, this.secrets);
  }

  async rotate(): Promise<CookieSecrets> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await this.session.call((c) => c.kv.range({ key: this.key }));
      const kv = res.kvs[0];
      const stored = kv === undefined ? undefined : parseCookieSecrets(this.where, kv.value.toString('utf8'));
      const next = newCookieSecrets(this.now(), (stored ?? this.secrets).current);
      const put = { request_put: { key: this.key, value: Buffer.from(cookieSecretsText(next)) } };
      const swapped = await this.session.call((c) =>
        c.kv.txn({
          compare:
            kv === undefined
              ? [{ key: this.key, target: 'Create', result: 'Equal', create_revision: '0' }]
              : [{ key: this.key, target: 'Mod', result: 'Equal', mod_revision: kv.mod_revision }],
          success: [put],
          failure: [],
        }),
      );
      if (swapped.succeeded) {
        this.logger.info({ cookieSecret: this.where, createdAt: next.createdAt }, 'DNS cookie secret rotated');
        this.set(next);
        return next;
      }
    }
    throw new CookieSecretError(`${this.where} kept changing under this rotation (other nodes rotating); retry`);
  }

  onChange(fn: (s: CookieSecrets) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    for (const u of this.unwatch) u();
    this.listeners.clear();
  }

  /** The key as another node (or a rotation) left it. */
  private adopt(text: string): void {
    let next: CookieSecrets;
    try {
      next = parseCookieSecrets(this.where, text);
    } catch (err) {
      this.logger.error({ err: (err as Error).message }, 'the DNS cookie secret in etcd is unusable; keeping the one in use');
      return;
    }
    this.set(next);
  }

  private set(next: CookieSecrets): void {
    if (same(next, this.secrets)) return;
    this.secrets = next;
    this.keepCopy();
    for (const fn of this.listeners) fn(next);
  }

  /** Makes sure etcd has a secret: ours if it has none, else we take its. */
  private async ensure(): Promise<void> {
    try {
      this.set(await createIfAbsent(this.session, this.secrets, this.where));
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'could not read or create the DNS cookie secret in etcd; keeping the one in use');
    }
  }

  private keepCopy(): void {
    if (this.stateDir === undefined) return;
    try {
      writeCookieSecretFile(this.stateDir, this.secrets);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not write the local copy of the DNS cookie secret');
    }
  }
}

/** Creates the key with `offer` unless it exists; returns what the key holds then. */
async function createIfAbsent(session: EtcdSession, offer: CookieSecrets, where: string): Promise<CookieSecrets> {
  const key = session.key(COOKIE_SECRET_KEY);
  const res = await session.call((c) =>
    c.kv.txn({
      compare: [{ key, target: 'Create', result: 'Equal', create_revision: '0' }],
      success: [{ request_put: { key, value: Buffer.from(cookieSecretsText(offer)) } }],
      failure: [{ request_range: { key } }],
    }),
  );
  if (res.succeeded) return offer;
  const kv = res.responses[0]?.response_range?.kvs?.[0];
  if (kv === undefined) throw new CookieSecretError(`${where}: the DNS cookie secret was neither created nor readable; retry`);
  return parseCookieSecrets(where, kv.value.toString('utf8'));
}

/** The node's cookie secrets: in etcd when the node is part of a cluster (`session`), else in the state dir. */
export async function openCookieSecrets(o: {
  stateDir: string;
  session?: EtcdSession;
  now: () => number;
  logger: Logger;
}): Promise<CookieSecretSource> {
  if (o.session) return EtcdCookieSecrets.open(o.session, o.stateDir, o.now, o.logger);
  return new LocalCookieSecrets(o.stateDir, o.now);
}
