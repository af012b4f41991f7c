// The write-ahead journal on a real disk: what it recovers after a crash, what it cuts off
// (a torn write at the end, never acknowledged), what it reports loudly (damage anywhere
// else) and its size cap.
import { expect } from 'chai';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeFrame, FrameTooLargeError, MAX_PAYLOAD_BYTES } from '../../../src/ingest/journal/frames.js';
import { Journal, JournalFullError, type JournalOptions } from '../../../src/ingest/journal/journal.js';
import { createMetrics } from '../../../src/metrics.js';
import { capturingLogger } from '../../helpers/logCapture.js';
import { testRoot } from '../../helpers/stores.js';

/** Payloads here are "<records>:<text>". */
const summarise = (payload: Buffer) => ({ records: Number(payload.toString().split(':')[0]), journaledAt: 1 });
const payload = (records: number, text: string) => Buffer.from(`${records}:${text}`);

async function openJournal(dir: string, overrides: Partial<JournalOptions> = {}) {
  const { logger, lines } = capturingLogger();
  const metrics = createMetrics();
  const journal = await Journal.open({ dir, maxBytes: 1024 ** 2, segmentBytes: 1024 ** 2, logger, metrics, ...overrides }, summarise);
  return { journal, lines, metrics };
}

/** Every payload the journal holds, consumed block by block as the writer does. */
async function drain(journal: Journal): Promise<string[]> {
  const all: string[] = [];
  for (let frames = journal.nextFrames(Infinity, Infinity); frames.length > 0; frames = journal.nextFrames(Infinity, Infinity)) {
    all.push(...(await journal.read(frames)).map((p) => p.toString()));
    await journal.consumed(frames);
  }
  return all;
}

const segments = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith('.seg'))
    .sort();

describe('ingest journal', function () {
  this.timeout(30_000);

  it('gives back after a restart every frame it acknowledged, with its record count', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const first = await openJournal(dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => first.journal.append([payload(i + 1, `batch ${i}`)], i + 1, 1)));
    await first.journal.close();
    const second = await openJournal(dir);
    expect(second.journal.backlog.records).to.equal((20 * 21) / 2);
    const frames = second.journal.nextFrames(Infinity, Infinity);
    expect((await second.journal.read(frames)).map((p) => p.toString().split(':')[1])).to.have.members(Array.from({ length: 20 }, (_, i) => `batch ${i}`));
    await second.journal.close();
  });

  it('cuts off a torn write at the end of the newest segment and appends after it in a new one', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const first = await openJournal(dir);
    for (const text of ['a', 'b', 'c']) await first.journal.append([payload(1, text)], 1, 1);
    await first.journal.close();
    const [segment] = segments(dir);
    const file = path.join(dir, segment!);
    const goodSize = statSync(file).size;
    // A crash in the middle of a write: half a frame.
    appendFileSync(file, encodeFrame([payload(1, 'never acknowledged')]).subarray(0, 15));

    const second = await openJournal(dir);
    expect(statSync(file).size).to.equal(goodSize);
    expect(await drain(second.journal)).to.deep.equal(['1:a', '1:b', '1:c']);
    expect(second.lines.join('')).to.include('torn write');
    await second.journal.append([payload(1, 'd')], 1, 1);
    await second.journal.close();
    // Consumed frames are gone with their segment (the writer's checkpoint says so too).

    const third = await openJournal(dir);
    expect(await drain(third.journal)).to.deep.equal(['1:d']);
    expect(third.lines.join('')).not.to.include('torn');
    await third.journal.close();
  });

  it('reports damage in the middle loudly, keeps the bytes, and recovers the frames after it', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const first = await openJournal(dir);
    for (const text of ['first', 'second', 'third']) await first.journal.append([payload(2, text)], 2, 1);
    await first.journal.close();
    const file = path.join(dir, segments(dir)[0]!);
    const bytes = readFileSync(file);
    const second = bytes.indexOf('second');
    bytes.write('SECOND', second); // the checksum no longer matches
    writeFileSync(file, bytes);

    const reopened = await openJournal(dir);
    expect(await drain(reopened.journal)).to.deep.equal(['2:first', '2:third']);
    const errors = reopened.lines.filter((l) => l.includes('"level":"error"'));
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include('DAMAGED DATA');
    expect(readdirSync(path.join(dir, 'damaged'))).to.have.length(1);
    expect(await reopened.metrics.registry.getSingleMetricAsString('alertmon_journal_damaged_bytes_total')).to.match(/ [1-9]\d*$/m);
    await reopened.journal.close();
  });

  it('reports a complete last frame whose checksum fails as damage, not as a torn write', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const first = await openJournal(dir);
    for (const text of ['one', 'two', 'three']) await first.journal.append([payload(1, text)], 1, 1);
    await first.journal.close();
    const file = path.join(dir, segments(dir)[0]!);
    const bytes = readFileSync(file);
    bytes.write('THREE', bytes.lastIndexOf('three')); // written whole (acknowledged), changed since
    writeFileSync(file, bytes);

    const reopened = await openJournal(dir);
    expect(await drain(reopened.journal)).to.deep.equal(['1:one', '1:two']);
    expect(reopened.lines.join('')).not.to.include('torn write');
    expect(reopened.lines.filter((l) => l.includes('"level":"error"')).join('')).to.include('DAMAGED DATA');
    expect(readdirSync(path.join(dir, 'damaged'))).to.have.length(1);
    await reopened.journal.append([payload(1, 'four')], 1, 1);
    expect(await drain(reopened.journal)).to.deep.equal(['1:four']);
    await reopened.journal.close();
  });

  it('sets aside a frame changed on disk after its append, counts it, and reads the frames after it (no stall)', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const { journal, lines, metrics } = await openJournal(dir);
    for (const text of ['alpha', 'bravo', 'charlie']) await journal.append([payload(3, text)], 3, 1);
    // Changed under the running journal: what a bad disk, or a frame beyond the bound, gives the reader.
    const file = path.join(dir, segments(dir).at(-1)!);
    const bytes = readFileSync(file);
    bytes.write('BRAVO', bytes.indexOf('bravo'));
    writeFileSync(file, bytes);

    expect(await drain(journal)).to.deep.equal(['3:alpha', '3:charlie']);
    expect(journal.backlog.records).to.equal(0);
    expect(await metrics.registry.getSingleMetricAsString('alertmon_journal_quarantined_frames_total')).to.match(/ 1$/m);
    expect(await metrics.registry.getSingleMetricAsString('alertmon_journal_quarantined_records_total')).to.match(/ 3$/m);
    const [kept] = readdirSync(path.join(dir, 'damaged'));
    expect(readFileSync(path.join(dir, 'damaged', kept!)).toString()).to.include('3:BRAVO');
    expect(lines.filter((l) => l.includes('"level":"error"')).join('')).to.include('DAMAGED DATA');
    await journal.append([payload(1, 'delta')], 1, 1);
    expect(await drain(journal)).to.deep.equal(['1:delta']);
    await journal.close();
  });

  it("appends a request's frames together, all or none, and refuses one frame beyond the bound before appending any", async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const { journal } = await openJournal(dir, { maxBytes: 64 * 1024 ** 2 });
    await journal.appendFrames(
      ['a', 'b', 'c'].map((t) => ({ parts: [payload(2, t)], records: 2 })),
      1,
    );
    expect(journal.backlog).to.include({ frames: 3, records: 6 });
    const refused = await journal
      .appendFrames(
        [
          { parts: [payload(1, 'fine')], records: 1 },
          { parts: [Buffer.alloc(MAX_PAYLOAD_BYTES + 1)], records: 1 },
        ],
        1,
      )
      .catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(FrameTooLargeError);
    expect(journal.backlog).to.include({ frames: 3, records: 6 });
    expect(await drain(journal)).to.deep.equal(['2:a', '2:b', '2:c']);
    await journal.close();
  });

  it('refuses an append past its cap and takes appends again once frames are consumed', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const { journal } = await openJournal(dir, { maxBytes: 2000 });
    const big = payload(1, 'x'.repeat(900));
    await journal.append([big], 1, 1);
    await journal.append([big], 1, 1);
    const refused = await journal.append([big], 1, 1).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(JournalFullError);
    await journal.consumed(journal.nextFrames(1, Infinity));
    await journal.append([big], 1, 1);
    expect(journal.backlog.records).to.equal(2);
    await journal.close();
  });

  it('deletes segments once everything in them is consumed', async () => {
    const dir = mkdtempSync(path.join(testRoot, 'journal-'));
    const { journal } = await openJournal(dir, { segmentBytes: 64 * 1024 });
    for (let i = 0; i < 40; i++) await journal.append([payload(1, 'y'.repeat(8000))], 1, 1);
    expect(segments(dir).length).to.be.greaterThan(3);
    for (let frames = journal.nextFrames(100, Infinity); frames.length > 0; frames = journal.nextFrames(100, Infinity)) await journal.consumed(frames);
    expect(segments(dir)).to.have.length(1);
    await journal.close();
  });
});
