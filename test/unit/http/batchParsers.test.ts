// Log batches parsed, validated and prepared for the journal in worker threads: the same
// answers as on the main thread, each batch its own, whatever arrives at once.
import { expect } from 'chai';
import { AppError } from '../../../src/errors.js';
import { toHttpError } from '../../../src/http/middleware/errorHandler.js';
import { BatchRefused, parseLogBatch } from '../../../src/ingest/intake/batchParsers.js';
import { validateLogBatch } from '../../../src/ingest/intake/validateLogBatch.js';
import { prepareBatch, type PreparedBatch } from '../../../src/ingest/journaledBatch.js';

const WORKSPACE = 'wörkspace';

/** Each record's line of a prepared batch: its client log_id, and its row with day_start 0, as JSON values. */
function linesOf(batch: PreparedBatch): { clientLogId: string; row: unknown[] }[] {
  return Buffer.from(batch.lines)
    .toString('utf8')
    .split('\n')
    .slice(1)
    .map((line) => {
      const [, , clientLogId, row] = line.split('\t');
      return { clientLogId: clientLogId!, row: JSON.parse(`${row},0]`) as unknown[] };
    });
}

const receivedAt = Date.parse('2026-11-24T12:00:00Z');
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a refusal'),
    (err: unknown) => err,
  );

describe('log batch parser threads', () => {
  it('give the batch preparation gives on the main thread, generated ids aside', async () => {
    const batch = [
      { agent: ' web-1 ', event: 'http.latency_ms', value: 42.5, occurred_at: '2026-11-24T11:59:00.5+01:00', meta: { path: '/a', ok: true } },
      { event: 'jobs.done', value: -1, log_id: '0196F7A0-3C1E-7000-8000-000000000001' },
      { event: 'emoji 🙂', value: 0, meta: null },
    ];
    const prepared = await parseLogBatch(Buffer.from(JSON.stringify(batch)), WORKSPACE, receivedAt, 250);
    const onMain = prepareBatch(WORKSPACE, receivedAt, validateLogBatch(batch, receivedAt, 250));
    const withoutGenerated = ({ clientLogId, row }: { clientLogId: string; row: unknown[] }) =>
      clientLogId === '' ? row.map((v, i) => (i === 4 ? 'generated' : v)) : row;
    expect(linesOf(prepared).map(withoutGenerated)).to.deep.equal(linesOf(onMain).map(withoutGenerated));
    expect(prepared.pairs).to.deep.equal(onMain.pairs);
    expect([...prepared.pairOf]).to.deep.equal([0, 1, 2]);
    expect(prepared.clientLogIds).to.deep.equal(['', '0196f7a0-3c1e-7000-8000-000000000001', '']);
    expect(linesOf(prepared)[1]!.row.slice(0, 6)).to.deep.equal([
      WORKSPACE,
      ' '.repeat(36),
      'default',
      'jobs.done',
      '0196f7a0-3c1e-7000-8000-000000000001',
      -1,
    ]);
  });

  it('read the body as the JSON parser does: a byte order mark dropped, a large body moved; malformed UTF-8 refused with 400 invalid_json', async () => {
    const records = Array.from({ length: 250 }, (_, i) => ({ event: 'bytes', value: i, meta: { note: `#${i} ok` } }));
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(records))]);
    const body = new Uint8Array(bytes.length);
    body.set(bytes);
    const prepared = await parseLogBatch(body, WORKSPACE, receivedAt, 250);
    expect(body.byteLength, 'moved to the thread, not copied').to.equal(0);
    const metas = linesOf(prepared).map(({ row }) => JSON.parse(row[8] as string).note);
    expect(metas).to.deep.equal(records.map((r) => r.meta.note));

    // One lone continuation byte in place of a letter: not UTF-8, never stored as U+FFFD.
    const malformed = Buffer.from(JSON.stringify(records));
    malformed[malformed.indexOf('#7 ') + 3] = 0x80;
    const err = await refusal(parseLogBatch(malformed, WORKSPACE, receivedAt, 250));
    // The domain's error (kind invalid), which the HTTP layer answers with 400.
    expect(err).to.be.instanceOf(AppError);
    expect(toHttpError(err)!.status).to.equal(400);
    expect((err as AppError).code).to.equal('invalid_json');
  });

  it('refuse what is not JSON, or poisons prototypes, with 400 invalid_json', async () => {
    for (const text of ['[{"event":', '{"__proto__": {"admin": true}}', ' ']) {
      const err = await refusal(parseLogBatch(Buffer.from(text), WORKSPACE, receivedAt, 250));
      expect(err, text).to.be.instanceOf(AppError);
      expect(toHttpError(err)!.status).to.equal(400);
      expect((err as AppError).code).to.equal('invalid_json');
    }
  });

  it('refuse a bad batch with every problem and its record count; no body reads as {}', async () => {
    const err = await refusal(
      parseLogBatch(Buffer.from(JSON.stringify([{ event: 'a', value: 1 }, { event: '', value: '5' }, {}])), WORKSPACE, receivedAt, 250),
    );
    expect(err).to.be.instanceOf(BatchRefused);
    const { error, recordCount } = err as BatchRefused;
    expect(recordCount).to.equal(3);
    expect(error).to.be.instanceOf(AppError);
    expect(error.code).to.equal('validation_failed');
    expect(error.details.map((d) => d.path)).to.deep.equal(['/1/event', '/1/value', '/2/event', '/2/value']);
    const none = await refusal(parseLogBatch(null, WORKSPACE, receivedAt, 250));
    expect((none as BatchRefused).error.details).to.deep.equal([{ path: '', message: 'must be an array' }]);
    expect((none as BatchRefused).recordCount).to.equal(0);
  });

  it('answer each of 2,000 batches sent at once with its own records', async () => {
    const answers = await Promise.all(
      Array.from({ length: 2_000 }, (_, b) =>
        parseLogBatch(Buffer.from(JSON.stringify(Array.from({ length: 1 + (b % 7) }, (_, i) => ({ event: `e${b}`, value: i })))), WORKSPACE, receivedAt, 250),
      ),
    );
    answers.forEach((batch, b) => {
      expect(linesOf(batch).map(({ row }) => `${row[3]}:${row[5]}`)).to.deep.equal(Array.from({ length: 1 + (b % 7) }, (_, i) => `e${b}:${i}`));
    });
  });
});
