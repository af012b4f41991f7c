// Bad input on POST /v1/metrics and POST /api/v1/write: a clear 4xx (or a partial_success for
// points alone at fault), never a 500, and nothing stored by a refused request.
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import snappy from 'snappyjs';
import { ExportMetricsServiceRequest, ExportMetricsServiceResponse, RpcStatus, WriteRequest } from '../../../src/ingest/intake/otlpProto.js';
import { queryRows, storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

const nowNanos = () => `${BigInt(Date.now()) * 1_000_000n}`;

/** An export of one gauge point per (name, value), with these point attributes. */
function exportOf(points: readonly { name: string; value: number; attributes?: { key: string; value: { stringValue: string } }[] }[]) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeMetrics: [
          {
            scope: { name: 'test' },
            metrics: points.map((p) => ({
              name: p.name,
              gauge: { dataPoints: [{ timeUnixNano: nowNanos(), asDouble: p.value, attributes: p.attributes ?? [] }] },
            })),
          },
        ],
      },
    ],
  };
}

const protobufOf = (request: object) => Buffer.from(ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromObject(request)).finish());

describeInOneRun('standard ingest routes: bad input', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const ws = 'otlp-bad';
  const post = (path: string, body: Uint8Array | string, headers: Record<string, string>, auth = token) =>
    fetch(`${svc.url}${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${auth}`, ...headers } });
  const protobuf = { 'content-type': 'application/x-protobuf' };

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor(ws);
  });
  after(() => svc.close());

  afterEach(async () => {
    await svc.services.ingestor!.caughtUp();
  });

  it('answers truncated and garbage protobuf with 400 and a google.rpc.Status, storing nothing', async () => {
    const whole = protobufOf(exportOf([{ name: 'a.gauge', value: 1 }]));
    for (const body of [whole.subarray(0, whole.length - 3), Buffer.from('\xff\xff\xff\xff garbage that is no protobuf', 'latin1')]) {
      const res = await post('/v1/metrics', body, protobuf);
      expect(res.status).to.equal(400);
      expect(res.headers.get('content-type')).to.match(/application\/x-protobuf/);
      const status = RpcStatus.toObject(RpcStatus.decode(new Uint8Array(await res.arrayBuffer()))) as { code: number; message: string };
      expect(status.code).to.equal(3);
      expect(status.message).to.match(/not a valid ExportMetricsServiceRequest/);
    }
    // Not JSON at all: invalid_json, as on every route; JSON that is no ExportMetricsServiceRequest: malformed_body.
    const notJson = await post('/v1/metrics', '{"resourceMetrics": 5', { 'content-type': 'application/json' });
    expect(notJson.status).to.equal(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).to.equal('invalid_json');
    const json = await post('/v1/metrics', '{"resourceMetrics": 5}', { 'content-type': 'application/json' });
    expect(json.status).to.equal(400);
    expect(((await json.json()) as { error: { code: string } }).error.code).to.equal('malformed_body');
    expect(await storedLogCount(svc.stores.clickhouse, ws)).to.equal(0);
  });

  it('refuses other content types (415) and a gzip bomb (413)', async () => {
    expect((await post('/v1/metrics', 'x', { 'content-type': 'text/plain' })).status).to.equal(415);
    expect((await post('/api/v1/write', 'x', { 'content-type': 'application/json' })).status).to.equal(415);
    // 64 MB of zeros compress to about 64 KB.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const res = await post('/v1/metrics', bomb, { ...protobuf, 'content-encoding': 'gzip' });
    expect(res.status).to.equal(413);
    const snappyBomb = Buffer.from(snappy.compress(Buffer.alloc(20 * 1024 * 1024)));
    expect((await post('/api/v1/write', snappyBomb, { ...protobuf, 'content-encoding': 'snappy' })).status).to.equal(413);
    expect((await post('/api/v1/write', Buffer.from('not snappy at all'), protobuf)).status).to.equal(400);
    expect(await storedLogCount(svc.stores.clickhouse, ws)).to.equal(0);
  });

  it('takes gzip, and reports non-finite values and invalid names as partial_success while storing the rest', async () => {
    const request = exportOf([
      { name: 'ok.gauge', value: 5 },
      { name: 'nan.gauge', value: Number.NaN },
      { name: 'inf.gauge', value: Number.POSITIVE_INFINITY },
      { name: '   ', value: 1 },
      { name: 'x'.repeat(201), value: 1 },
    ]);
    const res = await post('/v1/metrics', gzipSync(protobufOf(request)), { ...protobuf, 'content-encoding': 'gzip' });
    expect(res.status).to.equal(200);
    const answer = ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as {
      partialSuccess: { rejectedDataPoints: number; errorMessage: string };
    };
    expect(answer.partialSuccess.rejectedDataPoints).to.equal(4);
    expect(answer.partialSuccess.errorMessage)
      .to.match(/NaN or infinite/)
      .and.match(/not a valid event name/);
    await svc.services.ingestor!.caughtUp();
    const rows = await queryRows<{ event: string; value: number }>(svc.stores.clickhouse, 'SELECT event, value FROM logs WHERE workspace_id = {ws:String}', {
      ws,
    });
    expect(rows).to.deep.equal([{ event: 'ok.gauge', value: 5 }]);
  });

  it('refuses histogram counts beyond 2^53 or negative with partial_success, never wrapped, and stores the sound point', async () => {
    const histogram = (name: string, count: string, bucketCounts: string[]) => ({
      name,
      histogram: {
        aggregationTemporality: 1, // delta
        dataPoints: [{ timeUnixNano: nowNanos(), count, sum: 10, bucketCounts, explicitBounds: [1] }],
      },
    });
    const request = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeMetrics: [
            {
              metrics: [
                histogram('huge.histogram', '18446744073709551615', ['18446744073709551615', '0']),
                histogram('huge.bucket.histogram', '3', ['9007199254740993', '0']),
                histogram('negative.histogram', '3', ['-5', '8']),
                histogram('sound.histogram', '3', ['1', '2']),
              ],
            },
          ],
        },
      ],
    };
    for (const [encoding, body] of [
      ['json', JSON.stringify(request)],
      ['protobuf', protobufOf(request)],
    ] as const) {
      const res = await post('/v1/metrics', body, { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' });
      expect(res.status, encoding).to.equal(200);
      const answer =
        encoding === 'json'
          ? ((await res.json()) as { partialSuccess: { rejectedDataPoints: string; errorMessage: string } }).partialSuccess
          : (
              ExportMetricsServiceResponse.toObject(ExportMetricsServiceResponse.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number }) as {
                partialSuccess: { rejectedDataPoints: number; errorMessage: string };
              }
            ).partialSuccess;
      // The negative bucket count, however the fixed64 conversion takes it, is refused too.
      expect(Number(answer.rejectedDataPoints), encoding).to.equal(3);
      expect(answer.errorMessage).to.match(/beyond 2\^53 - 1/);
    }
    await svc.services.ingestor!.caughtUp();
    const rows = await queryRows<{ event: string; weight: number }>(
      svc.stores.clickhouse,
      "SELECT event, toFloat64(weight) AS weight FROM logs WHERE workspace_id = {ws:String} AND event LIKE '%.histogram' ORDER BY event",
      { ws },
    );
    expect(rows.map((r) => r.event)).to.deep.equal(['sound.histogram']);
    expect(rows[0]!.weight).to.equal(3);
  });

  it('keeps 10 of 10,000 attributes, in their order, and says how many were dropped', async () => {
    const attributes = Array.from({ length: 10_000 }, (_, i) => ({ key: `k${i}`, value: { stringValue: `v${i}` } }));
    const res = await post('/v1/metrics', JSON.stringify(exportOf([{ name: 'wide.gauge', value: 1, attributes }])), { 'content-type': 'application/json' });
    expect(res.status).to.equal(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedDataPoints: string; errorMessage: string } };
    expect(answer.partialSuccess.errorMessage).to.match(/9990 attribute\(s\) dropped/);
    await svc.services.ingestor!.caughtUp();
    const [row] = await queryRows<{ meta: string }>(svc.stores.clickhouse, "SELECT meta FROM logs WHERE workspace_id = {ws:String} AND event = 'wide.gauge'", {
      ws,
    });
    expect(Object.keys(JSON.parse(row!.meta))).to.deep.equal(attributes.slice(0, 10).map((a) => a.key));
  });

  it("answers a missing or unknown token with 401, and stores another workspace's nothing", async () => {
    const body = protobufOf(exportOf([{ name: 'intruder.gauge', value: 1 }]));
    expect((await post('/v1/metrics', body, protobuf, 'chp_not-a-token')).status).to.equal(401);
    expect((await fetch(`${svc.url}/api/v1/write`, { method: 'POST', body: 'x', headers: protobuf })).status).to.equal(401);
    const [row] = await queryRows<{ n: number }>(svc.stores.clickhouse, "SELECT count() AS n FROM logs WHERE event = 'intruder.gauge'");
    expect(row!.n).to.equal(0);
  });

  it('answers remote-write garbage inside valid snappy with 400, and a good write with 204', async () => {
    const garbage = Buffer.from(snappy.compress(Buffer.from('\xff\xff\xff\xff\x0f', 'latin1')));
    expect((await post('/api/v1/write', garbage, { ...protobuf, 'content-encoding': 'snappy' })).status).to.equal(400);
    const write = WriteRequest.fromObject({
      timeseries: [
        {
          labels: [
            { name: '__name__', value: 'rw_gauge' },
            { name: 'job', value: 'j' },
          ],
          samples: [
            { value: 4, timestamp: Date.now() },
            { value: Number.POSITIVE_INFINITY, timestamp: Date.now() + 1 },
          ],
        },
      ],
    });
    const body = Buffer.from(snappy.compress(WriteRequest.encode(write).finish()));
    expect((await post('/api/v1/write', body, { ...protobuf, 'content-encoding': 'snappy' })).status).to.equal(204);
    await svc.services.ingestor!.caughtUp();
    const rows = await queryRows<{ agent: string; value: number }>(
      svc.stores.clickhouse,
      "SELECT agent, value FROM logs WHERE workspace_id = {ws:String} AND event = 'rw_gauge'",
      { ws },
    );
    expect(rows).to.deep.equal([{ agent: 'j', value: 4 }]);
  });
});
