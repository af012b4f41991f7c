// Summary records (an OpenTelemetry histogram point: one logs row standing for many
// observations) journaled through the NATS JetStream journal (JOURNAL_URL) reach `logs` and
// every rollup with their exact count, sum, min and max, as they do through the local
// journal; and so do they when the stream delivers them again (the redelivered repair).
// One in-process service (ROLE all) on a stream of its own.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/logger.js';
import { decodeBatch, payloadOfRecords } from '../../../src/ingest/journaledBatch.js';
import { welfordStateHex } from '../../../src/ingest/recordSummary.js';
import { storeRedelivered } from '../../../src/ingest/stream/redelivered.js';
import { queryRows } from '../../helpers/logs.js';
import { MACHINE_NATS_URL, reachable } from '../../helpers/nats.js';
import { otelSdk } from '../../helpers/otel.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { uniqueName, describeInOneRun } from '../../helpers/stores.js';

interface Totals {
  rows: number;
  count: number;
  value: number;
  min: number;
  max: number;
}

/** What `logs` (rows, weight) and each rollup hold for an event of the workspace. */
async function totals(svc: TestService, ws: string, event: string): Promise<Record<'logs' | 'minute' | 'hour' | 'day', Totals>> {
  const read = async (query: string, period?: string) => (await queryRows<Totals>(svc.stores.clickhouse, query, { ws, event, period: period ?? '' }))[0]!;
  const rollup = (period: string) =>
    read(
      `SELECT count() AS rows, sum(count) AS count, sum(value) AS value, min(min) AS min, max(max) AS max
       FROM rollups WHERE workspace_id = {ws:String} AND event = {event:String} AND period = {period:String}`,
      period,
    );
  return {
    logs: await read(
      `SELECT count() AS rows, sum(weight) AS count, sum(value) AS value, min(summary_min) AS min, max(summary_max) AS max
       FROM logs WHERE workspace_id = {ws:String} AND event = {event:String}`,
    ),
    minute: await rollup('minute'),
    hour: await rollup('hour'),
    day: await rollup('day'),
  };
}

async function deleteStream(name: string): Promise<void> {
  const nc = await connect({ servers: MACHINE_NATS_URL, timeout: 2_000 }).catch(() => null);
  if (nc === null) return;
  await (await jetstreamManager(nc)).streams.delete(name).catch(() => {});
  await nc.close();
}

describeInOneRun('summary records through the NATS JetStream journal', function () {
  this.timeout(120_000);
  const stream = uniqueName('alertmon_sum');
  let svc: TestService;

  before(async function () {
    if (!(await reachable(4222))) {
      console.log('      skipped: no NATS server at 127.0.0.1:4222 (.ci/run starts one; see docs/operations.md)');
      this.skip();
    }
    svc = await startTestService({ env: { JOURNAL_URL: MACHINE_NATS_URL, JOURNAL_STREAM: stream } });
  });
  after(async () => {
    await svc?.close();
    await deleteStream(stream);
  });

  it('stores an OTLP histogram point with its exact count, sum, min and max in logs and every rollup', async () => {
    const ws = 'stream-histogram';
    const token = await svc.tokenFor(ws);
    const provider = otelSdk({ url: svc.url, token, encoding: 'json', serviceName: 'checkout' });
    const latency = provider.getMeter('test-meter').createHistogram('app.latency_ms');
    const values = [3, 7, 12, 40, 700, 1500, 2];
    for (const v of values) latency.record(v);
    await provider.forceFlush();
    await provider.shutdown();
    await svc.services.ingestor!.caughtUp();

    const stored = await totals(svc, ws, 'app.latency_ms');
    const expected = { count: values.length, value: values.reduce((a, b) => a + b, 0), min: Math.min(...values), max: Math.max(...values) };
    // One point: one row of logs standing for every observation.
    expect(stored.logs).to.deep.equal({ rows: 1, ...expected });
    for (const period of ['minute', 'hour', 'day'] as const) {
      const { count, value, min, max } = stored[period];
      expect({ count, value, min, max }, period).to.deep.equal(expected);
    }
  });

  it('stores a redelivered summary record once, with its exact count, sum, min and max', async () => {
    const ws = 'stream-redelivered';
    const event = 'queue.wait_ms';
    const eventId = randomUUID();
    const observations = [4, 9, 30];
    const sum = observations.reduce((a, b) => a + b, 0);
    const mean = sum / observations.length;
    const summary = {
      count: observations.length,
      sum,
      squares: observations.reduce((a, b) => a + b * b, 0),
      min: 4,
      max: 30,
      varianceHex: welfordStateHex(
        observations.length,
        mean,
        observations.reduce((a, b) => a + (b - mean) ** 2, 0),
      ),
      means: [5, 30],
      weights: [2, 1],
    };
    const now = Date.now();
    const record = { logId: randomUUID(), clientLogId: true, agent: 'worker', event, value: sum, occurredAt: now - 60_000, meta: '', summary };
    const batch = decodeBatch(payloadOfRecords(ws, now, now, [record], () => eventId));
    const logger = createLogger('silent');
    const timezoneOf = () => 'UTC';
    // Delivered again twice (its writer died before acknowledging it, then again): stored once.
    for (let delivery = 0; delivery < 2; delivery++) await storeRedelivered(svc.stores.clickhouse, [batch], timezoneOf, logger);

    const stored = await totals(svc, ws, event);
    const expected = { count: 3, value: sum, min: 4, max: 30 };
    expect(stored.logs).to.deep.equal({ rows: 1, ...expected });
    for (const period of ['minute', 'hour', 'day'] as const) {
      const { count, value, min, max } = stored[period];
      expect({ count, value, min, max }, period).to.deep.equal(expected);
    }
  });
});
