// What a silence covers, on the edges the recurring windows and the span have.
import { expect } from 'chai';
import { silenceActiveAt, silenceCovers } from '../../../src/silences/coverage.js';
import type { Recurrence, SilenceRule } from '../../../src/silences/model.js';
import { matchingLabels } from '../../../src/matchers/alertLabels.js';
import { parseMatchers } from '../../../src/matchers/parse.js';

const rule = (recurrence: Recurrence | null, policyIds: string[] | null = null): SilenceRule => ({
  policy_ids: policyIds,
  matchers: null,
  starts_at: new Date('2027-01-01T00:00:00Z'),
  ends_at: new Date('2028-01-01T00:00:00Z'),
  recurrence,
});
const at = (iso: string) => Date.parse(iso);

describe('silence matchers', () => {
  const m = (text: string) => parseMatchers(text);
  const base = { ...rule(null), matchers: m('{alertname="DiskFull", instance=~"db-.*"}') };
  const now = at('2027-06-01T00:00:00Z');
  it('covers an alert when every matcher matches its labels, whatever its policy or source', () => {
    expect(silenceCovers(base, { id: 'src', labels: { alertname: 'DiskFull', instance: 'db-1' } }, now)).to.equal(true);
    expect(silenceCovers(base, { id: 'src', labels: { alertname: 'DiskFull', instance: 'web-1' } }, now)).to.equal(false);
    expect(silenceCovers(base, { id: 'src', labels: { alertname: 'DiskFull' } }, now)).to.equal(false);
  });
  it('with policy_ids too, needs both', () => {
    const both = { ...base, policy_ids: ['p1'] };
    expect(silenceCovers(both, { id: 'p1', labels: { alertname: 'DiskFull', instance: 'db-1' } }, now)).to.equal(true);
    expect(silenceCovers(both, { id: 'p2', labels: { alertname: 'DiskFull', instance: 'db-1' } }, now)).to.equal(false);
  });
  it('matches a policy alert on its labels plus alertname (its title), severity, event, policy_id and agent', () => {
    const labels = matchingLabels({
      labels: { agent: 'web-1', route: '/x' },
      title: 'Slow',
      severity: 'error',
      event: 'http.ms',
      policy_id: 'p1',
      agent: 'web-1',
    });
    expect(labels).to.deep.equal({ agent: 'web-1', route: '/x', alertname: 'Slow', severity: 'error', event: 'http.ms', policy_id: 'p1' });
    expect(matchingLabels({ labels: { alertname: 'X' }, alert_source_id: 's', title: 'Other' })).to.deep.equal({ alertname: 'X' });
    const silence = { ...rule(null), matchers: m('alertname="Slow"') };
    expect(silenceCovers(silence, { id: 'p1', labels }, now)).to.equal(true);
  });
});

describe('silence coverage', () => {
  it('covers [starts_at, ends_at) and only the policies it names', () => {
    const s = rule(null, ['p1']);
    expect(silenceCovers(s, { id: 'p1', labels: {} }, at('2026-12-31T23:59:59Z'))).to.equal(false);
    expect(silenceCovers(s, { id: 'p1', labels: {} }, at('2027-01-01T00:00:00Z'))).to.equal(true);
    expect(silenceCovers(s, { id: 'p2', labels: {} }, at('2027-01-01T00:00:00Z'))).to.equal(false);
    expect(silenceCovers(s, { id: 'p1', labels: {} }, at('2028-01-01T00:00:00Z'))).to.equal(false);
    expect(silenceCovers(rule(null), { id: 'any', labels: {} }, at('2027-06-01T00:00:00Z'))).to.equal(true);
  });

  it('starts a window that begins in the skipped hour when the clock reaches a later time', () => {
    // Europe/Berlin, 2027-03-28: 02:00 CET jumps to 03:00 CEST; 02:30 never happens.
    const s = rule({ timezone: 'Europe/Berlin', days: ['sun'], start: '02:30', end: '04:00' });
    expect(silenceActiveAt(s, at('2027-03-28T00:59:00Z'))).to.equal(false); // 01:59 CET
    expect(silenceActiveAt(s, at('2027-03-28T01:00:00Z'))).to.equal(true); // 03:00 CEST
    expect(silenceActiveAt(s, at('2027-03-28T01:59:00Z'))).to.equal(true); // 03:59 CEST
    expect(silenceActiveAt(s, at('2027-03-28T02:00:00Z'))).to.equal(false); // 04:00 CEST
  });

  it('covers a whole local day with 00:00–24:00, and a window ending at 00:00 until midnight', () => {
    const whole = rule({ timezone: 'Asia/Kolkata', days: ['wed'], start: '00:00', end: '24:00' });
    expect(silenceActiveAt(whole, at('2027-01-05T18:29:00Z'))).to.equal(false); // Tue 23:59 IST
    expect(silenceActiveAt(whole, at('2027-01-05T18:30:00Z'))).to.equal(true); // Wed 00:00 IST
    expect(silenceActiveAt(whole, at('2027-01-06T18:29:00Z'))).to.equal(true); // Wed 23:59 IST
    expect(silenceActiveAt(whole, at('2027-01-06T18:30:00Z'))).to.equal(false); // Thu 00:00 IST
    const evening = rule({ timezone: 'UTC', days: ['wed'], start: '22:00', end: '00:00' });
    expect(silenceActiveAt(evening, at('2027-01-06T23:59:00Z'))).to.equal(true);
    expect(silenceActiveAt(evening, at('2027-01-07T00:00:00Z'))).to.equal(false);
  });

  it('keeps a recurring window inside the span', () => {
    const s = { ...rule({ timezone: 'UTC', days: ['fri'], start: '22:00', end: '06:00' }), ends_at: new Date('2027-01-09T02:00:00Z') };
    expect(silenceActiveAt(s, at('2027-01-09T01:59:00Z'))).to.equal(true);
    expect(silenceActiveAt(s, at('2027-01-09T02:00:00Z'))).to.equal(false);
  });
});
