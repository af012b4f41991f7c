// /readyz tells the truth about the journal writer (issue 51): held in a test (as a writer
// stuck on a frame or an insert would be), it turns /readyz to 503 once it has moved nothing
// into ClickHouse for INGEST_WRITER_STALL_S while records wait, and back to 200 once it moves.
// Before, /readyz stayed 200 while a stalled writer's backlog grew by 70,000 records.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { isoMinutesAgo } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('readiness and the journal writer', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService({ env: { INGEST_WRITER_STALL_S: '1' } });
  });
  after(() => svc.close());

  it('answers 503 not_ready while a held writer leaves records waiting past the bound, and 200 once it moves', async () => {
    const token = await svc.tokenFor('readiness-ws');
    const ready = await svc.request('GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.checks.writer).to.equal('ok');

    await svc.services.ingestor!.runExclusive(async () => {
      // Straight to the listener: svc.request would wait for the writer, which is held.
      const res = await fetch(`${svc.url}/v1.0/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify([{ log_id: randomUUID(), event: 'waiting', value: 1, occurred_at: isoMinutesAgo(1) }]),
      });
      expect(res.status).to.equal(200);
      const stalled = await waitFor('/readyz to say the writer stalled', async () => {
        const answer = await svc.request('GET', '/readyz');
        return answer.status === 503 ? answer : null;
      });
      expect(stalled.body.error.code).to.equal('not_ready');
      expect(stalled.body.error.message).to.match(/journal writer has moved nothing into ClickHouse/);
      expect(stalled.body.checks).to.deep.include({ clickhouse: 'ok', postgres: 'ok', writer: 'stalled' });
    });
    await svc.services.ingestor!.caughtUp();
    const again = await svc.request('GET', '/readyz');
    expect(again.status).to.equal(200);
    expect(again.body.checks.writer).to.equal('ok');
  });
});
