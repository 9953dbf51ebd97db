/**
 * Where the zone's DNSSEC key set lives: a port with two implementations. A single node keeps it in its
 * state dir (`FileKeyStore`, `dnssec-keys.json`, mode 0600, in `tmkit backup`); a cluster keeps one key set in
 * etcd that every node signs with (`EtcdKeyStore` in etcd-key-store.ts). Both create the first key set only
 * if there is none, so two nodes starting together end up with the same keys, and change it only by
 * compare-and-swap, so two rollovers at once cannot both win.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeySetDocument } from './keys';
import { DnssecKeyError } from './keys';

export interface DnssecKeyStore {
  /** Where the keys are, for messages (`.tmkit/dnssec-keys.json`, `etcd key /tmkit/dnssec/keys`). */
  readonly where: string;
  /** The stored key set, or undefined when there is none yet. */
  load(): Promise<KeySetDocument | undefined>;
  /** Stores `doc` unless a key set exists; returns the stored one (`doc`, or the one another node stored first). */
  createIfAbsent(doc: KeySetDocument): Promise<KeySetDocument>;
  /** Replaces `expected` with `next`; false (nothing written) when the stored key set is no longer `expected`. */
  replace(expected: KeySetDocument, next: KeySetDocument): Promise<boolean>;
}

export const KEY_FILE = 'dnssec-keys.json';

/** Reads a key set file; undefined when it does not exist. Throws DnssecKeyError when it is not JSON. */
export function readKeyFile(path: string): KeySetDocument | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DnssecKeyError(`${path}: cannot read the DNSSEC keys (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return JSON.parse(text) as KeySetDocument;
  } catch (err) {
    throw new DnssecKeyError(
      `${path}: the DNSSEC key file is not JSON (${(err as Error).message}); restore it from a backup ` +
        `(tmkit restore) or move it away to start with new keys (the parent's DS must then change)`,
    );
  }
}

/** Writes a key set file with mode 0600, atomically (a temporary file renamed into place). */
export function writeKeyFile(path: string, doc: KeySetDocument): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** The single-node store: `<state dir>/dnssec-keys.json`, owner-only (the state dir's lock keeps writers to one process). */
export class FileKeyStore implements DnssecKeyStore {
  readonly path: string;
  readonly where: string;

  constructor(stateDir: string, file: string = KEY_FILE) {
    this.path = join(stateDir, file);
    this.where = this.path;
  }

  async load(): Promise<KeySetDocument | undefined> {
    const doc = readKeyFile(this.path);
    // A copy made with other permissions (by hand, or restored) is made private again: it holds private keys.
    if (doc !== undefined && (statSync(this.path).mode & 0o077) !== 0) chmodSync(this.path, 0o600);
    return doc;
  }

  async createIfAbsent(doc: KeySetDocument): Promise<KeySetDocument> {
    const existing = await this.load();
    if (existing !== undefined) return existing;
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    // O_EXCL: of two writers exactly one creates the file.
    try {
      writeFileSync(this.path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await this.load())!;
      throw err;
    }
    return doc;
  }

  async replace(expected: KeySetDocument, next: KeySetDocument): Promise<boolean> {
    const current = existsSync(this.path) ? readKeyFile(this.path) : undefined;
    if (JSON.stringify(current) !== JSON.stringify(expected)) return false;
    writeKeyFile(this.path, next);
    return true;
  }
}

/** A key set that lives as long as the process (`--state-dir :memory:`, tests). */
export class MemoryKeyStore implements DnssecKeyStore {
  readonly where = 'memory (lost on exit)';
  private doc: KeySetDocument | undefined;

  async load(): Promise<KeySetDocument | undefined> {
    return this.doc;
  }

  async createIfAbsent(doc: KeySetDocument): Promise<KeySetDocument> {
    this.doc ??= doc;
    return this.doc;
  }

  async replace(expected: KeySetDocument, next: KeySetDocument): Promise<boolean> {
    if (JSON.stringify(this.doc) !== JSON.stringify(expected)) return false;
    this.doc = next;
    return true;
  }
}
