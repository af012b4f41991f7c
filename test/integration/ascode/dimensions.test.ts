// Dimensions in an alerting-as-code document (docs/as-code.md): `{event, keys}` by event name,
// planned field by field, applied with everything else in one transaction, deleted only with
// prune; the backfill of a declaration the apply made runs once the apply has committed, and
// a refused apply declares nothing and starts no backfill.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { queryRows, sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import type { Json } from '../../helpers/http.js';

describe('alerting as code: dimensions', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  const ws = 'ascode-dims-ws';

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService({ env: { INGEST_FLUSH_INTERVAL_MS: '0' } });
    token = await svc.tokenFor(ws);
    const now = Date.now();
    await sendLogs(
      svc,
      token,
      Array.from({ length: 30 }, (_, i) => ({
        log_id: randomUUID(),
        agent: 'web',
        event: 'checkout.ms',
        value: i,
        occurred_at: new Date(now - (i % 10) * 60_000).toISOString(),
        meta: { route: i % 2 === 0 ? '/checkout' : '/cart', code: 200 },
      })),
    );
  });
  after(async () => svc?.close());

  const plan = (doc: unknown, query = '') => svc.request('POST', `/v1.0/config/plan${query}`, { token, body: doc });
  const apply = (doc: unknown, query = '') => svc.request('POST', `/v1.0/config/apply${query}`, { token, body: doc });
  const declaration = (event: string) => svc.request('GET', `/v1.0/dimensions/${encodeURIComponent(event)}`, { token });
  const routes = async () =>
    (
      await queryRows<{ route: string }>(
        svc.stores.clickhouse,
        `SELECT DISTINCT labels['route'] AS route FROM series_minute WHERE workspace_id = {ws:String} AND event = 'checkout.ms' ORDER BY route`,
        { ws },
      )
    ).map((r) => r.route);

  it('a refused apply declares nothing and starts no backfill', async () => {
    const res = await apply({
      version: 1,
      dimensions: [{ event: 'checkout.ms', keys: ['route'] }],
      people: [{ key: 'eve', name: 'Eve', destinations: ['no-such-destination'] }],
    });
    expect(res.status, res.text).to.equal(400);
    expect((await declaration('checkout.ms')).status).to.equal(404);
    expect(await routes()).to.deep.equal([]);
  });

  it('creates a declaration; its backfill runs after the commit; plan of the export has no changes', async () => {
    const doc = { version: 1, dimensions: [{ event: 'checkout.ms', keys: ['route'] }] };
    expect((await plan(doc)).body.changes).to.deep.equal([{ kind: 'dimensions', key: 'checkout.ms', action: 'create', fields: ['keys'] }]);
    const applied = await apply(doc);
    expect(applied.status, applied.text).to.equal(200);
    expect(applied.body.changes).to.deep.equal([{ kind: 'dimensions', key: 'checkout.ms', action: 'create', fields: ['keys'] }]);
    expect((await declaration('checkout.ms')).body.keys).to.deep.equal(['route']);
    await waitFor('the backfill done', async () => ((await declaration('checkout.ms')).body.backfill.status === 'done' ? true : null), 60_000);
    expect(await routes()).to.deep.equal(['/cart', '/checkout']);
    const exported = (await svc.request('GET', '/v1.0/config', { token })).body as Json;
    expect(exported.dimensions).to.deep.equal([{ event: 'checkout.ms', keys: ['route'] }]);
    expect((await plan(exported)).body.changes).to.deep.equal([]);
  });

  it('updates the keys field by field, and backfills again', async () => {
    const doc = { version: 1, dimensions: [{ event: 'checkout.ms', keys: ['route', 'code'] }] };
    const applied = await apply(doc);
    expect(applied.status, applied.text).to.equal(200);
    expect(applied.body.changes).to.deep.equal([{ kind: 'dimensions', key: 'checkout.ms', action: 'update', fields: ['keys'] }]);
    expect((await declaration('checkout.ms')).body.keys).to.deep.equal(['route', 'code']);
    await waitFor('the backfill done', async () => ((await declaration('checkout.ms')).body.backfill.status === 'done' ? true : null), 60_000);
    const codes = await queryRows<{ code: string }>(
      svc.stores.clickhouse,
      `SELECT DISTINCT labels['code'] AS code FROM series_minute WHERE workspace_id = {ws:String} AND event = 'checkout.ms'`,
      { ws },
    );
    expect(codes.map((c) => c.code)).to.deep.equal(['200']);
    expect((await apply(doc)).body.changes).to.deep.equal([]);
  });

  it('lists a declaration the document lacks as unmanaged, and deletes it only with prune', async () => {
    const empty = { version: 1 };
    const planned = await plan(empty);
    expect(planned.body.changes).to.deep.equal([]);
    expect(planned.body.unmanaged).to.deep.equal([{ kind: 'dimensions', key: 'checkout.ms' }]);
    expect((await apply(empty)).status).to.equal(200);
    expect((await declaration('checkout.ms')).status).to.equal(200);
    const pruned = await apply(empty, '?prune=true');
    expect(pruned.status, pruned.text).to.equal(200);
    expect(pruned.body.changes).to.deep.equal([{ kind: 'dimensions', key: 'checkout.ms', action: 'delete', fields: [] }]);
    expect((await declaration('checkout.ms')).status).to.equal(404);
    expect(await routes()).to.deep.equal([]);
  });

  it('refuses an event name given twice and keys the PUT refuses, with paths into the document', async () => {
    const res = await plan({
      version: 1,
      dimensions: [
        { event: 'a.ms', keys: ['route'] },
        { event: 'a.ms', keys: ['code'] },
        { event: 'b.ms', keys: ['agent', 'x', 'x'] },
        { event: ' c', keys: [] },
      ],
    });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.details.map((d: Json) => d.path)).to.deep.equal([
      '/dimensions/1/event',
      '/dimensions/2/keys/0',
      '/dimensions/2/keys/2',
      '/dimensions/3/event',
    ]);
    const schema = await plan({ version: 1, dimensions: [{ event: 'a.ms', keys: ['route'], key: 'nope' }] });
    expect(schema.status, schema.text).to.equal(400);
  });

  it('leaves the declarations OTLP made on first sight outside the document until a PUT or a document takes them over', async () => {
    const nanos = `${BigInt(Date.now()) * 1_000_000n}`;
    const otlp = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'queue.depth',
                  gauge: { dataPoints: [{ timeUnixNano: nanos, asDouble: 3, attributes: [{ key: 'queue', value: { stringValue: 'mail' } }] }] },
                },
              ],
            },
          ],
        },
      ],
    };
    const sent = await svc.request('POST', '/v1/metrics', { token, body: otlp });
    expect(sent.status, sent.text).to.equal(200);
    expect((await declaration('queue.depth')).body.keys).to.deep.equal(['queue']);

    // Not exported, not unmanaged, not pruned: telemetry declares names no file lists.
    const exported = (await svc.request('GET', '/v1.0/config', { token })).body;
    expect((exported.dimensions ?? []).map((d: Json) => d.event)).to.not.include('queue.depth');
    const pruned = await apply({ version: 1 }, '?prune=true');
    expect(pruned.status, pruned.text).to.equal(200);
    expect(pruned.body.unmanaged).to.deep.equal([]);
    expect((await declaration('queue.depth')).status).to.equal(200);
    expect((await plan(exported)).body.changes).to.deep.equal([]);

    // A PUT takes it over: from then on it is the workspace's like any other.
    expect((await svc.request('PUT', '/v1.0/dimensions/queue.depth', { token, body: { keys: ['queue'] } })).status).to.equal(200);
    const listed = await plan({ version: 1 });
    expect(listed.body.unmanaged).to.deep.equal([{ kind: 'dimensions', key: 'queue.depth' }]);
    expect((await apply({ version: 1 }, '?prune=true')).status).to.equal(200);
    expect((await declaration('queue.depth')).status).to.equal(404);
  });
});
