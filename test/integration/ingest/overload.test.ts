import { expect } from 'chai';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService } from '../../helpers/service.js';

describe('ingest overload', function () {
  this.timeout(60_000);
  it('answers 503 with Retry-After when the queue is full, and stores nothing of that batch', async () => {
    // A queue of 300 records whose flush waits 2 s: the first batch of 200 fills it.
    const svc = await startTestService({
      env: { INGEST_QUEUE_MAX_RECORDS: '300', INGEST_BATCH_MAX_RECORDS: '300', INGEST_FLUSH_INTERVAL_MS: '2000' },
    });
    try {
      const token = await svc.tokenFor('busy-ws');
      const logs = (event: string) => Array.from({ length: 200 }, (_, i) => ({ event, value: i }));
      const first = svc.request('POST', '/v1.0/logs', { token, body: logs('first') });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await svc.request('POST', '/v1.0/logs', { token, body: logs('second') });
      expect(second.status).to.equal(503);
      expect(second.body.error.code).to.equal('ingest_overloaded');
      expect(Number(second.headers.get('retry-after'))).to.be.greaterThan(0);
      expect((await first).status).to.equal(200);
      expect(await storedLogCount(svc.stores.clickhouse, 'busy-ws')).to.equal(200);
      const definitions = await svc.stores.postgres.query<{ event: string }>("SELECT event FROM event_definitions WHERE user_id = 'busy-ws'");
      expect(definitions.map((d) => d.event)).to.deep.equal(['first']);
      const metrics = await svc.request('GET', '/metrics');
      expect(metrics.text).to.match(/alertmon_rejected_records_total\{reason="overload"\} 200/);
    } finally {
      await svc.close();
    }
  });
});
