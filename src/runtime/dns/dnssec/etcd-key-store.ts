/**
 * The cluster's key store: one etcd key, `<prefix>dnssec/keys`, that every node signs with. The first node
 * to start with `--dnssec` creates it in a transaction that succeeds only while the key does not exist
 * (create revision 0); a node that loses that race takes the winner's keys. A rollover replaces it only if
 * it still holds what the rollover was planned on. Each node keeps a private copy in its state dir
 * (`dnssec-keys.json`, mode 0600), so it can start and sign while etcd is unreachable.
 */
import { join } from 'node:path';
import type { EtcdSession } from '../../etcd/session';
import { DnssecKeyError, type KeySetDocument } from './keys';
import { KEY_FILE, readKeyFile, writeKeyFile, type DnssecKeyStore } from './key-store';

export const ETCD_KEYS_KEY = 'dnssec/keys';

export class EtcdKeyStore implements DnssecKeyStore {
  readonly where: string;
  private readonly copy: string | undefined;

  constructor(
    private readonly session: EtcdSession,
    stateDir?: string,
  ) {
    this.where = `etcd key ${session.prefix}${ETCD_KEYS_KEY}`;
    this.copy = stateDir !== undefined && stateDir !== ':memory:' ? join(stateDir, KEY_FILE) : undefined;
  }

  async load(): Promise<KeySetDocument | undefined> {
    if (!this.session.isConnected()) {
      const local = this.copy !== undefined ? readKeyFile(this.copy) : undefined;
      if (local !== undefined) return local;
      throw new DnssecKeyError(
        `${this.where}: etcd is unreachable and this node has no copy of the DNSSEC keys yet (${this.copy ?? 'no state dir'}); start it when etcd is back`,
      );
    }
    const res = await this.session.call((c) => c.kv.range({ key: this.session.key(ETCD_KEYS_KEY) }));
    const kv = res.kvs[0];
    return kv === undefined ? undefined : this.parsed(kv.value);
  }

  async createIfAbsent(doc: KeySetDocument): Promise<KeySetDocument> {
    const key = this.session.key(ETCD_KEYS_KEY);
    const res = await this.session.call((c) =>
      c.kv.txn({
        compare: [{ key, target: 'Create', result: 'Equal', create_revision: '0' }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(doc)) } }],
        failure: [{ request_range: { key } }],
      }),
    );
    if (res.succeeded) {
      this.keepCopy(doc);
      return doc;
    }
    const kv = res.responses[0]?.response_range?.kvs?.[0];
    if (kv === undefined) throw new DnssecKeyError(`${this.where}: the key set was neither created nor readable; retry`);
    return this.parsed(kv.value);
  }

  async replace(expected: KeySetDocument, next: KeySetDocument): Promise<boolean> {
    const key = this.session.key(ETCD_KEYS_KEY);
    const res = await this.session.call((c) =>
      c.kv.txn({
        compare: [{ key, target: 'Value', result: 'Equal', value: Buffer.from(JSON.stringify(expected)) }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(next)) } }],
        failure: [],
      }),
    );
    if (res.succeeded) this.keepCopy(next);
    return res.succeeded;
  }

  private parsed(value: Buffer): KeySetDocument {
    let doc: KeySetDocument;
    try {
      doc = JSON.parse(value.toString('utf8')) as KeySetDocument;
    } catch (err) {
      throw new DnssecKeyError(`${this.where}: not JSON (${(err as Error).message})`);
    }
    this.keepCopy(doc);
    return doc;
  }

  private keepCopy(doc: KeySetDocument): void {
    if (this.copy !== undefined) writeKeyFile(this.copy, doc);
  }
}
