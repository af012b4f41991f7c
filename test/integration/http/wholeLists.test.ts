// The SDKs list events, policies and destinations without `limit` and cannot page, then find
// an item by name in what came back: without `limit` these lists hold every item of the
// workspace (with 119 events the SDKs' lookups missed the oldest 19). `limit`/`offset` still
// page when given; alerts are whole up to 10,000 (test/integration/http/contract.test.ts), delivery history keeps its first 100.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

const COUNT = 119;

describe('lists without limit', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let eventId: string;
  const created: Record<string, string[]> = { events: [], policies: [], destinations: [] };

  const idOf = (kind: string, item: Record<string, string>) => item[kind === 'events' ? 'event_id' : kind === 'policies' ? 'policy_id' : 'destination_id']!;

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('whole-lists-ws');
    const bodies: Record<string, (i: number) => unknown> = {
      events: (i) => ({ event: `event.${i}`, agent: 'a' }),
      policies: (i) => ({
        event_id: eventId,
        title: `Policy ${i}`,
        channel: 'ops',
        period: 'minute',
        aggregate: 'count',
        condition: 'gt',
        threshold: i,
        severity: 'warning',
        enabled: false,
      }),
      destinations: (i) => ({ channel: 'webhook', url: `https://example.com/hook/${i}` }),
    };
    for (const kind of ['events', 'policies', 'destinations']) {
      for (let i = 0; i < COUNT; i++) {
        const res = await svc.request('POST', `/v1.0/${kind}`, { token, body: bodies[kind]!(i) });
        expect(res.status, `${kind} ${i}: ${res.text}`).to.equal(201);
        created[kind]!.push(idOf(kind, res.body));
        if (kind === 'events' && i === 0) eventId = res.body.event_id;
      }
    }
  });
  after(() => svc.close());

  for (const kind of ['events', 'policies', 'destinations']) {
    it(`GET /v1.0/${kind} without limit answers all ${COUNT}, newest first, the oldest included`, async () => {
      const res = await svc.request('GET', `/v1.0/${kind}`, { token });
      expect(res.status).to.equal(200);
      const ids = res.body.map((item: Record<string, string>) => idOf(kind, item));
      expect(ids).to.deep.equal([...created[kind]!].reverse());
    });

    it(`GET /v1.0/${kind} still pages with limit and offset, and offset alone skips`, async () => {
      const newestFirst = [...created[kind]!].reverse();
      const page = await svc.request('GET', `/v1.0/${kind}?limit=50&offset=100`, { token });
      expect(page.body.map((item: Record<string, string>) => idOf(kind, item))).to.deep.equal(newestFirst.slice(100, 150));
      const rest = await svc.request('GET', `/v1.0/${kind}?offset=30`, { token });
      expect(rest.body.map((item: Record<string, string>) => idOf(kind, item))).to.deep.equal(newestFirst.slice(30));
      expect((await svc.request('GET', `/v1.0/${kind}?limit=1001`, { token })).status).to.equal(400);
    });
  }

  it('documents the default in the OpenAPI document: every item for these three, every match up to 10,000 for alerts', async () => {
    const doc = (await svc.request('GET', '/v1.0/openapi.json')).body;
    const limitOf = (path: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'limit');
    for (const path of ['/v1.0/events', '/v1.0/policies', '/v1.0/destinations']) expect(limitOf(path).description, path).to.match(/every item/);
    expect(limitOf('/v1.0/alerts').description).to.match(/every alert matching the query, newest first, at most 10000/);
  });
});

// Whole lists stay bounded: each of these lists is capped per workspace by configuration.
describe('per-workspace caps of the whole lists', function () {
  this.timeout(120_000);
  let svc: TestService;
  const caps = { policies: 3, destinations: 2 };

  before(async () => {
    svc = await startTestService({ env: { WORKSPACE_MAX_POLICIES: String(caps.policies), WORKSPACE_MAX_DESTINATIONS: String(caps.destinations) } });
  });
  after(() => svc.close());

  async function workspaceWithEvent(name: string): Promise<{ token: string; eventId: string }> {
    const token = await svc.tokenFor(name);
    const res = await svc.request('POST', '/v1.0/events', { token, body: { event: 'capped', agent: 'a' } });
    expect(res.status, res.text).to.equal(201);
    return { token, eventId: res.body.event_id };
  }
  const bodyOf = (kind: 'policies' | 'destinations', eventId: string, i: number) =>
    kind === 'policies'
      ? { event_id: eventId, title: `P${i}`, period: 'minute', aggregate: 'count', condition: 'gt', threshold: i, severity: 'warning', enabled: false }
      : { channel: 'webhook', url: `https://example.com/hook/${i}` };

  for (const kind of ['policies', 'destinations'] as const) {
    const code = kind === 'policies' ? 'policy_limit_reached' : 'destination_limit_reached';

    it(`refuses one ${kind === 'policies' ? 'policy' : 'destination'} past the cap with 409 ${code}, stores nothing, and leaves other workspaces free`, async () => {
      const full = await workspaceWithEvent(`cap-${kind}-full`);
      for (let i = 0; i < caps[kind]; i++) {
        expect((await svc.request('POST', `/v1.0/${kind}`, { token: full.token, body: bodyOf(kind, full.eventId, i) })).status).to.equal(201);
      }
      const refused = await svc.request('POST', `/v1.0/${kind}`, { token: full.token, body: bodyOf(kind, full.eventId, 99) });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.body.error.code).to.equal(code);
      expect(refused.body.error.message).to.include(String(caps[kind]));
      expect((await svc.request('GET', `/v1.0/${kind}`, { token: full.token })).body).to.have.length(caps[kind]);

      const other = await workspaceWithEvent(`cap-${kind}-other`);
      expect((await svc.request('POST', `/v1.0/${kind}`, { token: other.token, body: bodyOf(kind, other.eventId, 0) })).status).to.equal(201);
    });

    it(`counts concurrent creations of ${kind} against each other`, async () => {
      const ws = await workspaceWithEvent(`cap-${kind}-race`);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => svc.request('POST', `/v1.0/${kind}`, { token: ws.token, body: bodyOf(kind, ws.eventId, i) })),
      );
      expect(answers.filter((a) => a.status === 201)).to.have.length(caps[kind]);
      expect(answers.filter((a) => a.status === 409)).to.have.length(6 - caps[kind]);
      expect((await svc.request('GET', `/v1.0/${kind}`, { token: ws.token })).body).to.have.length(caps[kind]);
    });
  }
});
