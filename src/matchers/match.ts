// Matching label sets, as Alertmanager matches them: a missing label is the empty string, a
// regex matches the whole value (RE2, linear time), a list matches when every matcher does.
// Labels are the one label type of alerts (src/labels).
import type { Labels } from '../labels/labels.js';
import type { Matcher } from './model.js';
import { anchoredRegex, RegexBudget } from './regex.js';
import { matcherText } from './parse.js';

/** Whether a label set matches. */
export type LabelPredicate = (labels: Labels) => boolean;

/** One matcher as a predicate on a label value (the empty string for a missing label). */
function valuePredicate(m: Matcher, budget: RegexBudget): (value: string) => boolean {
  if (!m.isRegex) return m.isEqual ? (v) => v === m.value : (v) => v !== m.value;
  const regex = anchoredRegex(m.value, matcherText(m), budget);
  return m.isEqual ? (v) => regex.test(v) : (v) => !regex.test(v);
}

/**
 * The predicate of a list of matchers, all of which must match (an empty list matches
 * everything). Regexes are compiled once here; a stored matcher that no longer compiles
 * (a limit lowered since) throws the MatcherError that naming it would.
 */
export function compileMatchers(matchers: readonly Matcher[], budget: RegexBudget = new RegexBudget()): LabelPredicate {
  const checks = matchers.map((m) => ({ name: m.name, test: valuePredicate(m, budget) }));
  return (labels) => checks.every((c) => c.test(Object.hasOwn(labels, c.name) ? labels[c.name]! : ''));
}

/** Whether the matchers match this label set. */
export function matchesLabels(matchers: readonly Matcher[], labels: Labels): boolean {
  return compileMatchers(matchers)(labels);
}

/** Whether a matcher matches an alert that lacks its label (Alertmanager refuses silences made only of such matchers). */
export function matchesEmpty(m: Matcher): boolean {
  return valuePredicate(m, new RegexBudget())('');
}
