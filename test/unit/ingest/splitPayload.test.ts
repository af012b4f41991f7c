import { expect } from 'chai';
import { splitPayload } from '../../../src/ingest/stream/streamIngestor.js';

describe('splitPayload (a batch larger than NATS max_payload)', () => {
  const header = Buffer.from('ws\t1700000000000');
  const lines = Buffer.from(Array.from({ length: 50 }, (_, i) => `\nline-${String(i).padStart(3, '0')}-${'x'.repeat(i % 7)}`).join(''));

  it('keeps a payload within the limit whole', () => {
    expect(splitPayload(header, lines, 1_000_000)).to.deep.equal([Buffer.concat([header, lines])]);
  });

  it('cuts only between records, each part within the limit and carrying the header, nothing lost or repeated', () => {
    for (const max of [40, 64, 100, 333]) {
      const parts = splitPayload(header, lines, max);
      expect(parts.length, String(max)).to.be.greaterThan(1);
      for (const part of parts) {
        expect(part.subarray(0, header.length).equals(header)).to.equal(true);
        expect(part.length).to.be.at.most(max);
        expect(part[header.length]).to.equal(10);
      }
      expect(Buffer.concat(parts.map((p) => p.subarray(header.length))).equals(lines), String(max)).to.equal(true);
    }
  });

  it('sends a record longer than the limit alone rather than cutting it', () => {
    const parts = splitPayload(header, lines, header.length + 3);
    expect(parts).to.have.length(50);
    expect(Buffer.concat(parts.map((p) => p.subarray(header.length))).equals(lines)).to.equal(true);
  });
});
