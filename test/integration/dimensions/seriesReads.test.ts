// GET /v1.0/series: an event name's groups by agent and declared keys, each value's exact
// figures, filters and agent patterns, and a clear 400 for every bad parameter.
import { expect } from 'chai';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('series reads', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  const minute = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 60_000;
  const at = (i: number) => new Date(minute + 1_000 + i * 10).toISOString();

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'all' } });
    token = await svc.tokenFor('series-read-ws');
    expect((await svc.request('PUT', '/v1.0/dimensions/rpc.ms', { token, body: { keys: ['method'] } })).status).to.equal(200);
    const logs = [
      ...[5, 7, 9].map((value) => ({ agent: 'svc-a', method: 'get', value })),
      ...[100, 50].map((value) => ({ agent: 'svc-a', method: 'put', value })),
      ...[1].map((value) => ({ agent: 'svc-b', method: 'get', value })),
    ];
    await sendLogs(
      svc,
      token,
      logs.map((l, i) => ({ agent: l.agent, event: 'rpc.ms', value: l.value, occurred_at: at(i), meta: { method: l.method } })),
    );
  });
  after(() => svc.close());

  const read = (query: string, as = token) => svc.request('GET', `/v1.0/series?event=rpc.ms&${query}`, { token: as });
  const figures = (body: { series: { labels: Record<string, string>; buckets: { count: number; value: number; min: number; max: number }[] }[] }) =>
    body.series.map((s) => [s.labels, s.buckets.map((b) => [b.count, b.value, b.min, b.max])]);

  it("groups by a declared key: each value's exact count, sum, min and max", async () => {
    const res = await read('group_by=method');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ event: 'rpc.ms', period: 'minute', truncated: false });
    expect(figures(res.body)).to.deep.equal([
      [{ method: 'get' }, [[4, 22, 1, 9]]],
      [{ method: 'put' }, [[2, 150, 50, 100]]],
    ]);
  });

  it('reads the whole fleet, by agent, filtered, and by agent pattern', async () => {
    expect(figures((await read('')).body)).to.deep.equal([[{}, [[6, 172, 1, 100]]]]);
    expect(figures((await read('group_by=agent')).body)).to.deep.equal([
      [{ agent: 'svc-a' }, [[5, 171, 5, 100]]],
      [{ agent: 'svc-b' }, [[1, 1, 1, 1]]],
    ]);
    expect(figures((await read('group_by=agent,method&filter=method:get')).body)).to.deep.equal([
      [{ agent: 'svc-a', method: 'get' }, [[3, 21, 5, 9]]],
      [{ agent: 'svc-b', method: 'get' }, [[1, 1, 1, 1]]],
    ]);
    expect(figures((await read('filter=method:get&filter=method:put&agent=svc-*&agent=nothing')).body)).to.deep.equal([[{}, [[6, 172, 1, 100]]]]);
    expect(figures((await read('agent=*-b')).body)).to.deep.equal([[{}, [[1, 1, 1, 1]]]]);
    const limited = await read('group_by=method&limit=1');
    expect(limited.body.truncated).to.equal(true);
    expect(limited.body.series).to.have.length(1);
  });

  it('reads other periods, and nothing of an unknown name or of another workspace', async () => {
    expect(figures((await read('period=hour')).body)).to.deep.equal([[{}, [[6, 172, 1, 100]]]]);
    expect((await svc.request('GET', '/v1.0/series?event=no.such', { token })).body.series).to.deep.equal([]);
    const other = await svc.tokenFor('series-read-other');
    expect((await read('group_by=agent', other)).body.series).to.deep.equal([]);
    expect((await read('group_by=method', other)).status).to.equal(400);
  });

  it('answers 400 for every bad parameter', async () => {
    const bad = [
      'group_by=region',
      'filter=region:eu',
      'filter=nocolon',
      'period=week',
      'limit=0',
      'limit=10001',
      'limit=1.5',
      'from=yesterday',
      `from=${new Date().toISOString()}&to=${new Date(Date.now() - 60_000).toISOString()}`,
      'group_by=method,method',
      'valeu=1',
      'event=other',
      `group_by=${Array.from({ length: 10 }, (_, i) => `k${i}`).join(',')}`,
      Array.from({ length: 101 }, () => 'filter=method:get').join('&'),
      `filter=method:${'x'.repeat(12_000)}`,
    ];
    for (const query of bad) {
      const res = await read(query);
      expect(res.status, `${query.slice(0, 80)}: ${res.text}`).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
    }
    expect((await svc.request('GET', '/v1.0/series', { token })).status).to.equal(400);
    expect((await svc.request('GET', `/v1.0/series?event=${'e'.repeat(201)}`, { token })).status).to.equal(400);
    expect((await svc.request('GET', '/v1.0/series?event=%00', { token })).status).to.equal(400);
  });
});
