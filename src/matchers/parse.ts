// The text form of matchers, parsed as Alertmanager's parser (pkg/labels) parses it, which is
// what amtool, Alertmanager's configuration (`source_matchers`) and its API's `filter`
// accept: `name="value"`, `name!="value"`, `name=~"regex"`, `name!~"regex"`, and lists of
// them, comma-separated, optionally in braces: `{a="b", c=~"d"}`. Tolerant as that parser is:
// whitespace around each token, unquoted values (`foo=bar`), a trailing comma. In a quoted
// value `\"` is a quote, `\n` a line feed, `\\` a backslash, and any other backslash itself.
// Beside it, a label name may be quoted (`"service.name"="api"`), as Alertmanager 0.27 and
// later accept, for label names that are not Prometheus identifiers.
import { MATCHER_ERROR_CODES, MATCHER_LIMITS, MatcherError, operatorOf, type Matcher } from './model.js';
import { anchoredRegex, RegexBudget } from './regex.js';

/** Go's `\s` (RE2): tab, line feed, form feed, carriage return, space. */
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
/** A Prometheus label name as the classic parser takes it unquoted. */
const UNQUOTED_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const NAME_START = /[a-zA-Z_:]/;
const NAME_PART = /[a-zA-Z0-9_:]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const OPERATORS = [
  // `=~` before `=`, or the `~` would start the value.
  ['=~', { isRegex: true, isEqual: true }],
  ['=', { isRegex: false, isEqual: true }],
  ['!=', { isRegex: false, isEqual: false }],
  ['!~', { isRegex: true, isEqual: false }],
] as const;

const syntaxError = (reason: string, input: string) => new MatcherError(MATCHER_ERROR_CODES.syntax, reason, input);

/**
 * Zero or more matchers from one text (`{a="b", c=~"d"}`, `a=b,c!=d`, `a="b"`): a leading `{`
 * and a trailing `}` are optional; matchers are separated by commas outside quotes. Throws a
 * MatcherError naming the matcher that does not parse, or whose regex RE2 does not compile.
 */
export function parseMatchers(text: string, budget: RegexBudget = new RegexBudget()): Matcher[] {
  return splitMatchers(text).map((part) => parseMatcher(part, budget));
}

/** The matchers of `text`, each as the text Alertmanager would show it. */
function splitMatchers(text: string): string[] {
  let body = text.startsWith('{') ? text.slice(1) : text;
  if (body.endsWith('}')) body = body.slice(0, -1);
  const parts: string[] = [];
  let insideQuotes = false;
  let escaped = false;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === ',' && !insideQuotes) {
      parts.push(body.slice(start, i));
      start = i + 1;
      continue;
    }
    if (c === '"') {
      if (escaped) escaped = false;
      else insideQuotes = !insideQuotes;
    } else if (c === '\\') escaped = !escaped;
    else escaped = false;
  }
  // Only the last part may be blank (a trailing comma); a blank one between commas does not parse.
  const last = body.slice(start).trim();
  if (last !== '') parts.push(last);
  return parts;
}

/** One matcher from its text (`name="value"`); see parseMatchers. */
export function parseMatcher(text: string, budget: RegexBudget = new RegexBudget()): Matcher {
  let i = 0;
  while (isSpace(text[i])) i++;
  let name: string;
  if (text[i] === '"') {
    const end = closingQuote(text, i + 1);
    if (end < 0) throw syntaxError('bad matcher format', text);
    name = unescaped(text.slice(i + 1, end));
    i = end + 1;
  } else {
    const start = i;
    if (!NAME_START.test(text[i] ?? '')) throw syntaxError('bad matcher format', text);
    while (i < text.length && NAME_PART.test(text[i]!)) i++;
    name = text.slice(start, i);
  }
  while (isSpace(text[i])) i++;
  const operator = OPERATORS.find(([op]) => text.startsWith(op, i));
  if (operator === undefined) throw syntaxError('bad matcher format', text);
  i += operator[0].length;
  while (isSpace(text[i])) i++;
  let end = text.length;
  while (end > i && isSpace(text[end - 1])) end--;
  const value = unquotedValue(text.slice(i, end), text);
  return validMatcher({ name, value, ...operator[1] }, text, budget);
}

/** The index of the first unescaped `"` at or after `from`, or -1. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** A value as written (quoted or not) to the value it stands for. */
function unquotedValue(raw: string, input: string): string {
  const quoted = raw.startsWith('"');
  const inner = quoted ? raw.slice(1) : raw;
  // An unescaped quote may only close a quoted value, as its last character.
  const close = closingQuote(inner, 0);
  if (quoted ? inner.length === 0 || close !== inner.length - 1 : close >= 0) {
    throw syntaxError(`matcher value contains unescaped double quote: ${raw}`, input);
  }
  return unescaped(quoted ? inner.slice(0, -1) : inner);
}

/** OpenMetrics' escapes: `\"`, `\n`, `\\`; any other backslash stands for itself. */
function unescaped(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined) {
      out += next === 'n' ? '\n' : next === '"' || next === '\\' ? next : `\\${next}`;
      i++;
    } else out += c;
  }
  return out;
}

/**
 * A matcher in Alertmanager's API form (`{"name", "value", "isRegex", "isEqual"}`, isEqual
 * true when absent) checked as a parsed one is: the name not empty, the limits, the regex
 * compiled. `input` names it in an error (default: its text form).
 */
export function validMatcher(
  m: { readonly name: string; readonly value: string; readonly isRegex: boolean; readonly isEqual?: boolean },
  input?: string,
  budget: RegexBudget = new RegexBudget(),
): Matcher {
  const matcher: Matcher = { name: m.name, value: m.value, isRegex: m.isRegex, isEqual: m.isEqual ?? true };
  const named = input ?? matcherText(matcher);
  if (matcher.name === '') throw syntaxError('the label name is empty', named);
  if (matcher.name.length > MATCHER_LIMITS.nameLength) throw syntaxError(`a label name may be at most ${MATCHER_LIMITS.nameLength} characters long`, named);
  if (matcher.value.length > MATCHER_LIMITS.valueLength) throw syntaxError(`a value may be at most ${MATCHER_LIMITS.valueLength} characters long`, named);
  if (LONE_SURROGATE.test(matcher.name) || LONE_SURROGATE.test(matcher.value)) throw syntaxError('matcher value not valid UTF-8', named);
  if (matcher.isRegex) anchoredRegex(matcher.value, named, budget);
  return matcher;
}

/** Go's %q-free quoting of a value, as Alertmanager prints it: `"`, `\` and line feeds escaped. */
function quoted(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`;
}

/** The text form of a matcher, as Alertmanager shows it: `name="value"` (the name quoted when it is not an identifier). */
export function matcherText(m: Matcher): string {
  return `${UNQUOTED_NAME.test(m.name) ? m.name : quoted(m.name)}${operatorOf(m)}${quoted(m.value)}`;
}

/** A list of matchers as one text: `{a="b", c=~"d"}`. */
export function matchersText(matchers: readonly Matcher[]): string {
  return `{${matchers.map(matcherText).join(', ')}}`;
}
