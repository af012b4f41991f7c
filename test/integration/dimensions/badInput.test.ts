// The routes of fleets and dimensions (docs/fleets.md) tried as a careless client and an
// attacker would: huge and nested values, NUL, lone surrogates, invalid UTF-8 (in the body, in
// the query and percent-encoded in the path), 10,000 filters, a group_by of every key, patterns
// of nothing but stars, and another workspace's event names. Each gets a 4xx with a stable
// error code, and a read-back shows that nothing changed.
import { expect } from 'chai';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const KEYS = ['route', 'code', 'region', 'method', 'host', 'zone', 'tier', 'shard'];

describe('fleets and dimensions: bad input', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;

  /** A declaration as a request may change it (its backfill moves on by itself). */
  const declared = (list: { event: string; keys: string[]; updated_at: string }[]) => list.map((d) => [d.event, d.keys, d.updated_at]);
  /** The workspace's dimensions and policies, and the other's dimensions, to compare before and after each bad request. */
  const state = async () => ({
    dimensions: declared((await svc.request('GET', '/v1.0/dimensions', { token })).body),
    policies: (await svc.request('GET', '/v1.0/policies', { token })).body,
    theirs: declared((await svc.request('GET', '/v1.0/dimensions', { token: otherToken })).body),
  });

  /** A request whose body or path is sent byte for byte (fetch would re-encode a string). */
  const raw = async (method: string, path: string, body?: Uint8Array) => {
    const res = await fetch(svc.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body,
    });
    const text = await res.text();
    return { status: res.status, text, body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };

  const expectRefused = (res: { status: number; text: string; body: { error?: { code?: string } } }, what: string, codes: readonly string[]) => {
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).to.be.within(400, 499);
    expect(res.body.error?.code, `${what}: ${res.text.slice(0, 300)}`).to.be.oneOf(codes);
  };

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'all' } });
    token = await svc.tokenFor('bad-input-fleet-ws');
    otherToken = await svc.tokenFor('bad-input-fleet-other');
    expect((await svc.request('PUT', '/v1.0/dimensions/http.ms', { token, body: { keys: KEYS } })).status).to.equal(200);
    await sendLogs(
      svc,
      token,
      ['web-1', 'web-2'].map((agent) => ({ agent, event: 'http.ms', value: 10, meta: { route: '/a', code: '200' } })),
    );
    await sendLogs(svc, otherToken, [{ agent: 'secret-agent', event: 'their.secret', value: 1 }]);
    expect((await svc.request('PUT', '/v1.0/dimensions/their.secret', { token: otherToken, body: { keys: ['route'] } })).status).to.equal(200);
  });
  after(() => svc.close());

  describe('/v1.0/dimensions/:event', () => {
    const paths: [string, string][] = [
      ['percent-encoded invalid UTF-8', '/v1.0/dimensions/%FF%FE'],
      ['a percent-encoded lone surrogate', '/v1.0/dimensions/%ED%A0%80'],
      ['a percent-encoded NUL', '/v1.0/dimensions/a%00b'],
      ['a broken percent escape', '/v1.0/dimensions/a%E0%A4%A'],
      ['a lone percent sign', '/v1.0/dimensions/%'],
      ['a huge name', `/v1.0/dimensions/${'e'.repeat(100_000)}`],
    ];
    for (const [what, path] of paths)
      for (const method of ['GET', 'PUT', 'DELETE'])
        it(`${method} ${what} → 4xx, nothing changed`, async () => {
          const before = await state();
          const res = await raw(method, path, method === 'PUT' ? new TextEncoder().encode('{"keys":["route"]}') : undefined);
          expectRefused(res, `${method} ${what}`, ['validation_failed', 'invalid_path', 'not_found', 'request_too_large', 'uri_too_long', 'headers_too_large']);
          expect(await state()).to.deep.equal(before);
        });

    const bodies: [string, Uint8Array][] = [
      ['invalid UTF-8 in a key', Uint8Array.from([...Buffer.from('{"keys":["a'), 0xff, 0xfe, ...Buffer.from('"]}')])],
      ['an escaped lone surrogate', Buffer.from('{"keys":["\\udc00x"]}')],
      ['a NUL escape', Buffer.from('{"keys":["a\\u0000"]}')],
      ['nested arrays 100,000 deep', Buffer.from(`{"keys":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)],
      ['nested objects 100,000 deep', Buffer.from(`{"keys":[],"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`)],
      ['a key of 900 KB', Buffer.from(`{"keys":["${'k'.repeat(900_000)}"]}`)],
      ['a body over the limit', Buffer.from(`{"keys":["${'k'.repeat(2_000_000)}"]}`)],
      ['every key there may be and one more', Buffer.from(JSON.stringify({ keys: [...KEYS, 'ninth'] }))],
      ['a __proto__ key', Buffer.from('{"keys":[],"__proto__":{"polluted":1}}')],
    ];
    for (const [what, body] of bodies)
      it(`PUT with ${what} → 4xx, nothing changed`, async () => {
        const before = await state();
        const res = await raw('PUT', '/v1.0/dimensions/http.ms', body);
        expectRefused(res, what, ['validation_failed', 'invalid_json', 'payload_too_large', 'request_too_large']);
        expect(await state()).to.deep.equal(before);
        expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      });

    it("another workspace's event name is not theirs to read or delete: 404, theirs unchanged", async () => {
      const before = await state();
      expectRefused(await svc.request('GET', '/v1.0/dimensions/their.secret', { token }), 'GET theirs', ['not_found']);
      expectRefused(await svc.request('DELETE', '/v1.0/dimensions/their.secret', { token }), 'DELETE theirs', ['not_found']);
      expect(await state()).to.deep.equal(before);
    });
  });

  describe('GET /v1.0/series', () => {
    const series = (query: string) => raw('GET', `/v1.0/series?${query}`);
    const bad: [string, string][] = [
      ['invalid UTF-8 in the event name', 'event=%FF%FE'],
      ['a lone surrogate in the event name', 'event=%ED%A0%80'],
      ['NUL in a filter', 'event=http.ms&filter=route:%00'],
      ['NUL in an agent pattern', 'event=http.ms&agent=web-%00'],
      ['invalid UTF-8 in group_by', 'event=http.ms&group_by=%FF'],
      ['a huge event name', `event=${'e'.repeat(100_000)}`],
      ['10,000 filters', `event=http.ms&${Array.from({ length: 10_000 }, (_, i) => `filter=route:/r${i}`).join('&')}`],
      ['10,000 agent patterns', `event=http.ms&${Array.from({ length: 10_000 }, (_, i) => `agent=web-${i}*`).join('&')}`],
      ['a group_by of every key and more', `event=http.ms&group_by=agent,${KEYS.join(',')},extra`],
      ['a group_by of 10,000 keys', `event=http.ms&group_by=${Array.from({ length: 10_000 }, (_, i) => `k${i}`).join(',')}`],
      ['a pattern of 100,000 stars', `event=http.ms&agent=${'*'.repeat(100_000)}`],
      ['from in the year 275760', 'event=http.ms&from=275760-09-13T00:00:00.001Z'],
      ['from out of range', 'event=http.ms&from=9999-99-99T99:99:99Z'],
      ['a limit of 1e400', 'event=http.ms&limit=1e400'],
      ['an event name given twice', 'event=http.ms&event=other'],
    ];
    for (const [what, query] of bad)
      it(`${what} → 4xx`, async () => {
        expectRefused(await series(query), what, ['validation_failed', 'headers_too_large']);
      });

    it('a group_by of every key (agent and the 8 declared) is read, not refused', async () => {
      const res = await series(`event=http.ms&group_by=agent,${KEYS.join(',')}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.series).to.have.length(2);
    });

    it('LIKE wildcards in an agent pattern are the characters themselves', async () => {
      for (const agent of ['%', '_eb-1', 'web\\-1']) {
        const res = await series(`event=http.ms&group_by=agent&agent=${encodeURIComponent(agent)}`);
        expect(res.status, res.text).to.equal(200);
        expect(res.body.series, agent).to.deep.equal([]);
      }
    });

    it("another workspace's event name reads as nothing", async () => {
      const res = await series('event=their.secret&group_by=agent');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.series).to.deep.equal([]);
      expectRefused(await series('event=their.secret&group_by=route'), 'their key', ['validation_failed']);
    });
  });

  describe('GET /v1.0/analytics?view=window', () => {
    const base = 'view=window&period=1d&previous=previous_window';
    const ranked = (query: string) => raw('GET', `/v1.0/analytics?${base}&${query}`);
    const bad: [string, string, readonly string[]][] = [
      ['invalid UTF-8 in group_by', 'event=http.ms&group_by=%FF%FE', ['validation_failed']],
      ['a lone surrogate in a filter', 'event=http.ms&filter=route:%ED%A0%80', ['validation_failed']],
      ['NUL in a filter key', 'event=http.ms&filter=ro%00ute:x', ['validation_failed']],
      ['NUL in the timezone', 'event=http.ms&timezone=UTC%00', ['validation_failed']],
      ['a timezone of 100,000 characters', `event=http.ms&timezone=${'A'.repeat(100_000)}`, ['validation_failed', 'headers_too_large']],
      ['a group_by of every key and more', `event=http.ms&group_by=agent,${KEYS.join(',')},extra`, ['validation_failed']],
      [
        'a group_by of 10,000 keys',
        `event=http.ms&group_by=${Array.from({ length: 10_000 }, (_, i) => `k${i}`).join(',')}`,
        ['validation_failed', 'headers_too_large'],
      ],
      ['10,000 filters', `event=http.ms&${Array.from({ length: 10_000 }, (_, i) => `filter=code:${i}`).join('&')}`, ['validation_failed', 'headers_too_large']],
      ['a pattern of 100,000 stars', `event=http.ms&agent=${'*'.repeat(100_000)}`, ['validation_failed', 'headers_too_large']],
      ["another workspace's event name", 'event=their.secret', ['not_found']],
      ["another workspace's event name, grouped by its key", 'event=their.secret&group_by=route', ['not_found', 'validation_failed']],
    ];
    for (const [what, query, codes] of bad)
      it(`${what} → 4xx`, async () => {
        expectRefused(await ranked(query), what, codes);
      });

    it('a group_by of every key (agent and the 8 declared) is ranked, not refused', async () => {
      const res = await ranked(`event=http.ms&group_by=agent,${KEYS.join(',')}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.have.length(2);
    });
  });

  describe('fleet fields of /v1.0/policies', () => {
    const rule = { title: 'Slow', period: 'minute', aggregate: 'max', condition: 'gt', threshold: 100, severity: 'warning' };
    const fleet = { ...rule, event: 'http.ms' };
    let policyId: string;
    before(async () => {
      const res = await svc.request('POST', '/v1.0/policies', { token, body: { ...fleet, group_by: ['agent'] } });
      expect(res.status, res.text).to.equal(201);
      policyId = res.body.policy_id;
    });

    const deep = (depth: number): unknown => (depth === 0 ? 'v' : { a: deep(depth - 1) });
    const bad: [string, unknown][] = [
      ['an event name with NUL', { ...fleet, event: 'http.ms\u0000' }],
      ['an event name with a lone surrogate', { ...fleet, event: 'http.\ud800ms' }],
      ["another workspace's event name", { ...fleet, event: 'their.secret' }],
      ['an event name of an array', { ...fleet, event: ['http.ms'] }],
      ['agents of 10,000 patterns', { ...fleet, agents: Array.from({ length: 10_000 }, (_, i) => `web-${i}`) }],
      ['an agent pattern of 100,000 stars', { ...fleet, agents: ['*'.repeat(100_000)] }],
      ['an agent pattern with NUL', { ...fleet, agents: ['web\u0000'] }],
      ['an agent pattern with a lone surrogate', { ...fleet, agents: ['web-\udfff'] }],
      ['an empty agent pattern', { ...fleet, agents: [''] }],
      ['agents nested', { ...fleet, agents: [['web-*']] }],
      ['a filter of 10,000 keys', { ...fleet, filter: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v'])) }],
      ['a filter of 10,000 values', { ...fleet, filter: { code: Array.from({ length: 10_000 }, (_, i) => String(i)) } }],
      ['a filter nested 50 deep', { ...fleet, filter: { code: deep(50) } }],
      ['a filter value with NUL', { ...fleet, filter: { code: '5\u000000' } }],
      ['a filter value with a lone surrogate', { ...fleet, filter: { code: '\ud83d' } }],
      ['a filter on an undeclared key', { ...fleet, filter: { status: '500' } }],
      ['a group_by of every key and more', { ...fleet, group_by: ['agent', ...KEYS, 'extra'] }],
      ['a group_by of 10,000 keys', { ...fleet, group_by: Array.from({ length: 10_000 }, (_, i) => `k${i}`) }],
      ['a group_by with a key twice', { ...fleet, group_by: ['agent', 'agent'] }],
      ['a group_by key with NUL', { ...fleet, group_by: ['ro\u0000ute'] }],
      ['a group_by of a string', { ...fleet, group_by: 'agent' }],
      ['a timezone with NUL', { ...fleet, timezone: 'UTC\u0000' }],
      ['both event and event_id', { ...fleet, event_id: '00000000-0000-4000-8000-000000000000' }],
    ];
    for (const [what, body] of bad) {
      it(`POST with ${what} → 4xx, nothing changed`, async () => {
        const before = await state();
        expectRefused(await svc.request('POST', '/v1.0/policies', { token, body }), what, ['validation_failed', 'not_found', 'payload_too_large']);
        expect(await state()).to.deep.equal(before);
      });
      it(`PUT with ${what} → 4xx, nothing changed`, async () => {
        const before = await state();
        expectRefused(await svc.request('PUT', `/v1.0/policies/${policyId}`, { token, body }), what, ['validation_failed', 'not_found', 'payload_too_large']);
        expect(await state()).to.deep.equal(before);
      });
    }

    it('POST with invalid UTF-8 in the event name and in an agent pattern → 4xx, nothing changed', async () => {
      const before = await state();
      for (const field of ['event', 'agents']) {
        const text = JSON.stringify({ ...fleet, [field]: field === 'agents' ? ['@@'] : '@@' });
        const [head, tail] = text.split('@@') as [string, string];
        const body = Uint8Array.from([...Buffer.from(head), 0xc3, 0x28, 0xff, ...Buffer.from(tail)]);
        expectRefused(await raw('POST', '/v1.0/policies', body), field, ['validation_failed', 'invalid_json', 'not_found']);
      }
      expect(await state()).to.deep.equal(before);
    });

    it('a group_by of every key (agent and the 8 declared) is accepted', async () => {
      const res = await svc.request('POST', '/v1.0/policies', { token, body: { ...fleet, group_by: ['agent', ...KEYS] } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.group_by).to.deep.equal(['agent', ...KEYS]);
      expect((await svc.request('DELETE', `/v1.0/policies/${res.body.policy_id}`, { token })).status).to.equal(204);
    });
  });
});
