import { expect } from 'chai';
import { RecordTooLargeError, splitPayload } from '../../../src/ingest/journaledBatch.js';
import { encodeFrame, FrameTooLargeError, MAX_PAYLOAD_BYTES, scanFrames } from '../../../src/ingest/journal/frames.js';

const whole = (part: { parts: readonly Uint8Array[] }) => Buffer.concat(part.parts);

describe('splitPayload (a request larger than a journal frame or a NATS message)', () => {
  const header = Buffer.from('ws\t1700000000000');
  const lines = Buffer.from(Array.from({ length: 50 }, (_, i) => `\nline-${String(i).padStart(3, '0')}-${'x'.repeat(i % 7)}`).join(''));

  it('keeps a payload within the limit whole, with its record count', () => {
    const parts = splitPayload([header, lines], 1_000_000);
    expect(parts).to.have.length(1);
    expect(whole(parts[0]!).equals(Buffer.concat([header, lines]))).to.equal(true);
    expect(parts[0]!.records).to.equal(50);
  });

  it('cuts only between records, each part within the limit and carrying the header, nothing lost or repeated', () => {
    for (const max of [40, 64, 100, 333]) {
      const parts = splitPayload([header, lines], max);
      expect(parts.length, String(max)).to.be.greaterThan(1);
      for (const part of parts) {
        const bytes = whole(part);
        expect(bytes.subarray(0, header.length).equals(header)).to.equal(true);
        expect(bytes.length).to.be.at.most(max);
        expect(bytes[header.length]).to.equal(10);
        expect(part.records).to.equal(bytes.toString().split('\n').length - 1);
      }
      expect(Buffer.concat(parts.map((p) => whole(p).subarray(header.length))).equals(lines), String(max)).to.equal(true);
      expect(parts.reduce((n, p) => n + p.records, 0)).to.equal(50);
    }
  });

  it('takes the records given one part each (records kept out of a batch) as well as in one part', () => {
    const each = lines
      .toString()
      .split('\n')
      .slice(1)
      .map((l) => Buffer.from(`\n${l}`));
    const parts = splitPayload([header, ...each], 64);
    expect(Buffer.concat(parts.map((p) => whole(p).subarray(header.length))).equals(lines)).to.equal(true);
    for (const part of parts) expect(whole(part).length).to.be.at.most(64);
  });

  it('refuses a record longer than a frame may hold, naming the bound, rather than cutting it', () => {
    expect(() => splitPayload([header, lines], header.length + 3)).to.throw(RecordTooLargeError, /beyond the 3 bytes/);
  });

  it('splits 150,000 records given one part each without a stack overflow, and frames each part', () => {
    const each = Array.from({ length: 150_000 }, (_, i) => Buffer.from(`\nrecord ${i} ${'y'.repeat(40)}`));
    const parts = splitPayload([header, ...each], 1024 * 1024);
    expect(parts.reduce((n, p) => n + p.records, 0)).to.equal(150_000);
    const frames = parts.map((p) => encodeFrame(p.parts));
    expect(scanFrames(Buffer.concat(frames)).frames).to.have.length(parts.length);
  });
});

describe('encodeFrame', () => {
  it('refuses a payload beyond what a scan reads back', () => {
    expect(() => encodeFrame([Buffer.alloc(MAX_PAYLOAD_BYTES + 1)])).to.throw(FrameTooLargeError);
  });
});
