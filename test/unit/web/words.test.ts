import { expect } from 'chai';
import { alertValueText, ruleDetails, ruleText } from '../../../web/console/rules.js';
import { forPeople, humanizeValue, messageForPeople, optionWords } from '../../../web/console/words.js';

describe('console words for API values', () => {
  it('writes a rule with its operator as a symbol and its aggregate by name', () => {
    expect(ruleText({ aggregate: 'max', condition: 'gt', threshold: 500, period: 'minute' })).to.equal('maximum > 500 per minute');
    expect(ruleText({ aggregate: 'p95_est', condition: 'gte', threshold: 1250.5, period: 'hour' })).to.equal('95th percentile (estimate) ≥ 1,250.5 per hour');
    expect(['lt', 'lte', 'eq'].map((condition) => ruleText({ aggregate: 'p99_est', condition, threshold: 0, period: 'day' }))).to.deep.equal([
      '99th percentile (estimate) < 0 per day',
      '99th percentile (estimate) ≤ 0 per day',
      '99th percentile (estimate) = 0 per day',
    ]);
    // An alert carries its policy's rule: the same words.
    expect(ruleText({ aggregate: 'count', condition: 'lte', threshold: 100, period: 'hour', compare_to: 'previous_1d' })).to.equal(
      'count change ≤ 100 % per hour, against the same hour a day earlier',
    );
    // A value added to the API later still reads as words.
    expect(ruleText({ aggregate: 'p50_est', condition: 'ne', threshold: 1, period: 'minute', compare_to: 'previous_30d' })).to.equal(
      'p50 est change ne 1 % per minute, against previous 30d',
    );
  });

  it('lists the options that change when a rule raises or resolves, and none at their defaults', () => {
    const rule = { aggregate: 'average', condition: 'gt', threshold: 1, period: 'hour' };
    expect(ruleDetails({ ...rule, pending_buckets: 1, recovery_threshold: null, no_data: 'no_verdict', min_count: 0, renotify_minutes: null })).to.deep.equal(
      [],
    );
    expect(ruleDetails({ ...rule, pending_buckets: 3, recovery_threshold: 0.5, no_data: 'breach', min_count: 10, renotify_minutes: 30 })).to.deep.equal([
      'after 3 breaching hours in a row',
      'resolves only past 0.5',
      'a bucket without logs breaches',
      'judged only on a hour with 10 logs or more',
      'a reminder every 30 minutes',
    ]);
  });

  it("writes an alert's value with its unit, or as a change", () => {
    expect(alertValueText({ value: 1532.25 }, 'ms')).to.equal('1,532 ms');
    expect(alertValueText({ value: 12.5, compare_to: 'previous_bucket' }, 'ms')).to.equal('+12.5 %');
    expect(alertValueText({ value: null })).to.equal('no data');
  });

  it('labels options in words, and humanizes a value no list names', () => {
    expect(optionWords('condition', 'gte')).to.equal('≥ at least');
    expect(optionWords('aggregate', 'p95_est')).to.equal('95th percentile (estimate)');
    expect(optionWords('days', 'wed')).to.equal('Wednesday');
    expect(optionWords('no_data', 'no_verdict')).to.equal('No verdict');
    expect(humanizeValue('alert.group')).to.equal('Alert group');
  });

  it('makes an API description readable: null is none, status codes go, API names are words', () => {
    expect(forPeople('Hysteresis (default null): resolves past this.')).to.equal('Hysteresis (default: none): resolves past this.');
    expect(forPeople('An escalation policy of the workspace (404 otherwise): pages (default null: none).')).to.equal(
      'An escalation policy of the workspace: pages (default: none).',
    );
    expect(forPeople('For average, p95_est and p99_est (default no_verdict).')).to.equal(
      'For average, 95th percentile (estimate) and 99th percentile (estimate) (default: no verdict).',
    );
    expect(forPeople('a reminder (alert.reminder) per policy_ids; Null or empty: built in')).to.equal(
      'a reminder (reminder) per policy ids; None or empty: built in',
    );
    // Host names and e.g. stay as written.
    expect(forPeople('e.g. hooks.slack.com')).to.equal('e.g. hooks.slack.com');
  });

  it('writes an API error message in words, but for the values it quotes', () => {
    expect(messageForPeople('must be after starts_at')).to.equal('must be after the start');
    expect(messageForPeople('must be null or absent for telegram (the chat is credentials.chat_id)')).to.equal(
      'must be none or absent for telegram (the chat is credentials.chat id)',
    );
    expect(messageForPeople('“pager_main” is taken by another destination_id')).to.equal('“pager_main” is taken by another destination id');
    expect(messageForPeople('"my_key" must be 1–64 characters, not null')).to.equal('"my_key" must be 1–64 characters, not none');
  });
});
