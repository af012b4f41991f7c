import { expect } from 'chai';
import {
  decodeBatch,
  eventIdsIn,
  journalPayload,
  payloadOf,
  payloadOfRecords,
  prepareBatch,
  type LogPair,
  type NewLogRecord,
} from '../../../src/ingest/journaledBatch.js';
import { insertBody, LOG_COLUMNS } from '../../../src/ingest/insertRows.js';
import { localDayStart } from '../../../src/time/localDay.js';

const EVENTS: Record<string, string> = {
  '0190b3c4-0000-7000-8000-000000000001': 'UTC',
  '0190b3c4-0000-7000-8000-000000000002': 'Asia/Kolkata',
  '0190b3c4-0000-7000-8000-000000000003': 'America/Santiago',
};
const EVENT_IDS = Object.keys(EVENTS);
const timezoneOf = (eventId: string) => EVENTS[eventId]!;
/** Events are named `temp.°C/<n>`: the nth event id. */
const eventIdOf = (pair: Pick<LogPair, 'event'>) => EVENT_IDS[Number(pair.event.split('/')[1])]!;

/** Records of agents, events and meta outside ASCII, unless `ascii`. */
function records(count: number, seed: number, ascii = false): NewLogRecord[] {
  const at = Date.UTC(2026, 8, 6, 23, 30);
  return Array.from({ length: count }, (_, i) => ({
    logId: `0190b3c4-0000-7000-8000-${String(seed * 1000 + i).padStart(12, '0')}`,
    clientLogId: i % 4 !== 0,
    agent: i % 2 === 0 ? (ascii ? 'agent "quoted"' : 'ågent "quoted"') : 'default',
    // Runs of one event, then another: the body builder skips lookups within a run.
    event: `${ascii ? 'temp.C' : 'temp.°C'}/${Math.floor((i + seed) / 3) % EVENT_IDS.length}`,
    value: i * 1.5 - 7,
    occurredAt: at + i * 37 * 60_000,
    meta: i % 3 === 0 ? '' : JSON.stringify({ note: ascii ? 'tab\tnewline\n' : 'tab\tnewline\n emoji 🌡', i }),
  }));
}

/** Each line of a payload: its fields, and its row as JSON values (day_start 0). */
function linesOf(payload: Buffer) {
  return decodeBatch(payload).lines.map((line) => {
    const [eventId, occurredAt, clientLogId, row] = line.split('\t');
    return { eventId, occurredAt: Number(occurredAt), clientLogId, row: JSON.parse(`${row},0]`) as unknown[] };
  });
}

describe('journaled batches', () => {
  // Text outside ASCII (the workspace's name in the first, records in the first two) moves
  // offsets by more bytes than characters; the third is all ASCII.
  const workspaceOf = (b: number) => (b === 0 ? `ws-ø-${b}` : `ws-${b}`);
  const batches = [records(40, 1), records(25, 7), records(30, 2, true)].map((rows, b) => ({
    rows,
    payload: payloadOfRecords(workspaceOf(b), 2_000 + b, 1_000 + b, rows, eventIdOf),
  }));

  it('hold each record, its event id filled in, once', () => {
    for (const [b, { rows, payload }] of batches.entries()) {
      expect(decodeBatch(payload)).to.include({ workspaceId: workspaceOf(b), journaledAt: 1_000 + b });
      expect(linesOf(payload)).to.deep.equal(
        rows.map((r) => ({
          eventId: eventIdOf(r),
          occurredAt: r.occurredAt,
          clientLogId: r.clientLogId ? r.logId : '',
          row: [
            workspaceOf(b),
            eventIdOf(r),
            r.agent,
            r.event,
            r.logId,
            r.value,
            new Date(r.occurredAt).toISOString(),
            new Date(2_000 + b).toISOString(),
            r.meta,
            0,
          ],
        })),
      );
    }
  });

  it('keep only the records kept, whatever their order', () => {
    const rows = records(10, 3);
    const batch = prepareBatch('ws', 5, rows);
    const payload = Buffer.concat(journalPayload(batch, batch.pairs.map(eventIdOf), 6, [7, 2, 3]));
    expect(linesOf(payload).map((l) => l.row[4])).to.deep.equal([7, 2, 3].map((i) => rows[i]!.logId));
    const all = prepareBatch('ws', 5, rows);
    const reordered = Buffer.concat(journalPayload(all, all.pairs.map(eventIdOf), 6, [...rows.keys()].reverse()));
    expect(reordered.equals(payloadOfRecords('ws', 5, 6, rows, eventIdOf))).to.equal(true);
  });

  it('turn into insert rows, each with day_start from its event timezone (and no labels without a declaration), byte for byte', () => {
    const expected = batches
      .flatMap(({ payload }) => decodeBatch(payload).lines)
      .map((line) => {
        const [eventId, occurredAt, , row] = line.split('\t');
        return `${row},${localDayStart(timezoneOf(eventId!), Number(occurredAt)) / 1000},{},0]\n`;
      })
      .join('');
    const body = insertBody(
      batches.map((b) => b.payload),
      timezoneOf,
    );
    expect(body.toString('utf8')).to.equal(expected);
    // Every row is a JSON array of the logs columns.
    for (const line of body.toString('utf8').trimEnd().split('\n')) expect(JSON.parse(line)).to.have.length(LOG_COLUMNS.length);
  });

  it('name their events, and survive decoding and encoding again', () => {
    const ids = new Set<string>();
    for (const { payload } of batches) eventIdsIn(payload, ids);
    expect([...ids].sort()).to.deep.equal(EVENT_IDS.slice().sort());
    for (const { payload } of batches) expect(payloadOf(decodeBatch(payload)).equals(payload)).to.equal(true);
  });
});
