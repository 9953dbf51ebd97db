/**
 * dnstap readers for the tests: Debian's `fstrm_capture` (fstrm-bin) accepts the server's Frame Streams
 * connections on a unix socket and writes a Frame Streams file; Debian's `dnstap` CLI (golang-dnstap) reads
 * that file. `dnstap` prints every message field but not the Dnstap `extra` bytes, so `extraOf` reads that one
 * field from the file's frames (protobuf field 3 of each Dnstap message).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from './wait';

export interface Capture {
  child: ChildProcess;
  file: string;
  /** Stops fstrm_capture (SIGTERM: it closes the file) and waits for it. */
  stop(): Promise<void>;
  log(): string;
}

/** Starts `fstrm_capture -t protobuf:dnstap.Dnstap -u SOCKET -w FILE` and waits until the socket exists. */
export async function startCapture(socket: string, file: string): Promise<Capture> {
  const child = spawn('fstrm_capture', ['-d', '-d', '-t', 'protobuf:dnstap.Dnstap', '-u', socket, '-w', file, '-c', '16'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(() => existsSync(socket), {
    what: `fstrm_capture on ${socket}`,
    timeoutMs: 10_000,
  });
  return {
    child,
    file,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface TapLine {
  type: string;
  identity?: string;
  version?: string;
  message: {
    type: 'AUTH_QUERY' | 'AUTH_RESPONSE' | string;
    socket_family?: string;
    socket_protocol?: string;
    query_address?: string;
    query_port?: number;
    response_port?: number;
    query_message?: string;
    response_message?: string;
  };
}

/** `dnstap -r FILE -j`: one parsed line per message (throws with dnstap's stderr when it fails). */
export function readWithDnstap(file: string): TapLine[] {
  const r = spawnSync('dnstap', ['-r', file, '-j'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`dnstap -r ${file} -j failed (${r.status}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TapLine);
}

/** A protobuf varint at `at`: its value and the offset after it. */
export function varint(b: Buffer, at: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    const c = b[at++]!;
    v += (c & 0x7f) * mul;
    if ((c & 0x80) === 0) return [v, at];
    mul *= 128;
  }
}

/** The data frames of a Frame Streams file (control frames skipped). */
export function dataFrames(file: string): Buffer[] {
  const b = readFileSync(file);
  const out: Buffer[] = [];
  let at = 0;
  while (at + 4 <= b.length) {
    const len = b.readUInt32BE(at);
    if (len === 0) {
      const control = b.readUInt32BE(at + 4);
      at += 8 + control;
      continue;
    }
    out.push(b.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

/** Dnstap `extra` (field 3) and Message.type (field 14 → 1) of one data frame. */
export function extraOf(frame: Buffer): { type: number; extra?: string } {
  let at = 0;
  let extra: string | undefined;
  let type = 0;
  while (at < frame.length) {
    const [tag, next] = varint(frame, at);
    at = next;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) at = varint(frame, at)[1];
    else if (wire === 5) at += 4;
    else if (wire === 1) at += 8;
    else if (wire === 2) {
      const [len, start] = varint(frame, at);
      const body = frame.subarray(start, start + len);
      if (field === 3) extra = body.toString('utf8');
      if (field === 14) {
        // Message: its field 1 (type) comes first.
        const [t1] = varint(body, 0);
        if (Math.floor(t1 / 8) === 1) type = varint(body, 1)[0];
      }
      at = start + len;
    } else throw new Error(`protobuf wire type ${wire} in a dnstap frame`);
  }
  return extra === undefined ? { type } : { type, extra };
}
