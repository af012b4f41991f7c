// Regular expressions of matchers, with RE2's semantics as Alertmanager has them (Go's
// regexp, which is RE2): anchored at both ends, and matched in time linear in the input, so
// no pattern (`(a+)+$`) can hang a request or a worker. re2js is RE2 ported to JavaScript:
// nothing native to build. Compiling is linear in the program, and the program can grow far
// beyond its text (`[a-z]{1000}` is 1,000 instructions): each program and the programs one
// input compiles together are bounded (MATCHER_LIMITS).
import { RE2JS, RE2JSException } from 're2js';
import { MATCHER_ERROR_CODES, MATCHER_LIMITS, MatcherError } from './model.js';

/** Program size still allowed for the matchers of one input; shared by every regex that input compiles. */
export class RegexBudget {
  constructor(public remaining: number = MATCHER_LIMITS.programSizePerInput) {}
}

export interface AnchoredRegex {
  /** Whether the whole of `text` matches. */
  test(text: string): boolean;
}

/** Compiled patterns by text, least recently used first: silences and rules are matched again and again. */
const compiled = new Map<string, AnchoredRegex>();
const CACHE_SIZE = 1000;

function remembered(pattern: string): AnchoredRegex | undefined {
  const hit = compiled.get(pattern);
  if (hit !== undefined) {
    compiled.delete(pattern);
    compiled.set(pattern, hit);
  }
  return hit;
}

function remember(pattern: string, regex: AnchoredRegex): void {
  compiled.set(pattern, regex);
  if (compiled.size > CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
}

const regexError = (reason: string, input: string) => new MatcherError(MATCHER_ERROR_CODES.regex, reason, input);

/**
 * `pattern` compiled as Alertmanager compiles a matcher's regex: `^(?:pattern)$`. Throws a
 * MatcherError (invalid_matcher_regex) naming `input` when RE2 refuses it or it is too large;
 * a pattern compiled before costs `budget` nothing.
 */
export function anchoredRegex(pattern: string, input: string, budget: RegexBudget = new RegexBudget()): AnchoredRegex {
  const known = remembered(pattern);
  if (known !== undefined) return known;
  if (pattern.length > MATCHER_LIMITS.regexLength) throw regexError(`a regular expression may be at most ${MATCHER_LIMITS.regexLength} characters long`, input);
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?:${pattern})$`);
  } catch (err) {
    if (err instanceof RE2JSException) throw regexError(err.message, input);
    throw err;
  }
  const size = re.programSize();
  if (size > MATCHER_LIMITS.regexProgramSize) {
    throw regexError(`the regular expression is too large (${size} RE2 instructions, at most ${MATCHER_LIMITS.regexProgramSize})`, input);
  }
  budget.remaining -= size;
  if (budget.remaining < 0) {
    throw regexError(`the regular expressions of this input are too large together (at most ${MATCHER_LIMITS.programSizePerInput} RE2 instructions)`, input);
  }
  // test() searches, as Go's MatchString does: the anchors written above do the anchoring, so
  // a pattern such as `a)|(b` means what it means to Alertmanager.
  const regex: AnchoredRegex = { test: (text) => re.test(text) };
  remember(pattern, regex);
  return regex;
}
