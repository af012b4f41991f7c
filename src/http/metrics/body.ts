// The raw bytes of a metrics request (protobuf or JSON), decompressed within bounds: at most
// MAX_WIRE_BYTES on the wire and MAX_DECODED_BYTES once inflated, so a small gzip or snappy
// bomb is refused (413) before it takes memory.
import { gunzipSync } from 'node:zlib';
import type { Context } from 'koa';
import snappy from 'snappyjs';
import { HttpError } from '../httpError.js';

export const MAX_WIRE_BYTES = 4 * 1024 * 1024;
export const MAX_DECODED_BYTES = 16 * 1024 * 1024;

const tooLarge = () =>
  new HttpError(413, 'payload_too_large', `The request body is larger than ${MAX_WIRE_BYTES} bytes, or ${MAX_DECODED_BYTES} bytes once decompressed.`);
const malformed = (what: string) => new HttpError(400, 'malformed_body', `The request body is not valid ${what}.`);

/** The body as sent, at most MAX_WIRE_BYTES. */
export async function wireBytes(ctx: Context): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || '0');
  if (declared > MAX_WIRE_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_WIRE_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** The body inflated as its Content-Encoding says (identity or gzip). */
export function gunzipped(ctx: Context, body: Buffer): Buffer {
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return body;
  if (encoding !== 'gzip') throw new HttpError(415, 'unsupported_media_type', 'Content-Encoding must be gzip or none.');
  try {
    return gunzipSync(body, { maxOutputLength: MAX_DECODED_BYTES });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw malformed('gzip');
  }
}

/** A snappy block (Prometheus remote-write), its declared length checked before it is inflated. */
export function unsnappied(body: Buffer): Buffer {
  let length = 0;
  let shift = 0;
  for (let i = 0; i < Math.min(body.length, 5); i++) {
    length += (body[i]! & 0x7f) * 2 ** shift;
    shift += 7;
    if ((body[i]! & 0x80) === 0) break;
  }
  if (length > MAX_DECODED_BYTES) throw tooLarge();
  try {
    return Buffer.from(snappy.uncompress(body, MAX_DECODED_BYTES));
  } catch {
    throw malformed('snappy');
  }
}
