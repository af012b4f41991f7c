// Inhibition rules as a client writes them, in Alertmanager's configuration form: each side a
// list of matcher texts (`alertname="NodeDown"`, or several in one: `{a="b", c=~"d"}`), parsed
// and checked as a whole so that every bad matcher is named with its path at once; and the
// rules written back in that form, as the API and an exported document show them.
import { AppError, type ErrorDetail } from '../errors.js';
import { MATCHER_ERROR_CODES, MatcherError, type Matcher } from '../matchers/model.js';
import { matcherText, parseMatchers } from '../matchers/parse.js';
import { RegexBudget } from '../matchers/regex.js';
import { ALERT_SOURCE_LIMITS as L, type InhibitRule } from './model.js';

export interface InhibitRuleInput {
  readonly source_matchers: readonly string[];
  readonly target_matchers: readonly string[];
  readonly equal?: readonly string[];
}

const SIDES = ['source_matchers', 'target_matchers'] as const;

/**
 * The rules, parsed. Throws one AppError listing every problem with its path
 * (`/inhibit_rules/2/target_matchers/0`): invalid_matcher or invalid_matcher_regex, the code
 * of the first problem; validation_failed when no matcher is at fault.
 */
export function parseInhibitRules(rules: readonly InhibitRuleInput[], basePath = '/inhibit_rules'): InhibitRule[] {
  const problems: { code: string; detail: ErrorDetail }[] = [];
  // One budget for every regex of the request: what compiling may cost is bounded as a whole.
  const budget = new RegexBudget();
  const parsed = rules.map((rule, i): InhibitRule => {
    const side = (key: (typeof SIDES)[number]): Matcher[] => {
      const known = problems.length;
      const matchers = rule[key].flatMap((text, j) => {
        try {
          return parseMatchers(text, budget);
        } catch (err) {
          if (!(err instanceof MatcherError)) throw err;
          problems.push({ code: err.code, detail: err.at(`${basePath}/${i}/${key}/${j}`).details[0]! });
          return [];
        }
      });
      const { min, max } = L.matchersPerSide;
      // A side whose matchers do not all parse is already named; its count would mislead.
      if (problems.length === known && (matchers.length < min || matchers.length > max)) {
        problems.push({
          code: 'validation_failed',
          detail: { path: `${basePath}/${i}/${key}`, message: `must hold ${min} to ${max} matchers (it holds ${matchers.length})` },
        });
      }
      return matchers;
    };
    return { source_matchers: side('source_matchers'), target_matchers: side('target_matchers'), equal: [...new Set(rule.equal ?? [])] };
  });
  if (problems.length === 0) return parsed;
  const matcherProblem = problems.find((p) => p.code !== 'validation_failed');
  throw new AppError(
    'invalid',
    matcherProblem?.code ?? 'validation_failed',
    matcherProblem === undefined
      ? 'The inhibition rules are invalid; see details.'
      : `An inhibition rule holds a matcher that ${matcherProblem.code === MATCHER_ERROR_CODES.regex ? 'RE2 does not compile' : 'does not parse'}; see details.`,
    problems.map((p) => p.detail),
  );
}

/** The rules as a client writes them: one matcher text per matcher, which parseInhibitRules reads back as they are. */
export function inhibitRulesAsWritten(rules: readonly InhibitRule[]): Required<InhibitRuleInput>[] {
  return rules.map((r) => ({
    source_matchers: r.source_matchers.map(matcherText),
    target_matchers: r.target_matchers.map(matcherText),
    equal: [...r.equal],
  }));
}
