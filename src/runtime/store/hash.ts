/** SHA-256 as lower-case hex with node:crypto: the same value as core's pure sha256Hex, many times faster. */
import { createHash } from 'node:crypto';

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
