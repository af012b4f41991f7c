// A 200 means durable, not yet visible: the record is in the journal, and reaches the rollups
// when the journal writer inserts it. While it lags, /metrics says by how much and /readyz
// stays 200. The writer is held (runExclusive) to make the lag, so nothing depends on timing.
import { expect } from 'chai';
import { request } from '../../helpers/http.js';
import { eventIdOf } from '../../helpers/logs.js';
import { startTestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe('ingest visibility', function () {
  this.timeout(60_000);

  it('makes a record answered 200 readable in the rollups once the journal drains, with the backlog in /metrics meanwhile', async () => {
    const svc = await startTestService();
    try {
      const token = await svc.tokenFor('lag-ws');
      await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'lagging', value: 1 }] });
      const eventId = await eventIdOf(svc, token, 'default', 'lagging');
      const count = async () => {
        const res = await svc.request<{ count: number }[]>('GET', `/v1.0/events/${eventId}/logs?period=minute`, { token });
        return res.body.reduce((n, b) => n + b.count, 0);
      };

      let release!: () => void;
      const held = svc.services.ingestor!.runExclusive(() => new Promise<void>((resolve) => (release = resolve)));
      const sent = await request(svc.url, 'POST', '/v1.0/logs', { token, body: Array.from({ length: 100 }, (_, i) => ({ event: 'lagging', value: i })) });
      expect(sent.status).to.equal(200);
      const behind = await waitFor('the backlog to age', async () => {
        const text = (await request(svc.url, 'GET', '/metrics')).text;
        return metric(text, 'alertmon_journal_oldest_age_seconds') > 0.2 ? text : null;
      });
      expect(metric(behind, 'alertmon_journal_backlog_records')).to.equal(100);
      expect(metric(behind, 'alertmon_journal_backlog_bytes')).to.be.greaterThan(0);
      expect((await request(svc.url, 'GET', '/readyz')).status).to.equal(200);
      expect(await count()).to.equal(1);

      release();
      await held;
      await waitFor('the records to be visible', async () => ((await count()) === 101 ? true : null));
      const drained = (await request(svc.url, 'GET', '/metrics')).text;
      expect(metric(drained, 'alertmon_journal_backlog_records')).to.equal(0);
      expect(metric(drained, 'alertmon_journal_oldest_age_seconds')).to.equal(0);
    } finally {
      await svc.close();
    }
  });
});
