// The OpenTelemetry exporter's own retries: an export whose answer is lost is sent again and
// counted once; under a low INGEST_WORKSPACE_RECORDS_PER_S the exporter is answered 429 with
// Retry-After, retries, and nothing is lost. And a policy on an OTel histogram (p95_est)
// raises an alert from the SDK's data.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventIdOf, queryRows } from '../../helpers/logs.js';
import { otelSdk } from '../../helpers/otel.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { alertsOf, createPolicy, evaluatorAt, IDLE_WORKER_ENV, MINUTE } from '../evaluation/helpers.js';
import { describeInOneRun } from '../../helpers/stores.js';

async function dayTotals(svc: TestService, ws: string, event: string): Promise<{ count: number; value: number }> {
  await svc.services.ingestor!.caughtUp();
  const [row] = await queryRows<{ count: number; value: number }>(
    svc.stores.clickhouse,
    "SELECT sum(count) AS count, sum(value) AS value FROM rollups WHERE workspace_id = {ws:String} AND event = {event:String} AND period = 'day'",
    { ws, event },
  );
  return row!;
}

/**
 * A proxy to the service that passes the first `lose` requests on but answers the exporter
 * 503 (Retry-After: 0) instead of the service's answer: the answer is lost on the way back.
 */
async function lossyProxy(target: string, lose: number): Promise<{ url: string; forwarded: () => number; close: () => void }> {
  let forwarded = 0;
  const passed = new Set(['authorization', 'content-type', 'content-encoding', 'user-agent']);
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && passed.has(k)) headers[k] = v;
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
    const body = Buffer.from(await answer.arrayBuffer());
    forwarded++;
    if (forwarded <= lose) {
      res.writeHead(503, { 'Retry-After': '0' }).end();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, forwarded: () => forwarded, close: () => server.close() };
}

describeInOneRun('OpenTelemetry exporter retries', function () {
  this.timeout(240_000);

  describe('a lost answer', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService();
    });
    after(() => svc.close());

    it('is retried by the exporter and counted once', async () => {
      const token = await svc.tokenFor('otel-lost');
      const proxy = await lossyProxy(svc.url, 1);
      try {
        const provider = otelSdk({ url: proxy.url, token, encoding: 'protobuf', serviceName: 'lossy' });
        const meter = provider.getMeter('m');
        meter.createCounter('lost.requests').add(7);
        const latency = meter.createHistogram('lost.latency');
        for (const v of [1, 2, 3, 50]) latency.record(v);
        await provider.forceFlush();
        await provider.shutdown();
        expect(proxy.forwarded()).to.equal(2);
      } finally {
        proxy.close();
      }
      expect(await dayTotals(svc, 'otel-lost', 'lost.requests')).to.deep.equal({ count: 1, value: 7 });
      expect(await dayTotals(svc, 'otel-lost', 'lost.latency')).to.deep.equal({ count: 4, value: 56 });
    });
  });

  describe('429 under a low workspace rate', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService({ env: { INGEST_WORKSPACE_RECORDS_PER_S: '40', INGEST_WORKSPACE_BURST_S: '1' } });
    });
    after(() => svc.close());

    it('is retried by the exporter after Retry-After, and nothing is lost', async () => {
      const token = await svc.tokenFor('otel-slow');
      let refused = 0;
      // Count the 429s the service gives, through a proxy that loses nothing.
      const proxy = await lossyProxy(svc.url, 0);
      const provider = otelSdk({ url: svc.url, token, encoding: 'json', serviceName: 'busy' });
      const meter = provider.getMeter('m');
      const counter = meter.createCounter('busy.items');
      let expected = 0;
      for (let round = 0; round < 4; round++) {
        // 60 series a round: more than the 40 records a second the workspace may send.
        for (let i = 0; i < 60; i++) counter.add(1 + (i % 3), { shard: `s${i}` });
        expected += 60 * 2;
        const before = Date.now();
        await provider.forceFlush();
        if (Date.now() - before >= 900) refused++;
      }
      await provider.shutdown();
      proxy.close();
      // At least one export waited out a 429 (the exporter honours Retry-After) and still arrived.
      expect(refused).to.be.at.least(1);
      expect(await dayTotals(svc, 'otel-slow', 'busy.items')).to.deep.equal({ count: 240, value: expected });
      const [rejected] = await queryRows<{ n: number }>(svc.stores.clickhouse, "SELECT count() AS n FROM logs WHERE workspace_id = 'otel-slow'");
      expect(rejected!.n).to.equal(240);
    });
  });

  describe('a policy on a histogram', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService({ env: IDLE_WORKER_ENV });
    });
    after(() => svc.close());

    it('with p95_est gt … raises an alert from the SDK data', async () => {
      const token = await svc.tokenFor('otel-policy');
      const provider = otelSdk({ url: svc.url, token, encoding: 'protobuf', serviceName: 'llm' });
      const duration = provider.getMeter('gen_ai').createHistogram('gen_ai.client.operation.duration', { unit: 's' });
      // 100 operations: 90 fast, 10 very slow; the p95 is in the slow ones' bucket (5, 7.5].
      for (let i = 0; i < 90; i++) duration.record(0.2);
      for (let i = 0; i < 10; i++) duration.record(6);
      await provider.forceFlush();
      await provider.shutdown();
      await svc.services.ingestor!.caughtUp();
      const eventId = await eventIdOf(svc, token, 'llm', 'gen_ai.client.operation.duration');
      const policyId = await createPolicy(svc, token, { event_id: eventId, aggregate: 'p95_est', condition: 'gt', threshold: 5 });
      // The point's time is the export's: evaluate its minute just after it closed (and the grace).
      const [point] = await queryRows<{ at: number }>(
        svc.stores.clickhouse,
        "SELECT toUnixTimestamp64Milli(occurred_at) AS at FROM logs WHERE workspace_id = 'otel-policy' AND event = 'gen_ai.client.operation.duration'",
      );
      const minute = Math.floor(Number(point!.at) / MINUTE) * MINUTE;
      const now = minute + MINUTE + 6_000;
      const cycle = await evaluatorAt(svc.stores, { now }).evaluateDuePolicies();
      const alerts = await alertsOf(svc, token, policyId);
      // Should it fail again (once in CI's server run, not reproduced since), what it saw.
      const [progress] = await svc.stores.postgres.query('SELECT evaluated_until, updated_at, created_at FROM policies WHERE policy_id = $1', [policyId]);
      const { policies, evaluations, raised } = cycle;
      const seen = JSON.stringify({ point: point!.at, now, wallClock: Date.now(), policies, evaluations, raised, progress });
      expect(
        alerts.map((a) => a.status),
        seen,
      ).to.deep.equal(['triggered']);
    });
  });
});
