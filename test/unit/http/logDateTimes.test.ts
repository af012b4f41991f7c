// occurred_at as the log validation reads it: the instant Date.parse gives for every form the
// API takes, and a refusal for a date that does not exist, whichever path reads it.
import { expect } from 'chai';
import type { AppError } from '../../../src/errors.js';
import { validateLogBatch } from '../../../src/ingest/intake/validateLogBatch.js';

const receivedAt = Date.parse('2026-03-02T12:00:00Z');
const occurredAt = (text: string) => validateLogBatch([{ event: 'e', value: 1, occurred_at: text }], receivedAt, 250)[0]!.occurredAt;
const problems = (text: string) => {
  try {
    validateLogBatch([{ event: 'e', value: 1, occurred_at: text }], receivedAt, 250);
  } catch (err) {
    return (err as AppError).details.map((d) => d.path);
  }
  return [];
};

describe('log occurred_at', () => {
  it('is the instant Date.parse gives, in UTC with any fraction, or with an offset', () => {
    let state = 7;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    for (let i = 0; i < 2_000; i++) {
      // Within the last 29 days, or up to a day ahead.
      const ms = Math.floor(receivedAt - 29 * 86_400_000 + random() * 30 * 86_400_000);
      const iso = new Date(ms).toISOString();
      const forms = [iso, iso.replace(/\.\d+Z$/, 'Z'), iso.replace(/(\.\d)\d+Z$/, '$1Z'), iso.replace(/(\.\d\d)\dZ$/, '$1Z'), iso.replace('Z', '456789Z')];
      forms.push(iso.replace('T', ' '), iso.replace('Z', 'z'), iso.replace('Z', '+00:00'), new Date(ms + 5_400_000).toISOString().replace('Z', '+01:30'));
      for (const text of forms) expect(occurredAt(text), text).to.equal(Date.parse(text));
      // Text the journal line reuses only where it is toISOString's own.
      for (const text of forms) {
        const record = validateLogBatch([{ event: 'e', value: 1, occurred_at: text }], receivedAt, 250)[0]!;
        expect(record.occurredAtText, text).to.equal(text === iso ? iso : undefined);
      }
    }
  });

  it('is refused when the date or time does not exist', () => {
    for (const text of [
      '2026-02-29T00:00:00Z',
      '2026-02-30T10:00:00.000Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T12:60:00Z',
      '2026-03-01T12:00:60Z',
      '2026-13-01T12:00:00Z',
      '2026-03-01T12:00:00.Z',
      '2026-03-01T12:00:0xZ',
    ]) {
      expect(problems(text), text).to.deep.equal(['/0/occurred_at']);
    }
    expect(occurredAt('2026-03-01T12:00:00Z')).to.equal(Date.parse('2026-03-01T12:00:00Z'));
  });
});
