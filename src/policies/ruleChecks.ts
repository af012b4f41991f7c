// The checks a policy's rule must pass as a whole, beyond each field's own type and range
// (those are in the API schema): they look at several fields together, so a PUT is checked
// on the policy it would leave, not on the changed fields alone.
import type { ErrorDetail } from '../errors.js';
import type { PolicyRule } from './model.js';

export type RuleFields = Pick<PolicyRule, 'period' | 'condition' | 'threshold' | 'recovery_threshold' | 'compare_to'>;

export function ruleProblems(rule: RuleFields): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  // JSON cannot carry NaN or Infinity, but 1e999 parses to Infinity.
  if (!Number.isFinite(rule.threshold)) problems.push({ path: '/threshold', message: 'must be a finite number' });
  const recovery = rule.recovery_threshold;
  if (recovery !== null) {
    if (!Number.isFinite(recovery)) problems.push({ path: '/recovery_threshold', message: 'must be a finite number or null' });
    else if (rule.condition === 'eq')
      problems.push({ path: '/recovery_threshold', message: 'is not allowed with condition eq (there is no side to recover to)' });
    else if ((rule.condition === 'gt' || rule.condition === 'gte') && recovery > rule.threshold) {
      problems.push({ path: '/recovery_threshold', message: `must be at most the threshold (${rule.threshold}) for condition ${rule.condition}` });
    } else if ((rule.condition === 'lt' || rule.condition === 'lte') && recovery < rule.threshold) {
      problems.push({ path: '/recovery_threshold', message: `must be at least the threshold (${rule.threshold}) for condition ${rule.condition}` });
    }
  }
  if (rule.compare_to === 'previous_1d' && rule.period === 'day') {
    problems.push({ path: '/compare_to', message: 'previous_1d cannot apply to a day period (the day before is previous_bucket)' });
  }
  return problems;
}
