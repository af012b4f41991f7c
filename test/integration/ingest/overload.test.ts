// Overload, in the order docs/ingest.md (Overload: 429 and 503) gives: a workspace over its rate gets 429 with
// Retry-After and X-RateLimit-* while others keep getting 200s; only a full journal gets
// 503. Nothing of a refused batch is stored. The journal writer is held (runExclusive) where
// a test needs the journal to fill or to lag, so nothing here depends on timing.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { request, type TestResponse } from '../../helpers/http.js';
import { holdJournalWriter } from '../../helpers/ingest.js';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService } from '../../helpers/service.js';
import { describeInEmbeddedRunOnly } from '../../helpers/stores.js';

const batch = (event: string, n: number) => Array.from({ length: n }, (_, i) => ({ log_id: randomUUID(), event, value: i }));

const metric = (text: string, line: string) =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${line} `))
      ?.split(' ')[1] ?? NaN,
  );

describeInEmbeddedRunOnly('ingest overload', function () {
  this.timeout(120_000);

  it('answers 429 with Retry-After and X-RateLimit-* to a workspace over its rate, while another keeps getting 200s', async () => {
    const svc = await startTestService({ env: { INGEST_WORKSPACE_RECORDS_PER_S: '400', INGEST_WORKSPACE_BURST_S: '1' } });
    try {
      const [flood, calm] = [await svc.tokenFor('flood-ws'), await svc.tokenFor('calm-ws')];
      const answers: TestResponse[] = [];
      const calmStatuses: number[] = [];
      // The flood sends 250 records a request, as fast as it is answered; the calm workspace
      // sends 50 records at a time, well within its rate.
      for (let i = 0; i < 6; i++) {
        answers.push(await request(svc.url, 'POST', '/v1.0/logs', { token: flood, body: batch('flood', 250) }));
        calmStatuses.push((await request(svc.url, 'POST', '/v1.0/logs', { token: calm, body: batch('calm', 50) })).status);
      }
      const accepted = answers.filter((a) => a.status === 200).length;
      const refused = answers.filter((a) => a.status === 429);
      expect(accepted + refused.length).to.equal(6);
      expect(refused.length).to.be.greaterThan(0);
      const first = refused[0]!;
      expect(first.body.error.code).to.equal('rate_limited');
      expect(Number(first.headers.get('retry-after'))).to.be.within(1, 2);
      expect(first.headers.get('x-ratelimit-limit')).to.equal('400');
      expect(first.headers.get('x-ratelimit-remaining')).to.equal('0');
      expect(Number(first.headers.get('x-ratelimit-reset'))).to.be.greaterThan(0);
      expect(answers[0]!.headers.get('x-ratelimit-limit')).to.equal('400');
      expect(calmStatuses).to.deep.equal([200, 200, 200, 200, 200, 200]);

      await svc.services.ingestor!.caughtUp();
      expect(await storedLogCount(svc.stores.clickhouse, 'flood-ws')).to.equal(accepted * 250);
      expect(await storedLogCount(svc.stores.clickhouse, 'calm-ws')).to.equal(300);
      const metrics = (await svc.request('GET', '/metrics')).text;
      expect(metric(metrics, 'alertmon_ingest_refused_requests_total{status="429",reason="workspace_rate"}')).to.equal(refused.length);
    } finally {
      await svc.close();
    }
  });

  it('holds a flooding workspace to its share of concurrent requests, without refusing another', async () => {
    const svc = await startTestService({ env: { INGEST_MAX_CONCURRENT_REQUESTS: '4' } });
    const release = await holdJournalWriter(svc.services.ingestor!);
    try {
      const [flood, calm] = [await svc.tokenFor('crowd-ws'), await svc.tokenFor('quiet-ws')];
      expect((await request(svc.url, 'POST', '/v1.0/logs', { token: calm, body: batch('quiet', 10) })).status).to.equal(200);
      const floodAnswers = await Promise.all(
        Array.from({ length: 40 }, () => request(svc.url, 'POST', '/v1.0/logs', { token: flood, body: batch('crowd', 250) })),
      );
      const calmAnswer = await request(svc.url, 'POST', '/v1.0/logs', { token: calm, body: batch('quiet', 10) });
      const statuses = new Set(floodAnswers.map((a) => a.status));
      expect([...statuses].sort()).to.deep.equal([200, 429]);
      const refused = floodAnswers.find((a) => a.status === 429)!;
      expect(refused.body.error.code).to.equal('rate_limited');
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(calmAnswer.status).to.equal(200);
      await release();
      await svc.services.ingestor!.caughtUp();
      expect(await storedLogCount(svc.stores.clickhouse, 'crowd-ws')).to.equal(floodAnswers.filter((a) => a.status === 200).length * 250);
    } finally {
      await release();
      await svc.close();
    }
  });

  it('answers 429 to the workspace filling the backlog past half the cap, 503 once the journal reaches its cap, stores nothing refused, and takes batches again as it drains', async () => {
    const svc = await startTestService({ env: { INGEST_JOURNAL_MAX_BYTES: String(1024 * 1024) } });
    const release = await holdJournalWriter(svc.services.ingestor!);
    try {
      const tokens: string[] = [await svc.tokenFor('full-ws-0')];
      let accepted = 0;
      let backlogAtFirst429: number | null = null;
      let full: TestResponse | null = null;
      for (let i = 0; i < 200 && full === null; i++) {
        const res = await request(svc.url, 'POST', '/v1.0/logs', { token: tokens.at(-1)!, body: batch('full', 250) });
        if (res.status === 200) accepted++;
        else if (res.status === 429) {
          // The workspace filling the backlog is slowed before the journal is full; a workspace that
          // has sent nothing yet still goes in, so the journal fills on.
          expect(res.body.error.message).to.match(/more than half full/);
          backlogAtFirst429 ??= metric((await request(svc.url, 'GET', '/metrics')).text, 'alertmon_journal_backlog_bytes');
          tokens.push(await svc.tokenFor(`full-ws-${tokens.length}`));
        } else full = res;
      }
      expect(backlogAtFirst429, 'a 429 before journal_full').to.be.within(512 * 1024, 1024 * 1024);
      expect(full?.status, full?.text).to.equal(503);
      expect(full!.body.error.code).to.equal('journal_full');
      expect(Number(full!.headers.get('retry-after'))).to.be.greaterThan(0);
      const metrics = (await request(svc.url, 'GET', '/metrics')).text;
      expect(metric(metrics, 'alertmon_journal_backlog_records')).to.equal(accepted * 250);
      expect(metric(metrics, 'alertmon_journal_backlog_bytes')).to.be.within(900 * 1024, 1024 * 1024);
      expect(metric(metrics, 'alertmon_rejected_records_total{reason="journal_full"}')).to.equal(250);
      expect(metric(metrics, 'alertmon_ingest_refused_requests_total{status="429",reason="journal_backlog"}')).to.equal(tokens.length - 1);

      await release();
      await svc.services.ingestor!.caughtUp();
      let stored = 0;
      for (let i = 0; i < tokens.length; i++) stored += await storedLogCount(svc.stores.clickhouse, `full-ws-${i}`);
      expect(stored).to.equal(accepted * 250);
      expect((await svc.request('POST', '/v1.0/logs', { token: tokens[0]!, body: batch('full', 250) })).status).to.equal(200);
    } finally {
      await release();
      await svc.close();
    }
  });
});
