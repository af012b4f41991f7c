import { expect } from 'chai';
import { decodeBatch, encodeBatch, eventIdsIn, insertBody, payloadOf, type JournaledRecord } from '../../../src/ingest/journaledBatch.js';
import { localDayStart } from '../../../src/time/localDay.js';

const EVENTS: Record<string, string> = {
  '0190b3c4-0000-7000-8000-000000000001': 'UTC',
  '0190b3c4-0000-7000-8000-000000000002': 'Asia/Kolkata',
  '0190b3c4-0000-7000-8000-000000000003': 'America/Santiago',
};
const timezoneOf = (eventId: string) => EVENTS[eventId]!;

function records(count: number, seed: number): JournaledRecord[] {
  const ids = Object.keys(EVENTS);
  const at = Date.UTC(2026, 8, 6, 23, 30);
  return Array.from({ length: count }, (_, i) => ({
    // Runs of one event, then another: the body builder skips lookups within a run.
    eventId: ids[Math.floor((i + seed) / 3) % ids.length]!,
    record: {
      logId: `0190b3c4-0000-7000-8000-${String(seed * 1000 + i).padStart(12, '0')}`,
      clientLogId: i % 4 !== 0,
      agent: i % 2 === 0 ? 'ågent "quoted"' : 'default',
      event: 'temp.°C',
      value: i * 1.5 - 7,
      occurredAt: at + i * 37 * 60_000,
      meta: i % 3 === 0 ? '' : JSON.stringify({ note: 'tab\tnewline\n emoji 🌡', i }),
    },
  }));
}

describe('journaled batches', () => {
  const batches = [records(40, 1), records(25, 7)].map((rows, b) => ({ rows, payload: encodeBatch(`ws-${b}`, 1_000 + b, 2_000 + b, rows) }));

  it('turn into insert rows, each with day_start from its event timezone, byte for byte', () => {
    const expected = batches
      .flatMap(({ payload }) => decodeBatch(payload).lines)
      .map((line) => {
        const [eventId, occurredAt, , row] = line.split('\t');
        return `${row},${localDayStart(timezoneOf(eventId!), Number(occurredAt)) / 1000}]\n`;
      })
      .join('');
    const body = insertBody(
      batches.map((b) => b.payload),
      timezoneOf,
    );
    expect(body.toString('utf8')).to.equal(expected);
    // Every row is a JSON array of the logs columns.
    for (const line of body.toString('utf8').trimEnd().split('\n')) expect(JSON.parse(line)).to.have.length(10);
  });

  it('name their events, and survive decoding and encoding again', () => {
    const ids = new Set<string>();
    for (const { payload } of batches) eventIdsIn(payload, ids);
    expect([...ids].sort()).to.deep.equal(Object.keys(EVENTS).sort());
    for (const { payload } of batches) expect(payloadOf(decodeBatch(payload)).equals(payload)).to.equal(true);
  });
});
