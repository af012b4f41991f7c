// GET /v1.0/analytics?event=…: an event name's groups compared across two windows and ranked,
// on a fixture whose every figure is known: the order for several fields and both directions
// (nulls last), grouping by a declared key and filtering on it, the figures of one agent equal
// to its definition's own comparison, and a clear 4xx for every bad parameter.
import { expect } from 'chai';
import { rankedComparison, type RankedComparisonRequest } from '../../../src/analytics/rankedComparison.js';
import { windowComparison, type ComparisonNumbers } from '../../../src/analytics/windowComparison.js';
import { expectedNumbers, expectSameNumbers } from '../../helpers/analytics.js';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

describeInOneRun('ranked window comparison', function () {
  this.timeout(120_000);
  const workspaceId = 'ranked-ws';
  let svc: TestService;
  let token: string;
  // Two days ago at half past an hour: the current window is that hour's first 31 minutes, the previous one the hour before's.
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 48 * 3_600_000;
  const now = hour + 30 * 60_000 + 5_000;
  const current = (i: number) => new Date(hour + 60_000 + i * 1_000).toISOString();
  const previous = (i: number) => new Date(hour - 3_600_000 + 60_000 + i * 1_000).toISOString();
  const outside = (i: number) => new Date(hour - 2 * 3_600_000 + i * 1_000).toISOString();
  // agent → code, values in the previous window, values in the current one.
  const fixture: Record<string, { code: string; previous: number[]; current: number[] }> = {
    'agent-1': { code: '500', previous: [10], current: [10, 20] }, // +200 %
    'agent-2': { code: '200', previous: [60, 40], current: [50] }, // −50 %
    'agent-3': { code: '500', previous: [], current: [5] }, // null: no base
    'agent-4': { code: '200', previous: [20], current: [5, 15] }, // 0 %
    'agent-5': { code: '200', previous: [8], current: [] }, // −100 %
  };

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'all' } });
    token = await svc.tokenFor(workspaceId);
    expect((await svc.request('PUT', '/v1.0/dimensions/job.ms', { token, body: { keys: ['code'] } })).status).to.equal(200);
    const logs = Object.entries(fixture).flatMap(([agent, f]) => [
      ...f.previous.map((value, i) => ({ agent, event: 'job.ms', value, occurred_at: previous(i), meta: { code: f.code } })),
      ...f.current.map((value, i) => ({ agent, event: 'job.ms', value, occurred_at: current(i), meta: { code: f.code } })),
      { agent, event: 'job.ms', value: 1_000, occurred_at: outside(0), meta: { code: f.code } },
    ]);
    logs.push({ agent: 'agent-6', event: 'job.ms', value: 7, occurred_at: outside(1), meta: { code: '200' } });
    await sendLogs(svc, token, logs);
  });
  after(() => svc.close());

  const rank = (overrides: Partial<RankedComparisonRequest> = {}) =>
    rankedComparison(svc.stores, svc.services.timezones, workspaceId, {
      event: 'job.ms',
      period: '1h',
      previous: 'previous_window',
      agents: [],
      filters: [],
      groupBy: ['agent'],
      timezone: 'UTC',
      orderBy: 'value_pct_change',
      direction: 'desc',
      limit: 10,
      now,
      ...overrides,
    });
  const agentsOf = (r: Awaited<ReturnType<typeof rank>>) => r.data.map((g) => g.labels.agent);

  it('ranks the agents by value_pct_change, nulls last in both directions, and cuts at limit', async () => {
    const desc = await rank();
    expect(agentsOf(desc)).to.deep.equal(['agent-1', 'agent-4', 'agent-2', 'agent-5', 'agent-3']);
    expect(desc.truncated).to.equal(false);
    expect(desc.data.map((g) => g.value_pct_change)).to.deep.equal([200, 0, -50, -100, null]);
    expect(agentsOf(await rank({ direction: 'asc' }))).to.deep.equal(['agent-5', 'agent-2', 'agent-4', 'agent-1', 'agent-3']);
    const two = await rank({ limit: 2 });
    expect(agentsOf(two)).to.deep.equal(['agent-1', 'agent-4']);
    expect(two.truncated).to.equal(true);
    expect(new Date(desc.windows.current.from).toISOString()).to.equal(new Date(hour).toISOString());
  });

  it('computes every figure of each group as the values give them, and ranks by any field', async () => {
    const result = await rank();
    for (const group of result.data) {
      const f = fixture[group.labels.agent!]!;
      const { labels, ...figures } = group;
      expectSameNumbers(figures as ComparisonNumbers, expectedNumbers(f.current, f.previous));
    }
    // Ties are ranked by group: agents 1, 3 and 4 each have one record more.
    expect(agentsOf(await rank({ orderBy: 'count_delta' }))).to.deep.equal(['agent-1', 'agent-3', 'agent-4', 'agent-2', 'agent-5']);
    expect(agentsOf(await rank({ orderBy: 'previous_mean', direction: 'asc' }))).to.deep.equal(['agent-5', 'agent-1', 'agent-4', 'agent-2', 'agent-3']);
  });

  it("gives one agent's figures equal to its definition's own comparison", async () => {
    const definitions = (await svc.request('GET', '/v1.0/events', { token })).body as { event_id: string; agent: string; event: string }[];
    const list = Array.isArray(definitions) ? definitions : (definitions as unknown as { items: typeof definitions }).items;
    const eventId = list.find((d) => d.agent === 'agent-2' && d.event === 'job.ms')!.event_id;
    const own = await windowComparison(svc.stores, workspaceId, { eventId, period: '1h', previous: 'previous_window', now });
    const ranked = await rank({ agents: ['agent-2'] });
    expect(ranked.data).to.have.length(1);
    const { labels, ...figures } = ranked.data[0]!;
    expect(labels).to.deep.equal({ agent: 'agent-2' });
    expect(figures).to.deep.equal(own.data);
  });

  it('groups by a declared key, filters on it, and reads the whole fleet as one group', async () => {
    const byCode = await rank({ groupBy: ['code'] });
    expect(byCode.data.map((g) => [g.labels, g.current_value, g.previous_value])).to.deep.equal([
      [{ code: '500' }, 35, 10],
      [{ code: '200' }, 70, 128],
    ]);
    const filtered = await rank({ filters: ['code:500'], orderBy: 'current_value' });
    expect(agentsOf(filtered)).to.deep.equal(['agent-1', 'agent-3']);
    const fleet = await rank({ groupBy: [] });
    expect(fleet.data.map((g) => [g.labels, g.current_count, g.previous_count])).to.deep.equal([[{}, 6, 5]]);
    const both = await rank({ groupBy: ['agent', 'code'], agents: ['agent-[12]', 'agent-1*'] });
    expect(both.data.map((g) => g.labels)).to.deep.equal([{ agent: 'agent-1', code: '500' }]);
  });

  it('answers the route with the ranked groups, and 404 for a name no agent of the workspace sends', async () => {
    // Records of this minute: in this month's window (unless the month turns during the test).
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    await sendLogs(
      svc,
      token,
      [1, 2, 3, 4].flatMap((n) => Array.from({ length: n }, () => ({ agent: `live-${n}`, event: 'live.ms', value: n, occurred_at: at }))),
    );
    const res = await svc.request(
      'GET',
      '/v1.0/analytics?event=live.ms&view=window&period=1m&previous=previous_window&group_by=agent&order_by=current_count&limit=3&timezone=Europe/Berlin',
      { token },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ event: 'live.ms', view: 'window', period: '1m', previous: 'previous_window', timezone: 'Europe/Berlin', truncated: true });
    expect(res.body.group_by).to.deep.equal(['agent']);
    expect(res.body.data.map((g: { labels: object; current_count: number }) => [g.labels, g.current_count])).to.deep.equal([
      [{ agent: 'live-4' }, 4],
      [{ agent: 'live-3' }, 3],
      [{ agent: 'live-2' }, 2],
    ]);
    expect(Object.keys(res.body.data[0]).sort()).to.deep.equal(['labels', ...Object.keys(expectedNumbers([1], [1])!)].sort());
    const other = await svc.tokenFor('ranked-other-ws');
    const q = '/v1.0/analytics?event=job.ms&view=window&period=1d&previous=previous_window';
    expect((await svc.request('GET', `${q}&group_by=agent`, { token: other })).status).to.equal(404);
    expect((await svc.request('GET', `${q}&group_by=code`, { token: other })).status).to.equal(400);
    expect((await svc.request('GET', '/v1.0/analytics?event=no.such&view=window&period=1d&previous=previous_window', { token })).status).to.equal(404);
  });

  it('answers 400 for every bad parameter, naming it', async () => {
    const base = 'event=job.ms&view=window&period=1d&previous=previous_window';
    const bad: [query: string, path: string][] = [
      [`${base}&group_by=region`, '/group_by'],
      [`${base}&filter=region:eu`, '/filter'],
      [`${base}&filter=nocolon`, '/filter/0'],
      [`${base}&group_by=code,code`, '/group_by'],
      [`${base}&group_by=${Array.from({ length: 10 }, (_, i) => `k${i}`).join(',')}`, '/group_by'],
      [`${base}&limit=0`, '/limit'],
      [`${base}&limit=1001`, '/limit'],
      [`${base}&limit=99999999999999999999`, '/limit'],
      [`${base}&limit=1.5`, '/limit'],
      [`${base}&limit=10&limit=20`, '/limit'],
      [`${base}&order_by=nope`, '/order_by'],
      [`${base}&direction=up`, '/direction'],
      [`${base}&timezone=Mars/Olympus`, '/timezone'],
      [`${base}&valeu=1`, '/valeu'],
      ['event=job.ms&view=window&period=2h&previous=previous_window', '/period'],
      ['event=job.ms&view=window&period=1d&previous=yesterday', '/previous'],
      ['event=job.ms&view=table&period=1d&previous=previous_window', '/view'],
      ['view=window&period=1d&previous=previous_window', '/event'],
      ['event=job.ms&view=window&period=1d', '/previous'],
      ['event=job.ms&view=window&period=1m&previous=previous_1d', '/previous'],
      [`${base}&${Array.from({ length: 101 }, () => 'filter=code:500').join('&')}`, '/filter'],
      [`${base}&${Array.from({ length: 101 }, () => 'agent=a*').join('&')}`, '/agent'],
      [`${base}&agent=${'*'.repeat(12_000)}`, ''],
      [`event=${'e'.repeat(201)}&view=window&period=1d&previous=previous_window`, '/event'],
      ['event=%00&view=window&period=1d&previous=previous_window', '/event'],
    ];
    for (const [query, path] of bad) {
      const res = await svc.request('GET', `/v1.0/analytics?${query}`, { token });
      expect(res.status, `${query.slice(0, 80)}: ${res.text}`).to.equal(400);
      expect(
        res.body.error.details.map((d: { path: string }) => d.path),
        query.slice(0, 80),
      ).to.include(path);
    }
    // Invalid UTF-8 (here an encoded lone surrogate) is refused, not read as the U+FFFD it decodes to.
    const invalidUtf8 = await svc.request('GET', '/v1.0/analytics?event=%ED%A0%80&view=window&period=1d&previous=previous_window', { token });
    expect(invalidUtf8.status).to.equal(400);
    expect(invalidUtf8.body.error.details.map((d: { path: string }) => d.path)).to.include('/event');
    // A pattern of nothing but stars is every agent; 10,000 filters do not reach the handler whole.
    expect((await svc.request('GET', `/v1.0/analytics?${base}&agent=${'*'.repeat(5_000)}`, { token })).status).to.equal(200);
    const many = await svc.request('GET', `/v1.0/analytics?${base}&${Array.from({ length: 10_000 }, () => 'filter=code:5').join('&')}`, { token });
    expect(many.status).to.be.within(400, 499);
  });
});
