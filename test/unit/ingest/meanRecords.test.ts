import { expect } from 'chai';
import { MeanRecords } from '../../../src/ingest/stream/meanRecords.js';

describe('MeanRecords (the stream backlog estimate)', () => {
  it('is set by the first messages seen, not pulled towards a guess of 1', () => {
    const mean = new MeanRecords();
    expect(mean.value).to.equal(1);
    mean.add(500, 2); // one batch of 500 records in two messages
    expect(mean.value).to.equal(250);
    mean.add(250);
    expect(mean.value).to.equal(250);
  });

  it('follows a change of batch size slowly, and ignores a batch of no messages', () => {
    const mean = new MeanRecords();
    mean.add(100);
    for (let i = 0; i < 100; i++) mean.add(200);
    expect(mean.value).to.be.within(160, 170);
    mean.add(10, 0);
    expect(mean.value).to.be.within(160, 170);
  });
});
