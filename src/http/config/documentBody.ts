// Reads an alerting-as-code document from a request: JSON, or YAML (Content-Type
// application/yaml, text/yaml or application/x-yaml), at most CONFIG_MAX_BYTES. The YAML
// parser's limits are set here, explicitly, not left to its defaults: aliases are expanded
// at most MAX_ALIASES times (an "anchors and aliases" bomb is refused, not expanded), a key
// given twice in a mapping is refused, no custom tags, one document. Before any parser runs,
// the text's nesting is bounded (a parser's recursion is not where a deep document is
// found out), and after it the value's size is bounded again (what aliases could still add).
import type { Context } from 'koa';
import { parseDocument } from 'yaml';
import { invalid, validationFailed } from '../../errors.js';
import { HttpError } from '../httpError.js';
import { decodeJsonText, parseJsonText } from '../../validation/jsonText.js';
import { readBodyBytes } from '../requestBody.js';

/** The largest document taken, as sent or once inflated: 10,000 policies in full fit. */
export const CONFIG_MAX_BYTES = 8 * 1024 * 1024;
/** Aliases a YAML document may use, all told. */
export const MAX_ALIASES = 1000;
/** Nesting of arrays and objects: a document's deepest field is 6 levels down. */
export const MAX_DEPTH = 32;
/** Values (every array, object, string, number…) a document may hold once parsed. */
export const MAX_VALUES = 2_000_000;

export const CONFIG_PATHS = new Set(['/v1.0/config/plan', '/v1.0/config/apply']);

/** Whether the request's body is a document this route reads itself (not the JSON middleware). */
export const isConfigDocumentRequest = (ctx: Context) => ctx.method === 'POST' && CONFIG_PATHS.has(ctx.path);

const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/x-yaml'];

const tooDeep = () => invalid('document_too_deep', `The document nests arrays and objects more than ${MAX_DEPTH} levels deep.`);

/** The deepest nesting of [ and { in the text (in strings too: an over-estimate that costs one pass, no parse). */
function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return max;
}

/** 400 for a value deeper than MAX_DEPTH or larger than MAX_VALUES; walked without recursion. */
export function requireBoundedValue(value: unknown): void {
  const stack: [unknown, number][] = [[value, 0]];
  let count = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++count > MAX_VALUES) throw invalid('document_too_large', `The document holds more than ${MAX_VALUES} values.`);
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_DEPTH) throw tooDeep();
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
}

function parseYaml(text: string): unknown {
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { uniqueKeys: true, merge: false, schema: 'core', customTags: [], strict: true, prettyErrors: false, stringKeys: true });
  } catch {
    throw invalid('invalid_yaml', 'The request body is not a YAML document this service can read.');
  }
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const [line, col] = e.linePos?.[0] ? [e.linePos[0].line, e.linePos[0].col] : [0, 0];
    throw invalid('invalid_yaml', `The request body is not valid YAML: ${e.code}${line > 0 ? ` at line ${line}, column ${col}` : ''}.`);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    const message = err instanceof Error && /alias/i.test(err.message) ? `it uses aliases more than ${MAX_ALIASES} times` : 'it cannot be read';
    throw invalid('invalid_yaml', `The request body is not a YAML document this service can read: ${message}.`);
  }
}

/** The request's document, parsed and bounded (not yet checked against the schema). */
export async function readConfigDocument(ctx: Context): Promise<unknown> {
  const yaml = ctx.request.is(YAML_TYPES) !== false;
  if (!yaml && ctx.request.is('json', '+json') === false && (ctx.request.length ?? 0) > 0) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the document as Content-Type: application/json or application/yaml.');
  }
  const bytes = await readBodyBytes(ctx, { wireBytes: CONFIG_MAX_BYTES, inflated: { encodings: ['gzip', 'deflate', 'br'], maxBytes: CONFIG_MAX_BYTES } });
  if (bytes.length === 0) throw validationFailed([{ path: '', message: 'a document is required' }]);
  const text = decodeJsonText(bytes);
  if (flowDepth(text) > MAX_DEPTH) throw tooDeep();
  const value = yaml ? parseYaml(text) : parseJsonText(text);
  requireBoundedValue(value);
  return value;
}
