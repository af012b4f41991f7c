// A workspace may have at most WORKSPACE_MAX_EVENT_DEFINITIONS event definitions (issue 7,
// item 6): a batch that would create one more is refused with a 400 naming the limit, and
// nothing of it is stored, not even the definitions it created before reaching it.
import { expect } from 'chai';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('event definitions per workspace are capped', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { WORKSPACE_MAX_EVENT_DEFINITIONS: '5' } });
  });
  after(() => svc.close());

  const definitionCount = async (ws: string) =>
    (await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM event_definitions WHERE user_id = $1', [ws]))[0]!.n;
  const logs = (events: string[]) => events.map((event, i) => ({ event, value: i }));

  it('refuses a batch crossing the limit, stores nothing of it, and keeps taking known pairs', async () => {
    const token = await svc.tokenFor('capped');
    const first = await svc.request('POST', '/v1.0/logs', { token, body: logs(['a', 'b', 'c']) });
    expect(first.status, first.text).to.equal(200);

    // Three new pairs where two fit: the batch is refused and the two are not kept either.
    const crossing = await svc.request('POST', '/v1.0/logs', { token, body: logs(['a', 'd', 'e', 'a', 'f']) });
    expect(crossing.status, crossing.text).to.equal(400);
    expect(crossing.body.error.code).to.equal('event_definition_limit');
    expect(crossing.body.error.message).to.include('5 event definitions');
    expect(crossing.body.error.details.map((d: { path: string }) => d.path)).to.have.length.greaterThan(0);
    expect(await definitionCount('capped')).to.equal(3);
    expect(await storedLogCount(svc.stores.clickhouse, 'capped')).to.equal(3);

    const fitting = await svc.request('POST', '/v1.0/logs', { token, body: logs(['a', 'd', 'e']) });
    expect(fitting.status, fitting.text).to.equal(200);
    const over = await svc.request('POST', '/v1.0/logs', { token, body: logs(['g']) });
    expect(over.status, over.text).to.equal(400);
    expect(over.body.error.details).to.deep.equal([{ path: '/0/event', message: "would create a new event definition beyond the workspace's limit of 5" }]);
    const known = await svc.request('POST', '/v1.0/logs', { token, body: logs(['b', 'e']) });
    expect(known.status, known.text).to.equal(200);
    expect(await definitionCount('capped')).to.equal(5);
    expect(await storedLogCount(svc.stores.clickhouse, 'capped')).to.equal(8);
  });

  it('holds for definitions created through the API too', async () => {
    const token = await svc.tokenFor('capped-api');
    for (const event of ['a', 'b', 'c', 'd', 'e']) {
      const res = await svc.request('POST', '/v1.0/events', { token, body: { event } });
      expect(res.status, res.text).to.equal(201);
    }
    const over = await svc.request('POST', '/v1.0/events', { token, body: { event: 'f' } });
    expect(over.status, over.text).to.equal(400);
    expect(over.body.error.code).to.equal('event_definition_limit');
    expect(over.body.error.message).to.include('5 event definitions');
    const taken = await svc.request('POST', '/v1.0/events', { token, body: { event: 'a' } });
    expect(taken.status, taken.text).to.equal(409);
    const logs = await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'f', value: 1 }] });
    expect(logs.status, logs.text).to.equal(400);
    expect(await definitionCount('capped-api')).to.equal(5);
  });

  it('counts each workspace on its own', async () => {
    const token = await svc.tokenFor('uncapped-neighbour');
    const res = await svc.request('POST', '/v1.0/logs', { token, body: logs(['a', 'b', 'c', 'd', 'e']) });
    expect(res.status, res.text).to.equal(200);
  });
});
