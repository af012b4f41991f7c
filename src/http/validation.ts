// JSON Schema (ajv, compiled and its errors reworded in src/validation/jsonSchema.ts) is the
// one source of truth for request validation. Every validator also refuses text no store can
// keep (NUL, lone surrogates; src/validation/textRules.ts) in any string or key of the input,
// and any number that is not finite, so no schema has to say it.
import { validationFailed, type ErrorDetail } from '../errors.js';
import { bodyAjv, problemsOf, queryAjv } from '../validation/jsonSchema.js';
import { nonFiniteNumberProblems, textProblems } from '../validation/textRules.js';
import type { Ajv, ValidateFunction } from 'ajv';

export { compileBodySchema, PATTERNS } from '../validation/jsonSchema.js';

export type Validator<T> = (value: unknown) => T;

/**
 * Every problem of an input: its schema's (a compiled ajv function), its numbers that are not
 * finite and its text no store can keep. The non-finite numbers are checked after ajv: its
 * coercion turns the query text "1e400" into Infinity, which its own type, minimum and maximum
 * checks then pass (they skip non-finite numbers); such a number's problem replaces what ajv
 * said at the same path.
 */
export function inputProblems(validate: ValidateFunction, value: unknown): ErrorDetail[] {
  const nonFinite = nonFiniteNumberProblems(value);
  const nonFinitePaths = new Set(nonFinite.map((d) => d.path));
  return [...problemsOf(validate, value).filter((d) => !nonFinitePaths.has(d.path)), ...nonFinite, ...textProblems(value)];
}

function validatorFrom<T>(ajv: Ajv, schema: object, message?: (details: readonly ErrorDetail[]) => string): Validator<T> {
  const validate = ajv.compile(schema);
  return (value) => {
    const details = inputProblems(validate, value);
    if (details.length > 0) throw validationFailed(details, message?.(details));
    return value as T;
  };
}

/**
 * The body of a route that takes none (lifecycle actions, rotations, test sends): nothing, or
 * an empty object, which clients often send; anything else is 400, so a misplaced field is not
 * ignored silently.
 */
export const emptyBodySchema = { type: 'object', additionalProperties: false, properties: {}, description: 'No body, or {}.' } as const;

/** Validates a parsed JSON body; throws 400 validation_failed listing every problem. */
export const bodyValidator = <T>(schema: object): Validator<T> => validatorFrom<T>(bodyAjv, schema);

/** A query has few parameters: its message names each problem, e.g. "period must be one of: 1h, 1d". */
export const queryMessage = (details: readonly ErrorDetail[]) =>
  `Invalid query: ${details.map((d) => `${d.path.replace(/^\//, '') || 'query'} ${d.message}`).join('; ')}.`;

const PLAIN_INTEGER = /^-?[0-9]+$/;
const PLAIN_DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * The query parameters a schema types as numbers, and the text each must be: ajv's coercion
 * reads text as JavaScript does ("0x10" is 16, "1e1" is 10, " 2" is 2), which no client means.
 */
function numberTexts(schema: object): Map<string, RegExp> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const texts = new Map<string, RegExp>();
  for (const [name, property] of Object.entries(properties)) {
    const types = ([] as unknown[]).concat(property.type);
    if (types.includes('integer')) texts.set(name, PLAIN_INTEGER);
    else if (types.includes('number')) texts.set(name, PLAIN_DECIMAL);
  }
  return texts;
}

/** Validates (and coerces) a query-string object such as ctx.query; numbers only as plain decimal digits. */
export function queryValidator<T>(schema: object): Validator<T> {
  const validate = validatorFrom<T>(queryAjv, schema, queryMessage);
  const texts = numberTexts(schema);
  return (value) => {
    const query = value as Record<string, unknown>;
    const details: ErrorDetail[] = [];
    for (const [name, text] of texts) {
      const given = query[name];
      if (typeof given === 'string' && !text.test(given)) {
        details.push({ path: `/${name}`, message: `must be ${text === PLAIN_INTEGER ? 'an integer' : 'a number'} in plain decimal digits` });
      }
    }
    if (details.length > 0) throw validationFailed(details, queryMessage(details));
    return validate(value);
  };
}
