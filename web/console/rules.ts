// A policy's rule in words, the one way every page writes it (the policy list, the alert list
// and an alert's detail, a preview): "maximum > 500 per minute", "count change ≤ 100 % per
// hour, against the same hour a day earlier". An alert carries its policy's rule fields, so
// the same function writes both. No DOM here: test/unit/web/ tests it.
import { formatNumber } from '../shared/rollups.js';
import { AGGREGATE_NAMES, COMPARISON_WORDS, CONDITION_SYMBOLS, humanizeValue } from './words.js';

export interface Rule {
  readonly aggregate: string;
  readonly condition: string;
  readonly threshold: number;
  readonly period: string;
  readonly compare_to?: string | null;
}

/** The rule's options beyond the condition, where set. */
export interface RuleOptions {
  readonly pending_buckets?: number;
  readonly recovery_threshold?: number | null;
  readonly no_data?: string;
  readonly min_count?: number;
  readonly renotify_minutes?: number | null;
}

/** A rule's own figures exactly as set (1,250.5, not 1,251). */
const exact = new Intl.NumberFormat('en', { maximumFractionDigits: 10 });
const figure = (n: number) => (Number.isFinite(n) ? exact.format(n) : formatNumber(n));

const aggregateName = (a: string) => AGGREGATE_NAMES[a] ?? humanizeValue(a).toLowerCase();
const symbol = (c: string) => CONDITION_SYMBOLS[c] ?? humanizeValue(c).toLowerCase();

/** "maximum > 500 per minute"; with a comparison, "average change ≥ 20 % per hour, against the hour before". */
export function ruleText(rule: Rule): string {
  if (rule.compare_to) {
    const against = COMPARISON_WORDS[rule.compare_to]?.(rule.period) ?? humanizeValue(rule.compare_to).toLowerCase();
    return `${aggregateName(rule.aggregate)} change ${symbol(rule.condition)} ${figure(rule.threshold)} % per ${rule.period}, against ${against}`;
  }
  return `${aggregateName(rule.aggregate)} ${symbol(rule.condition)} ${figure(rule.threshold)} per ${rule.period}`;
}

const NO_DATA_DETAILS: Readonly<Record<string, string>> = {
  breach: 'a bucket without logs breaches',
  ok: 'a bucket without logs is fine',
};

/** The options that change when the rule raises or resolves, in words ("after 2 breaching hours in a row"); none when all are at their defaults. */
export function ruleDetails(rule: Rule & RuleOptions): string[] {
  const details: string[] = [];
  if ((rule.pending_buckets ?? 1) > 1) details.push(`after ${rule.pending_buckets} breaching ${rule.period}s in a row`);
  if (rule.recovery_threshold !== null && rule.recovery_threshold !== undefined)
    details.push(`resolves only past ${figure(rule.recovery_threshold)}${rule.compare_to ? ' %' : ''}`);
  if (rule.no_data && NO_DATA_DETAILS[rule.no_data]) details.push(NO_DATA_DETAILS[rule.no_data]!);
  if ((rule.min_count ?? 0) > 0) details.push(`judged only on a ${rule.period} with ${rule.min_count} logs or more`);
  if (rule.renotify_minutes) details.push(`a reminder every ${rule.renotify_minutes} minutes`);
  return details;
}

/** What an alert compared with its threshold: "600 ms", or with a comparison "+12.5 %"; "no data" when there was none. */
export function alertValueText(alert: { readonly value: number | null; readonly compare_to?: string | null }, unit = ''): string {
  if (alert.value === null || alert.value === undefined) return 'no data';
  if (alert.compare_to) return `${alert.value > 0 ? '+' : ''}${formatNumber(alert.value)} %`;
  return `${formatNumber(alert.value)}${unit ? ` ${unit}` : ''}`;
}
