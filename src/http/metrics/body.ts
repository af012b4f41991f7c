// The bytes of a metrics request (protobuf or JSON), read within the bounds of
// src/ingest/intake/pointBody.ts: at most MAX_WIRE_BYTES on the wire and, for OTLP's gzip,
// MAX_DECODED_BYTES once inflated (remote-write's snappy block is inflated by the intake).
// Read through http/requestBody.ts, as every body is.
import type { Context } from 'koa';
import { MAX_DECODED_BYTES, MAX_WIRE_BYTES } from '../../ingest/intake/pointBody.js';
import { readBodyBytes } from '../requestBody.js';

/** An OTLP body, inflated when its Content-Encoding is gzip. */
export const otlpBody = (ctx: Context) => readBodyBytes(ctx, { wireBytes: MAX_WIRE_BYTES, inflated: { encodings: ['gzip'], maxBytes: MAX_DECODED_BYTES } });

/** A remote-write body as sent: a snappy block, whatever Content-Encoding says (the intake inflates it). */
export const remoteWriteBody = (ctx: Context) => readBodyBytes(ctx, { wireBytes: MAX_WIRE_BYTES });
