/**
 * The responder's error answers (FORMERR, NOTIMP, SERVFAIL, BADVERS, BADCOOKIE): built from the query's own bytes,
 * never cached, counted in the tallies under no profile.
 */
import { qtypeLabel, rcodeName, type DnsTallies } from './counts';
import { writeHeader } from './answer-cache';
import type { Transport } from './responder-options';
import { FLAG_QR, HEADER_LENGTH, optLength, writeOpt, type Edns } from './wire';

/**
 * Error responses (FORMERR, NOTIMP, SERVFAIL, BADVERS; never cached): the query's ID, opcode and RD, the
 * question echoed when it could be read, and an OPT (advertising `udpCap`) when the query had a valid one.
 * AA clear (as BIND). Counted in `tallies`.
 */
export function errorResponse(
  msg: Buffer,
  id: number,
  qflags: number,
  rcode: number,
  questionLength: number,
  edns: Edns | undefined,
  transport: Transport,
  udpCap: number,
  tallies: DnsTallies,
  cookie?: Uint8Array,
  extraFlags = 0,
): Buffer {
  const pre = transport === 'tcp' ? 2 : 0;
  const optLen = edns ? optLength(undefined, cookie) : 0;
  const total = HEADER_LENGTH + questionLength + optLen;
  const out = Buffer.alloc(pre + total);
  if (pre) {
    out[0] = total >> 8;
    out[1] = total & 0xff;
  }
  const flags = FLAG_QR | extraFlags | (qflags & 0x7800) /* opcode */ | (qflags & 0x0100) /* RD */ | (rcode & 0xf);
  writeHeader(out.subarray(pre), flags, questionLength > 0 ? 1 : 0, 0, 0, edns ? 1 : 0);
  out[pre] = id >> 8;
  out[pre + 1] = id & 0xff;
  if (questionLength > 0) msg.copy(out, pre + HEADER_LENGTH, HEADER_LENGTH, HEADER_LENGTH + questionLength);
  if (edns) writeOpt(out, pre + HEADER_LENGTH + questionLength, udpCap, rcode, edns.dnssecOk, undefined, 0, false, cookie);
  // Not on the hot path (error answers are never cached): a Map lookup per answer is fine here.
  tallies.query('', rcodeName(rcode), qtypeLabel(questionLength >= 5 ? msg.readUInt16BE(HEADER_LENGTH + questionLength - 4) : undefined))
    .n++;
  return out;
}
