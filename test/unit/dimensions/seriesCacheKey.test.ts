// The writer keeps each declaration's series by the agent's and the meta's text of a record's
// row (src/dimensions/seriesLabeller.ts): that text must be the same exactly when the agent
// and the meta are, whatever characters they hold, or records would be counted in another
// agent's series.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { agentAndMetaText } from '../../../src/dimensions/seriesLabeller.js';
import { decodeBatch, payloadOfRecords, type NewLogRecord } from '../../../src/ingest/journaledBatch.js';

const record = (agent: string, meta: string, value = 1): NewLogRecord => ({
  logId: randomUUID(),
  clientLogId: true,
  agent,
  event: 'task.duration_ms',
  value,
  occurredAt: Date.now() - 60_000,
  meta,
});

/** The cache text of each record's row, as the journal writes the rows. */
function keysOf(records: readonly NewLogRecord[]): string[] {
  const payload = payloadOfRecords('ws', Date.now(), Date.now(), records, () => randomUUID());
  return decodeBatch(payload).lines.map((line) => {
    const row = Buffer.from(line.split('\t').slice(3).join('\t'));
    return agentAndMetaText(row, 0, row.length);
  });
}

describe('a series cache key (agent and meta text of a row)', () => {
  const agents = ['web-1', 'web-2', 'a,b', 'quote " in it', 'back\\slash', 'é', '🚀 rocket', '', '"', '\\"'];
  const metas = ['', '{"route":"/a"}', '{"route":"/b"}', '{"route":"/a","code":500}', '{"s":"a,\\"b\\""}', '{"k":"é🚀"}'];

  it('is the same for the same agent and meta, however many records and values', () => {
    const keys = keysOf([record('web-1', '{"route":"/a"}', 1), record('web-1', '{"route":"/a"}', 2.5), record('web-1', '{"route":"/a"}', -3)]);
    expect(new Set(keys).size).to.equal(1);
  });

  it('tells every agent and meta apart, with commas, quotes, backslashes and characters beyond ASCII in them', () => {
    const records = agents.flatMap((a) => metas.map((m) => record(a, m)));
    const keys = keysOf(records);
    expect(new Set(keys).size).to.equal(agents.length * metas.length);
    // And the same pairs sent again give the same keys.
    expect(keysOf(records)).to.deep.equal(keys);
  });

  it('does not take an agent whose text ends like another agent followed by a meta for that pair', () => {
    // "x" + meta `{"a":"1"}` against an agent `x","{` style text: the agent's JSON ends at its closing quote.
    const keys = keysOf([record('x', '{"a":"1"}'), record('x"{"a":"1"}', ''), record('x', '')]);
    expect(new Set(keys).size).to.equal(3);
  });
});
