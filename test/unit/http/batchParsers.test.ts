// Log batches parsed and validated in worker threads: the same answers as validating on the
// main thread, each batch its own, whatever arrives at once.
import { expect } from 'chai';
import { AppError } from '../../../src/errors.js';
import { HttpError } from '../../../src/http/httpError.js';
import { BatchRefused, parseLogBatch } from '../../../src/http/logs/batchParsers.js';
import { validateLogBatch } from '../../../src/http/logs/validateLogBatch.js';

const receivedAt = Date.parse('2026-11-24T12:00:00Z');
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a refusal'),
    (err: unknown) => err,
  );

describe('log batch parser threads', () => {
  it('give the records validation gives on the main thread, generated ids aside', async () => {
    const batch = [
      { agent: ' web-1 ', event: 'http.latency_ms', value: 42.5, occurred_at: '2026-11-24T11:59:00.5+01:00', meta: { path: '/a', ok: true } },
      { event: 'jobs.done', value: -1, log_id: '0196F7A0-3C1E-7000-8000-000000000001' },
      { event: 'emoji 🙂', value: 0, meta: null },
    ];
    const records = await parseLogBatch(JSON.stringify(batch), receivedAt, 250);
    const onMain = validateLogBatch(batch, receivedAt, 250);
    const withoutGenerated = (r: (typeof records)[number]) => (r.clientLogId ? r : { ...r, logId: 'generated' });
    expect(records.map(withoutGenerated)).to.deep.equal(onMain.map(withoutGenerated));
    expect(records[1]!.logId).to.equal('0196f7a0-3c1e-7000-8000-000000000001');
  });

  it('refuse what is not JSON, or poisons prototypes, with 400 invalid_json', async () => {
    for (const text of ['[{"event":', '{"__proto__": {"admin": true}}', ' ']) {
      const err = await refusal(parseLogBatch(text, receivedAt, 250));
      expect(err, text).to.be.instanceOf(HttpError);
      expect((err as HttpError).status).to.equal(400);
      expect((err as HttpError).code).to.equal('invalid_json');
    }
  });

  it('refuse a bad batch with every problem and its record count; no body reads as {}', async () => {
    const err = await refusal(parseLogBatch(JSON.stringify([{ event: 'a', value: 1 }, { event: '', value: '5' }, {}]), receivedAt, 250));
    expect(err).to.be.instanceOf(BatchRefused);
    const { error, recordCount } = err as BatchRefused;
    expect(recordCount).to.equal(3);
    expect(error).to.be.instanceOf(AppError);
    expect(error.code).to.equal('validation_failed');
    expect(error.details.map((d) => d.path)).to.deep.equal(['/1/event', '/1/value', '/2/event', '/2/value']);
    const none = await refusal(parseLogBatch(null, receivedAt, 250));
    expect((none as BatchRefused).error.details).to.deep.equal([{ path: '', message: 'must be an array' }]);
    expect((none as BatchRefused).recordCount).to.equal(0);
  });

  it('answer each of 2,000 batches sent at once with its own records', async () => {
    const answers = await Promise.all(
      Array.from({ length: 2_000 }, (_, b) =>
        parseLogBatch(JSON.stringify(Array.from({ length: 1 + (b % 7) }, (_, i) => ({ event: `e${b}`, value: i }))), receivedAt, 250),
      ),
    );
    answers.forEach((records, b) => {
      expect(records.map((r) => `${r.event}:${r.value}`)).to.deep.equal(Array.from({ length: 1 + (b % 7) }, (_, i) => `e${b}:${i}`));
    });
  });
});
