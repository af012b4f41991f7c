// The OpenTelemetry JS SDK exports a histogram with attributes: its point attribute keys
// become the metric's dimensions on first sight, and GET /v1.0/series?group_by= shows each
// attribute value's exact count, sum, min and max (histogram points are summary rows).
import { expect } from 'chai';
import { otelSdk } from '../../helpers/otel.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('OpenTelemetry histogram attributes as series', function () {
  this.timeout(120_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it("shows each attribute value's exact count, sum, min and max", async () => {
    const token = await svc.tokenFor('otel-series-ws');
    const provider = otelSdk({ url: svc.url, token, encoding: 'protobuf', serviceName: 'checkout' });
    const latency = provider.getMeter('m').createHistogram('http.server.duration');
    const byRoute: Record<string, number[]> = { '/home': [3, 7, 12, 40], '/cart': [41, 42, 90, 180, 260], '/pay': [700, 1500] };
    for (const [route, values] of Object.entries(byRoute)) for (const v of values) latency.record(v, { 'http.route': route, 'http.method': 'GET' });
    await provider.forceFlush();
    await provider.shutdown();
    await svc.services.ingestor!.caughtUp();

    const declared = await svc.request('GET', '/v1.0/dimensions/http.server.duration', { token });
    expect(declared.status, declared.text).to.equal(200);
    expect([...declared.body.keys].sort()).to.deep.equal(['http.method', 'http.route']);
    const res = await svc.request('GET', '/v1.0/series?event=http.server.duration&group_by=http.route', { token });
    expect(res.status, res.text).to.equal(200);
    const got = Object.fromEntries(
      (res.body.series as { labels: Record<string, string>; buckets: { count: number; value: number; min: number; max: number }[] }[]).map((s) => [
        s.labels['http.route'],
        s.buckets.reduce((t, b) => ({ count: t.count + b.count, value: t.value + b.value, min: Math.min(t.min, b.min), max: Math.max(t.max, b.max) }), {
          count: 0,
          value: 0,
          min: Infinity,
          max: -Infinity,
        }),
      ]),
    );
    const expected = Object.fromEntries(
      Object.entries(byRoute).map(([route, v]) => [route, { count: v.length, value: v.reduce((a, b) => a + b, 0), min: Math.min(...v), max: Math.max(...v) }]),
    );
    expect(got).to.deep.equal(expected);
  });
});
