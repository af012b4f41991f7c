// Alertmanager's label matchers (docs/api.md, Matchers): `name="value"`, `name!="value"`,
// `name=~"regex"`, `name!~"regex"`. One shape everywhere, the one Alertmanager's API uses
// (`{"name", "value", "isRegex", "isEqual"}`), so silences, inhibition rules and the
// Alertmanager-compatible routes share it as it is. Nothing here knows alerts or HTTP.
import { AppError } from '../errors.js';

export interface Matcher {
  readonly name: string;
  readonly value: string;
  /** The value is an RE2 regular expression, anchored at both ends. */
  readonly isRegex: boolean;
  /** false: the matcher is negated (`!=`, `!~`). */
  readonly isEqual: boolean;
}

export const MATCHER_LIMITS = {
  nameLength: 1024,
  valueLength: 4096,
  /** A regular expression's length: RE2 compiles in time linear in its program, and the program in its text. */
  regexLength: 1024,
  /** RE2 program size (instructions) of one regular expression. */
  regexProgramSize: 10_000,
  /** RE2 program size compiled for the matchers of one input (a request) together: bounds the time compiling takes. */
  programSizePerInput: 100_000,
} as const;

export const MATCHER_ERROR_CODES = {
  /** The text is not a matcher (or a list of them), or a name or value breaks a limit. */
  syntax: 'invalid_matcher',
  /** The value of a `=~` or `!~` matcher is not a regular expression RE2 compiles, or is too large. */
  regex: 'invalid_matcher_regex',
} as const;

export type MatcherErrorCode = (typeof MATCHER_ERROR_CODES)[keyof typeof MATCHER_ERROR_CODES];

/** A matcher that does not parse or compile: says which (`input`) and why (`reason`), at `path` in the request. */
export class MatcherError extends AppError {
  constructor(
    code: MatcherErrorCode,
    readonly reason: string,
    readonly input: string,
    path = '',
  ) {
    super('invalid', code, `Invalid matcher ${JSON.stringify(clipped(input))}: ${reason}.`, [
      { path, message: `${JSON.stringify(clipped(input))}: ${reason}` },
    ]);
    this.name = 'MatcherError';
  }

  /** The same error, pointing at `path` in the request. */
  at(path: string): MatcherError {
    return new MatcherError(this.code as MatcherErrorCode, this.reason, this.input, path);
  }
}

/** Long inputs are named by their start: an error message stays readable. */
function clipped(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 200)}…`;
}

/** The operator of a matcher, as its text form writes it. */
export function operatorOf(m: Pick<Matcher, 'isRegex' | 'isEqual'>): '=' | '!=' | '=~' | '!~' {
  if (m.isRegex) return m.isEqual ? '=~' : '!~';
  return m.isEqual ? '=' : '!=';
}
