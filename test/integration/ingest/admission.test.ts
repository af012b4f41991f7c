// Admission on the real service (docs/ingest.md, Overload): work-conserving concurrency, X-RateLimit-Remaining
// after the charge, and batches as large as INGEST_MAX_BATCH_RECORDS allows within the body limit.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { issueToken } from '../../../src/auth/tokens.js';
import { request } from '../../helpers/http.js';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService } from '../../helpers/service.js';
import { describeInEmbeddedRunOnly } from '../../helpers/stores.js';

/** Runs `task` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

describeInEmbeddedRunOnly('ingest admission on the service', function () {
  this.timeout(300_000);

  it('refuses nobody on an idle service after 1,000 workspaces were active: one workspace sends 30 concurrent batches', async () => {
    const svc = await startTestService();
    try {
      const tokens = await svc.stores.postgres.transaction(async (tx) => {
        const issued: string[] = [];
        for (let i = 0; i < 1_000; i++) issued.push((await issueToken(tx, `tenant-${i}`, undefined)).token);
        return issued;
      });
      // Each of the 1,000 sends a batch (empty: admission counts the request before reading it), so
      // all of them were active in the last seconds.
      await inParallel(tokens, 16, async (token) => {
        const res = await request(svc.url, 'POST', '/v1.0/logs', { token, body: [] });
        expect(res.status, res.text).to.equal(200);
      });
      const busy = tokens[7]!;
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          request(svc.url, 'POST', '/v1.0/logs', { token: busy, body: [{ log_id: randomUUID(), event: 'busy', value: i }] }),
        ),
      );
      expect(answers.map((a) => a.status)).to.deep.equal(Array(30).fill(200));
      await svc.services.ingestor!.caughtUp();
      expect(await storedLogCount(svc.stores.clickhouse, 'tenant-7')).to.equal(30);
    } finally {
      await svc.close();
    }
  });

  it('reports X-RateLimit-Remaining after the answered batch is charged', async () => {
    const svc = await startTestService({ env: { INGEST_WORKSPACE_RECORDS_PER_S: '100', INGEST_WORKSPACE_BURST_S: '10' } });
    try {
      const token = await svc.tokenFor('remaining-ws');
      const first = await request(svc.url, 'POST', '/v1.0/logs', { token, body: Array.from({ length: 30 }, (_, i) => ({ event: 'r', value: i })) });
      expect(first.status).to.equal(200);
      expect(first.headers.get('x-ratelimit-limit')).to.equal('100');
      // 1,000 in the bucket, 30 taken by this batch (a few may have refilled meanwhile).
      const remaining = Number(first.headers.get('x-ratelimit-remaining'));
      expect(remaining).to.be.within(970, 975);
      // A refused batch is not charged: what is left can only have grown (the bucket refills at 100/s).
      const refused = await request(svc.url, 'POST', '/v1.0/logs', { token, body: [{ event: 'r', value: 'x' }] });
      expect(refused.status).to.equal(400);
      expect(Number(refused.headers.get('x-ratelimit-remaining'))).to.be.within(remaining, 1_000);
    } finally {
      await svc.close();
    }
  });

  it('accepts a 10,000-record batch of ordinary records at INGEST_MAX_BATCH_RECORDS=10000 (over 1 MB), and refuses 10,001', async () => {
    const svc = await startTestService({ env: { INGEST_MAX_BATCH_RECORDS: '10000' } });
    try {
      const token = await svc.tokenFor('big-batch-ws');
      const at = new Date(Date.now() - 60_000).toISOString();
      const record = (i: number) => ({
        log_id: randomUUID(),
        agent: 'web-frontend-01',
        event: 'http.request.latency_ms',
        value: i / 7,
        occurred_at: at,
        meta: { route: '/api/v1/orders', method: 'GET', status: 200, region: 'eu-west-1' },
      });
      const batch = Array.from({ length: 10_000 }, (_, i) => record(i));
      expect(Buffer.byteLength(JSON.stringify(batch))).to.be.above(2 * 1024 * 1024);
      const res = await request(svc.url, 'POST', '/v1.0/logs', { token, body: batch });
      expect(res.status, res.text.slice(0, 300)).to.equal(200);
      await svc.services.ingestor!.caughtUp();
      expect(await storedLogCount(svc.stores.clickhouse, 'big-batch-ws')).to.equal(10_000);
      const over = await request(svc.url, 'POST', '/v1.0/logs', { token, body: [...batch, record(10_000)] });
      expect(over.status).to.equal(400);
    } finally {
      await svc.close();
    }
  });
});
