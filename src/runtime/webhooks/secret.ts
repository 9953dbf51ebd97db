/**
 * A webhook's secret file (docs/webhooks.md, "Signature" and "The secret file"): read off the event loop,
 * only when it is a regular file of at most SECRET_FILE_MAX_BYTES, and turned into the HMAC key by one rule.
 *
 * Why so careful: the path comes from whoever holds the API token, and a FIFO, a terminal or a device opened
 * for reading can block until someone writes to it. A synchronous read of one froze the whole server (DNS,
 * the API, the prober). So: `stat` first (a FIFO is refused without being opened), then open with
 * O_NONBLOCK (a FIFO swapped in after the stat does not block the open either) and check the opened file
 * again with `fstat` (that is the file that is read), all on libuv's thread pool, never on the event loop.
 * A symbolic link to a regular file is followed (Kubernetes mounts secrets that way).
 *
 * The key rule, which a receiver implements from the docs: the file's bytes, less exactly one trailing
 * "\n" or "\r\n". Nothing else is trimmed and nothing is decoded.
 */
import { constants, type Stats, unwatchFile, watchFile } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** A secret file holds at most this many bytes (a key is 32 to 64; more is a wrong file, not a secret). */
export const SECRET_FILE_MAX_BYTES = 4096;

const RULE = `a secret file must be a regular file (not a FIFO, device, directory or socket) of at most ${SECRET_FILE_MAX_BYTES} bytes`;

/** Why a secret file cannot be used; the message names the path and the rule. */
export class SecretFileRefused extends Error {}

/** What a non-regular file is, in words. */
function kind(s: Stats): string {
  if (s.isFIFO()) return 'a FIFO';
  if (s.isDirectory()) return 'a directory';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

function check(file: string, s: Stats): void {
  if (!s.isFile()) throw new SecretFileRefused(`secret file ${file} is ${kind(s)}: ${RULE}`);
  if (s.size > SECRET_FILE_MAX_BYTES)
    throw new SecretFileRefused(`secret file ${file} is ${s.size} bytes: a secret file holds at most ${SECRET_FILE_MAX_BYTES} bytes`);
}

function failure(file: string, err: unknown): SecretFileRefused {
  if (err instanceof SecretFileRefused) return err;
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === 'ENOENT'
      ? 'ENOENT (no such file)'
      : e.code === 'EACCES'
        ? 'EACCES (tmkit serve may not read it)'
        : e.code === 'ENXIO'
          ? `ENXIO (${RULE})`
          : (e.code ?? e.message);
  return new SecretFileRefused(`secret file ${file}: ${why}`);
}

/**
 * The HMAC key in `file`, read without blocking the event loop; throws SecretFileRefused naming the path and
 * the rule it breaks (not a regular file, larger than SECRET_FILE_MAX_BYTES, unreadable, empty).
 */
export async function readSecretFile(file: string): Promise<Buffer> {
  let raw: Buffer;
  try {
    check(file, await stat(file));
    // O_NONBLOCK: should the path have become a FIFO since the stat, opening it does not wait for a writer.
    const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
    try {
      check(file, await handle.stat());
      // One byte more than allowed: a file that grew since the fstat is caught too.
      const buf = Buffer.alloc(SECRET_FILE_MAX_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buf, length, buf.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buf.length)
          throw new SecretFileRefused(
            `secret file ${file} is over ${SECRET_FILE_MAX_BYTES} bytes: a secret file holds at most ${SECRET_FILE_MAX_BYTES} bytes`,
          );
      }
      raw = buf.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw failure(file, err);
  }
  const key = hmacKey(raw);
  if (key.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d))
    throw new SecretFileRefused(`secret file ${file} is empty${key.length > 0 ? ' (only white space)' : ''}`);
  return Buffer.from(key);
}

/** The key rule: the bytes less exactly one trailing "\n" or "\r\n" (docs/webhooks.md shows a receiver's copy). */
export function hmacKey(raw: Buffer): Buffer {
  if (raw.length === 0 || raw[raw.length - 1] !== 0x0a) return raw;
  return raw.subarray(0, raw.length - (raw.length >= 2 && raw[raw.length - 2] === 0x0d ? 2 : 1));
}

/**
 * The key of one webhook's secret file while serve runs. Read once when the webhook is added (or serve
 * starts), never during a delivery. Rotation: the file's metadata is polled every `pollMs` (fs.watchFile: a
 * `stat` on the thread pool, unref'd) and the file re-read with the same rules when it changed; a
 * replacement that breaks them is logged and the last good key stays.
 */
export class SecretKey {
  private key: Buffer | undefined;
  private error: string | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Called by fs.watchFile when the file's stat changed (a new inode, mtime, size; or gone). */
  private readonly listener = (): void => {
    void this.reread();
  };

  private constructor(
    readonly file: string,
    private readonly log: SecretLog,
    pollMs: number,
  ) {
    watchFile(file, { interval: pollMs, persistent: false }, this.listener);
  }

  /**
   * `strict`: a file that breaks the rules throws SecretFileRefused (a webhook being added, `serve --webhook`).
   * Otherwise (a stored webhook at start) the webhook keeps the reason: its deliveries fail with it until the
   * file is fixed.
   */
  static async open(file: string, log: SecretLog, pollMs: number, strict: boolean): Promise<SecretKey> {
    let key: Buffer | undefined;
    let error: string | undefined;
    try {
      key = await readSecretFile(file);
    } catch (err) {
      if (strict) throw err;
      error = (err as Error).message;
      log.error(`${error}; this webhook's deliveries wait until the file is fixed`);
    }
    const s = new SecretKey(file, log, pollMs);
    s.key = key;
    s.error = error;
    return s;
  }

  /** The key to sign with; throws the reason when there is none (a delivery is never sent unsigned). */
  current(): Buffer {
    if (this.key === undefined)
      throw new Error(`${this.error ?? `secret file ${this.file} not read`}; fix the file (it is re-read when it changes)`);
    return this.key;
  }

  private reread(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        try {
          const key = await readSecretFile(this.file);
          if (this.closed) return;
          const changed = this.key === undefined || !key.equals(this.key);
          this.key = key;
          this.error = undefined;
          if (changed) this.log.info(`secret file ${this.file} re-read: deliveries are signed with its new key`);
        } catch (err) {
          if (this.closed) return;
          const why = (err as Error).message;
          if (this.key === undefined) this.error = why;
          this.log.error(`${why}${this.key !== undefined ? '; signing with the last good key' : ''}`);
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Stops watching the file. */
  close(): void {
    this.closed = true;
    unwatchFile(this.file, this.listener);
  }
}

/** Where SecretKey reports (the webhooks' logger, with the webhook's id). */
export interface SecretLog {
  info(message: string): void;
  error(message: string): void;
}
