// The bounds of a metrics request's body (OTLP or remote-write): at most MAX_WIRE_BYTES as
// sent (the HTTP layer reads within it, src/http/metrics/body.ts) and MAX_DECODED_BYTES once
// inflated, so a small gzip or snappy bomb is refused (too_large, 413) before it takes memory.
import snappy from 'snappyjs';
import { invalid, tooLarge } from '../../errors.js';

export const MAX_WIRE_BYTES = 4 * 1024 * 1024;
export const MAX_DECODED_BYTES = 16 * 1024 * 1024;

/** A snappy block (Prometheus remote-write), its declared length checked before it is inflated. */
export function unsnappied(body: Buffer): Buffer {
  let length = 0;
  let shift = 0;
  for (let i = 0; i < Math.min(body.length, 5); i++) {
    length += (body[i]! & 0x7f) * 2 ** shift;
    shift += 7;
    if ((body[i]! & 0x80) === 0) break;
  }
  if (length > MAX_DECODED_BYTES) {
    throw tooLarge('payload_too_large', `The request body is larger than ${MAX_DECODED_BYTES / (1024 * 1024)} MB once decompressed; nothing of it was stored.`);
  }
  try {
    return Buffer.from(snappy.uncompress(body, MAX_DECODED_BYTES));
  } catch {
    throw invalid('malformed_body', 'The request body is not valid snappy.');
  }
}
