// The API's values in words, for everything a person reads: select options, tables, status
// messages, help text. One home: a page that shows an API value (a condition, an aggregate,
// a status, a channel, a weekday…) takes its words from here, and a field or value not
// listed still reads as words (humanizeValue), never as `no_verdict`. No DOM here:
// test/unit/web/ tests it.

type Words = Readonly<Record<string, string>>;

/** Comparison operators as symbols, as rules are written everywhere in the console. */
export const CONDITION_SYMBOLS: Words = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=' };
const CONDITION_OPTIONS: Words = { gt: '> greater than', gte: '≥ at least', lt: '< less than', lte: '≤ at most', eq: '= equal to' };

/** Aggregates by name, lower case (in a sentence): "95th percentile (estimate)". */
export const AGGREGATE_NAMES: Words = {
  sum: 'sum',
  count: 'count',
  average: 'average',
  min: 'minimum',
  max: 'maximum',
  p95_est: '95th percentile (estimate)',
  p99_est: '99th percentile (estimate)',
};

/** The bucket before, or the same bucket a day or a week earlier, of a period ("the same hour a day earlier"). */
export const COMPARISON_WORDS: Readonly<Record<string, (period: string) => string>> = {
  previous_bucket: (period) => `the ${period} before`,
  previous_1d: (period) => `the same ${period} a day earlier`,
  previous_7d: (period) => `the same ${period} 7 days earlier`,
};

export const STATUS_WORDS: Words = { triggered: 'triggered', acknowledged: 'acknowledged', resolved: 'resolved', archived: 'archived' };

/** Channels as named in a sentence ("The webhook destination was created"). */
export const CHANNEL_NAMES: Words = { email: 'email', webhook: 'webhook', slack: 'Slack', discord: 'Discord', telegram: 'Telegram' };

export const DAY_NAMES: Words = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

/** A delivery attempt's status. */
export const DELIVERY_STATUS_WORDS: Words = {
  pending: 'pending',
  delivered: 'delivered',
  failed: 'failed, will retry',
  exhausted: 'failed, gave up',
  silenced: 'silenced, not sent',
  interrupted: 'interrupted, sent again',
  no_one_on_call: 'no one on call, not sent',
};

/** What a notification was about (an attempt's type). */
export const NOTIFICATION_WORDS: Words = {
  'alert.triggered': 'alert raised',
  'alert.resolved': 'alert resolved',
  'alert.reminder': 'reminder',
  'alert.escalated': 'escalation',
  'alert.group': 'grouped alerts',
  test: 'test',
};

/**
 * The option labels of an enum field, by the field's name (the last part of its path). A
 * form may add its own (schemaForm's `words`); a value listed nowhere is humanized.
 */
export const OPTION_WORDS: Readonly<Record<string, Words>> = {
  condition: CONDITION_OPTIONS,
  aggregate: Object.fromEntries(Object.entries(AGGREGATE_NAMES).map(([k, v]) => [k, capitalize(v)])),
  period: { minute: 'Minute', hour: 'Hour', day: 'Day' },
  severity: { info: 'Info', warning: 'Warning', error: 'Error', critical: 'Critical' },
  channel: { email: 'Email', webhook: 'Webhook', slack: 'Slack', discord: 'Discord', telegram: 'Telegram' },
  days: DAY_NAMES,
  status: Object.fromEntries(Object.entries(STATUS_WORDS).map(([k, v]) => [k, capitalize(v)])),
};

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** 'no_verdict' → 'No verdict', 'alert.group' → 'Alert group': a value no list names, as words. */
export function humanizeValue(value: string): string {
  return capitalize(value.replace(/[._]+/g, ' ').trim());
}

/** The label of `value` in a select of the field `name` (e.g. 'condition', 'gt' → '> greater than'). */
export function optionWords(name: string, value: string): string {
  return OPTION_WORDS[name]?.[value] ?? humanizeValue(value);
}

/** API values that may turn up in a text written for the API, and their words. */
const VALUE_WORDS: Words = {
  ...Object.fromEntries(Object.entries(AGGREGATE_NAMES).filter(([k]) => k.includes('_'))),
  no_verdict: 'no verdict',
  previous_bucket: 'the bucket before',
  previous_1d: 'the same bucket a day earlier',
  previous_7d: 'the same bucket 7 days earlier',
  'alert.triggered': 'alert',
  'alert.resolved': 'resolved notification',
  'alert.reminder': 'reminder',
  'alert.escalated': 'escalation',
  'alert.group': 'grouped message',
  starts_at: 'the start',
  ends_at: 'the end',
};

/**
 * An API description made readable, for a field the console has no words of its own for:
 * null is "none", status codes go ("404 otherwise"), a snake_case name is words, and the
 * values listed above are their words. The fields the console knows have their own help
 * (fieldWords.ts); this keeps a field added to the API later from reading like the API.
 */
export function forPeople(text: string): string {
  return text
    .replace(/\s*\((?:\d{3} otherwise|else \d{3}|otherwise \d{3})\)/g, '')
    .replace(/,?\s*\b(?:else|otherwise)\s+\d{3}\b/g, '')
    .replace(/\b\d{3} otherwise\b,?\s*/g, '')
    .replace(/\(default null: ([^)]*)\)/g, '(default: $1)')
    .replace(/\(default ([^():]+)\)/g, '(default: $1)')
    .replace(/\bnull\b/g, 'none')
    .replace(/\bNull\b/g, 'None')
    .replace(/\b[a-z][a-z0-9]*(?:[._][a-z0-9]+)+\b/g, (token) => VALUE_WORDS[token] ?? (token.includes('_') ? token.replace(/_/g, ' ') : token));
}

/**
 * An error message of the API made readable as forPeople makes a description ("must be after
 * starts_at" → "must be after the start"), but for what it quotes: a value the person typed
 * (“pager_main” is taken) stays as typed.
 */
export function messageForPeople(message: string): string {
  return message
    .split(/(“[^”]*”|"[^"]*")/)
    .map((part, i) => (i % 2 === 1 ? part : forPeople(part)))
    .join('');
}
