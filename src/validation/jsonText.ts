// A JSON body's text, read one way wherever it is parsed (the JSON body parser of every route,
// log batches and OTLP/JSON in ingest's parser threads): UTF-8 only, a byte order mark dropped,
// prototype poisoning refused. Malformed text is refused as `invalid` `invalid_json` (400).
import { isUtf8 } from 'node:buffer';
import bourne from '@hapi/bourne';
import { invalid } from '../errors.js';

export const invalidJson = () => invalid('invalid_json', 'The request body is not valid JSON.');

const invalidUtf8 = () => invalid('invalid_json', 'The request body is not valid JSON: it is not UTF-8 text.');

/** A body's bytes as text: UTF-8, a byte order mark dropped; malformed UTF-8 is invalid_json. */
export function decodeJsonText(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw invalidUtf8();
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses a JSON body's text as every route does: any JSON value, prototype poisoning refused. */
export function parseJsonText(text: string): unknown {
  try {
    return bourne.parse(text, { protoAction: 'error' });
  } catch {
    throw invalidJson();
  }
}
