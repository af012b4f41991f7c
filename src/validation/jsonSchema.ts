// JSON Schema (ajv), compiled one way for every input of the service (request bodies, query
// strings, log batches read in ingest's parser threads), and ajv's errors reworded, in one
// place, into {path, message} details. The HTTP validators (src/http/validation.ts) add the
// text and number rules every request keeps (textRules.ts).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ErrorDetail } from '../errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes, useDefaults: false, allowUnionTypes: true });
  addFormats(ajv);
  // RFC 3339 allows a leap second (23:59:60), which JavaScript's Date cannot represent, and
  // handlers read date-times with Date.parse: a date-time is valid only when it is also a
  // JavaScript instant, so none reaches a store as NaN (a leap second in `from` was a 500).
  const rfc3339 = ajv.formats['date-time'] as { validate: (value: string) => boolean };
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => rfc3339.validate(value) && Number.isFinite(Date.parse(value)) });
  return ajv;
}

export const bodyAjv = createAjv(false);
// Query strings arrive as text: "10" is coerced to 10, "ten" still fails.
export const queryAjv = createAjv(true);

/** Patterns used in schemas, with what a failed match means in words. */
export const PATTERNS = {
  notBlank: '\\S',
  uuidOrBlank: '^(\\s*|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
  workspaceId: '^[A-Za-z0-9][A-Za-z0-9._@+-]*$',
} as const;

const PATTERN_MESSAGES: Record<string, string> = {
  [PATTERNS.notBlank]: 'must not be blank',
  [PATTERNS.uuidOrBlank]: 'must be a UUID',
  [PATTERNS.workspaceId]: 'must start with a letter or digit and contain only letters, digits and . _ @ + -',
};

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with a timezone (seconds 00-59), e.g. 2026-11-21T14:04:00Z',
  email: 'must be a valid email address',
};

const TYPE_NAMES: Record<string, string> = {
  number: 'a number',
  integer: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** The `enum` of a property named in a `required` error, found from the error's schema path. */
function enumOfMissing(rootSchema: unknown, error: ErrorObject, property: string): unknown[] | null {
  let schema = rootSchema as Record<string, unknown> | undefined;
  for (const segment of error.schemaPath.split('/').slice(1, -1)) schema = schema?.[decodeURIComponent(segment)] as typeof schema;
  const values = (schema?.properties as Record<string, { enum?: unknown[] }> | undefined)?.[property]?.enum;
  return Array.isArray(values) ? values : null;
}

function reword(error: ErrorObject, rootSchema: unknown): ErrorDetail {
  const path = error.instancePath;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: `${path}/${String(p.additionalProperty)}`, message: 'is not a known field' };
    case 'required': {
      const allowed = enumOfMissing(rootSchema, error, String(p.missingProperty));
      const message = allowed ? `is required (one of: ${allowed.map(String).join(', ')})` : 'is required';
      return { path: `${path}/${String(p.missingProperty)}`, message };
    }
    case 'type': {
      const types = String(p.type)
        .split(',')
        .map((t) => TYPE_NAMES[t] ?? t);
      return { path, message: `must be ${types.join(' or ')}` };
    }
    case 'enum':
      return { path, message: `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}` };
    case 'maxItems':
      return { path, message: `must have at most ${String(p.limit)} items` };
    case 'minLength':
      return { path, message: Number(p.limit) === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters` };
    case 'maxLength':
      return { path, message: `must be at most ${String(p.limit)} characters` };
    case 'maxProperties':
      return { path, message: `must have at most ${String(p.limit)} keys` };
    case 'pattern':
      return { path, message: PATTERN_MESSAGES[String(p.pattern)] ?? 'has an invalid format' };
    case 'format':
      return { path, message: FORMAT_MESSAGES[String(p.format)] ?? `must be a valid ${String(p.format)}` };
    case 'minimum':
    case 'maximum':
      return { path, message: `must be ${error.keyword === 'minimum' ? '>=' : '<='} ${String(p.limit)}` };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}

/** Problems found by a compiled schema, reworded; empty when the value is valid. */
export function problemsOf(validate: ValidateFunction, value: unknown): ErrorDetail[] {
  if (validate(value)) return [];
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of validate.errors ?? []) {
    // ajv explains a failed `if`/`anyOf` twice; the specific errors are enough.
    if (error.keyword === 'if' || error.keyword === 'anyOf') continue;
    const detail = reword(error, validate.schema);
    const key = `${detail.path}\u0000${detail.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      details.push(detail);
    }
  }
  return details;
}

/** Compiles a schema without wrapping it, for callers that collect problems themselves. */
export const compileBodySchema = (schema: object): ValidateFunction => bodyAjv.compile(schema);
