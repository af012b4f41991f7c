// A 200 means durable, not yet visible: the record is in the journal, and reaches the rollups
// when the journal writer inserts it. While it lags, /metrics says by how much and /readyz
// stays 200. The writer is held (runExclusive) to make the lag, so nothing depends on timing.
// The writer inserts at most once every INGEST_FLUSH_INTERVAL_MS, and a batch that comes
// after a quiet spell at once (insertPacing.ts): a long interval tells the two apart.
import { expect } from 'chai';
import { request } from '../../helpers/http.js';
import { holdJournalWriter } from '../../helpers/ingest.js';
import { eventIdOf, storedLogCount } from '../../helpers/logs.js';
import { startTestService } from '../../helpers/service.js';
import { describeInEmbeddedRunOnly } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describeInEmbeddedRunOnly('ingest visibility', function () {
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

      const release = await holdJournalWriter(svc.services.ingestor!);
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

      await release();
      await waitFor('the records to be visible', async () => ((await count()) === 101 ? true : null));
      const drained = (await request(svc.url, 'GET', '/metrics')).text;
      expect(metric(drained, 'alertmon_journal_backlog_records')).to.equal(0);
      expect(metric(drained, 'alertmon_journal_oldest_age_seconds')).to.equal(0);
    } finally {
      await svc.close();
    }
  });

  it('inserts a batch that follows a quiet spell at once, and one sent just after it once the interval has passed', async () => {
    const intervalMs = 6_000;
    const svc = await startTestService({ env: { INGEST_FLUSH_INTERVAL_MS: String(intervalMs) } });
    try {
      const workspace = 'pacing-ws';
      const token = await svc.tokenFor(workspace);
      const stored = () => storedLogCount(svc.stores.clickhouse, workspace);
      const send = async (value: number) => {
        const res = await request(svc.url, 'POST', '/v1.0/logs', { token, body: [{ event: 'paced', value }] });
        expect(res.status, res.text).to.equal(200);
      };

      const quietSpell = performance.now();
      await send(1);
      await waitFor('the first batch to be stored', async () => ((await stored()) === 1 ? true : null), intervalMs);
      const firstStoredMs = performance.now() - quietSpell;
      // Well inside the interval: it did not wait for it (an insert takes 35-150 ms here).
      expect(firstStoredMs).to.be.below(intervalMs / 2);

      await send(2);
      const second = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // The insert before it began less than an interval ago: this one waits for the rest.
      expect(await stored()).to.equal(1);
      await waitFor('the second batch to be stored', async () => ((await stored()) === 2 ? true : null), 2 * intervalMs);
      expect(performance.now() - quietSpell).to.be.at.least(intervalMs - 500);
      expect(performance.now() - second).to.be.below(intervalMs + 2_000);
    } finally {
      await svc.close();
    }
  });
});
