// A silence's matchers as clients write them: /v1.0/silences takes matcher texts
// (`alertname="DiskFull"`, or several in one: `{a="b", c=~"d"}`), an alert source's
// Alertmanager API takes Alertmanager's objects ({"name", "value", "isRegex", "isEqual"}).
// Every bad matcher is named with its path at once.
import { AppError, type ErrorDetail } from '../errors.js';
import { MATCHER_ERROR_CODES, MatcherError, type Matcher } from '../matchers/model.js';
import { parseMatchers, validMatcher } from '../matchers/parse.js';
import { RegexBudget } from '../matchers/regex.js';

type ApiMatcher = { readonly name: string; readonly value: string; readonly isRegex: boolean; readonly isEqual?: boolean };

function checked<T>(items: readonly T[], one: (item: T, budget: RegexBudget) => Matcher[], basePath: string): Matcher[] {
  const problems: { code: string; detail: ErrorDetail }[] = [];
  const budget = new RegexBudget();
  const matchers = items.flatMap((item, i) => {
    try {
      return one(item, budget);
    } catch (err) {
      if (!(err instanceof MatcherError)) throw err;
      problems.push({ code: err.code, detail: err.at(`${basePath}/${i}`).details[0]! });
      return [];
    }
  });
  if (problems.length === 0) return matchers;
  const code = problems[0]!.code;
  throw new AppError(
    'invalid',
    code,
    `The silence holds a matcher that ${code === MATCHER_ERROR_CODES.regex ? 'RE2 does not compile' : 'does not parse'}; see details.`,
    problems.map((p) => p.detail),
  );
}

/** Matcher texts, parsed; null stays null (no matchers). */
export function parseSilenceMatchers(texts: readonly string[] | null, basePath = '/matchers'): Matcher[] | null {
  return texts === null ? null : checked(texts, (text, budget) => parseMatchers(text, budget), basePath);
}

/** Alertmanager's matcher objects, checked. */
export function checkApiMatchers(matchers: readonly ApiMatcher[], basePath = '/matchers'): Matcher[] {
  return checked(matchers, (m, budget) => [validMatcher(m, undefined, budget)], basePath);
}
