// The HTTP contract as amended in issue 29 (docs/api.md), as the existing SDKs and a
// careless client or a scanner meet it: the error body's top-level message, any method on any
// documented path (405 with Allow, never a 5xx), unknown paths (404, token or not), invalid
// UTF-8 bodies, query integers in plain digits only, routes that take no body, `period`
// optional, the alerts list whole.
import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Json } from '../../helpers/http.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Json;
}

/** A request through node:http, which sends any method (fetch refuses TRACE) and raw bytes. */
function raw(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if ((res.headers['content-type'] ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Methods scanners and odd clients send, which Node's HTTP parser accepts. */
const UNUSUAL_METHODS = [
  'TRACE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'LOCK',
  'UNLOCK',
  'PURGE',
  'SEARCH',
  'QUERY',
  'LINK',
  'UNLINK',
  'COPY',
  'MOVE',
  'M-SEARCH',
  'NOTIFY',
  'ACL',
  'BIND',
  'REPORT',
  'PATCH',
];

function expectErrorBody(res: { status: number; body: Json }, status: number, code: string, what = ''): void {
  expect(res.status, `${what} ${JSON.stringify(res.body)}`).to.equal(status);
  expect(res.body.error.code, what).to.equal(code);
  expect(res.body.error.details, what).to.be.an('array');
  // The JavaScript SDK shows only a top-level message.
  expect(res.body.message, what).to.be.a('string').and.equal(res.body.error.message);
}

describeInOneRun('HTTP contract (issue 29)', function () {
  this.timeout(300_000);
  let svc: TestService;
  let token: string;
  let document: Json;

  before(async () => {
    svc = await startTestService({ env: { EVAL_INTERVAL_MS: '86400000' } });
    token = await svc.tokenFor('contract-ws');
    document = (await svc.request('GET', '/v1.0/openapi.json')).body;
  });
  after(() => svc.close());

  /** Every documented path with its documented methods, ids filled in with a random UUID. */
  const documentedPaths = () =>
    Object.entries(document.paths as Record<string, Record<string, unknown>>).map(([path, operations]) => ({
      path: path.replace(/\{[^}]+\}/g, randomUUID()),
      template: path,
      methods: Object.keys(operations).map((m) => m.toUpperCase()),
    }));

  it('gives every error body a top-level message equal to error.message', async () => {
    expectErrorBody(await svc.request('GET', '/v1.0/events', {}), 401, 'unauthorized');
    expectErrorBody(await svc.request('GET', `/v1.0/events/${randomUUID()}`, { token }), 404, 'not_found');
    expectErrorBody(await svc.request('POST', '/v1.0/events', { token, body: { evnt: 'x' } }), 400, 'validation_failed');
    expectErrorBody(await svc.request('GET', '/v1.0/events/not-a-uuid', { token }), 400, 'invalid_id');
    await svc.request('POST', '/v1.0/events', { token, body: { event: 'dup' } });
    expectErrorBody(await svc.request('POST', '/v1.0/events', { token, body: { event: 'dup' } }), 409, 'event_exists');
    expectErrorBody(await svc.request('POST', '/v1.0/logs', { token, rawBody: '[', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    const ready = await svc.request('GET', '/readyz');
    expect(ready.status).to.equal(200);
  });

  it('answers 405 with Allow in the error shape for any method a documented path does not serve, with a token or without', async () => {
    let checked = 0;
    const templates = new Set<string>();
    for (const { path, template, methods } of documentedPaths()) {
      templates.add(template);
      const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
      // A path may also fit another route's pattern (PUT /v1.0/policies/backtest is PUT /v1.0/policies/:policyID): OPTIONS names all it serves.
      const served = String((await raw(svc.url, 'OPTIONS', path)).headers.allow).split(', ');
      expect(served, template).to.include.members(allowed);
      for (const method of ['POST', 'PUT', 'DELETE', ...UNUSUAL_METHODS].filter((m) => !served.includes(m))) {
        for (const headers of [{ authorization: `Bearer ${token}` }, {}] as Record<string, string>[]) {
          const what = `${method} ${template} ${headers.authorization ? 'with' : 'without'} a token`;
          const res = await raw(svc.url, method, path, headers);
          expectErrorBody(res, 405, 'method_not_allowed', what);
          // Allow names every documented method (and, where the path also fits another route's pattern, its methods too).
          const allow = String(res.headers.allow).split(', ');
          expect(allow, what).to.include.members(allowed).and.not.include(method);
          checked++;
        }
      }
    }
    expect(checked).to.be.greaterThan(30 * UNUSUAL_METHODS.length);
    // The pages anyone may open from a link are routes like the others.
    expect([...templates]).to.include.members(['/ack/{alertID}', '/share/events/{eventID}', '/v1.0/public/events/{eventID}']);
  });

  it('answers 404 for a path no route serves, whatever the method, token or not; never a 5xx', async () => {
    for (const path of ['/v1.0/nope', '/nope', '/v1.0/events/x/y/z', '/v1.0/admin', '/.env', '/v2/logs']) {
      for (const method of ['GET', 'POST', 'DELETE', ...UNUSUAL_METHODS]) {
        for (const headers of [{ authorization: `Bearer ${token}` }, {}] as Record<string, string>[]) {
          expectErrorBody(await raw(svc.url, method, path, headers), 404, 'not_found', `${method} ${path}`);
        }
      }
    }
  });

  it('answers OPTIONS with the Allow header', async () => {
    const res = await raw(svc.url, 'OPTIONS', '/v1.0/events');
    expect(res.status).to.equal(204);
    expect(res.headers.allow).to.equal('GET, HEAD, POST');
  });

  it('refuses invalid UTF-8 in a JSON body with 400 invalid_json on every route that takes a body, storing nothing', async () => {
    // "\xff" and a truncated two-byte sequence: neither is UTF-8.
    const bodies = [Buffer.from('{"event": "bad \xff name"}', 'latin1'), Buffer.from([0x5b, 0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d, 0x5d])];
    let checked = 0;
    for (const { path, template } of documentedPaths()) {
      const operations = document.paths[template];
      for (const method of ['post', 'put']) {
        // Remote-write takes snappy-compressed protobuf only (415 for JSON).
        if (operations[method]?.requestBody === undefined || template === '/api/v1/write') continue;
        const auth = template.startsWith('/v1.0/admin') ? TEST_ADMIN_TOKEN : token;
        for (const body of bodies) {
          const res = await raw(svc.url, method.toUpperCase(), path, { authorization: `Bearer ${auth}`, 'content-type': 'application/json' }, body);
          expectErrorBody(res, 400, 'invalid_json', `${method} ${template}`);
          checked++;
        }
      }
    }
    expect(checked).to.be.greaterThan(20);
    const events = await svc.request('GET', '/v1.0/events', { token });
    expect(events.body.map((e: Json) => e.event)).to.not.include('bad \ufffd name');
  });

  it('refuses a query that is not percent-encoded UTF-8 or holds NUL with 400 naming the parameter, on every GET behind a token', async () => {
    // %FF is no UTF-8; %ED%A0%80 an encoded lone surrogate; Node's parser would read either as U+FFFD.
    const queries = [
      ['name%FF=1', '/name%FF'],
      ['q=%ED%A0%80', '/q'],
      ['q=a%00b', '/q'],
    ] as const;
    let checked = 0;
    for (const { path, template } of documentedPaths()) {
      const operation = document.paths[template].get as Json | undefined;
      if (operation === undefined || operation.security.length === 0) continue;
      const auth = operation.security[0].adminToken === undefined ? token : TEST_ADMIN_TOKEN;
      for (const [query, parameter] of queries) {
        const res = await raw(svc.url, 'GET', `${path}?${query}`, { authorization: `Bearer ${auth}` });
        expectErrorBody(res, 400, 'validation_failed', `GET ${template}?${query}`);
        expect(
          res.body.error.details.map((d: Json) => d.path),
          `GET ${template}?${query}`,
        ).to.include(parameter);
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(60);
  });

  it('takes integers in a query only as plain decimal digits', async () => {
    for (const bad of ['0x10', '0b11', '0o7', '1e1', '  2', '2 ', '+2', '2.0', '', 'Infinity']) {
      const res = await svc.request('GET', `/v1.0/alerts?limit=${encodeURIComponent(bad)}`, { token });
      expectErrorBody(res, 400, 'validation_failed', JSON.stringify(bad));
      expect(res.body.error.details[0].path).to.equal('/limit');
    }
    expect((await svc.request('GET', '/v1.0/events?limit=2&offset=0', { token })).status).to.equal(200);
  });

  it('refuses a body on routes that take none (400), accepting none or {} as the SDKs send', async () => {
    const destination = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'http://127.0.0.1:9/hook' } });
    expect(destination.status).to.equal(201);
    const id = destination.body.destination_id;
    const event = await svc.request('POST', '/v1.0/events', { token, body: { event: 'bodyless' } });
    for (const path of [`/v1.0/destinations/${id}/rotate-secret`, `/v1.0/destinations/${id}/test`, `/v1.0/events/${event.body.event_id}/share-token`]) {
      const refused = await svc.request('POST', path, { token, body: { force: true } });
      expectErrorBody(refused, 400, 'validation_failed', path);
    }
    // The secret was not rotated by the refused request; none and {} still work.
    expect((await svc.request('POST', `/v1.0/destinations/${id}/rotate-secret`, { token })).status).to.equal(200);
    expect((await svc.request('POST', `/v1.0/destinations/${id}/rotate-secret`, { token, body: {} })).status).to.equal(200);
  });

  it('reads minute buckets when GET /v1.0/events/:id/logs has no period, and still refuses an unknown period', async () => {
    const at = new Date(Date.now() - 120_000).toISOString();
    expect((await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'period.default', value: 3, occurred_at: at }] })).status).to.equal(200);
    const eventId = (await svc.request('GET', '/v1.0/events', { token })).body.find((e: Json) => e.event === 'period.default').event_id;
    const implicit = await svc.request('GET', `/v1.0/events/${eventId}/logs`, { token });
    expect(implicit.status, implicit.text).to.equal(200);
    expect(implicit.body).to.have.length(1);
    expect(implicit.body[0]).to.include({ period: 'minute', count: 1, value: 3 });
    expect(implicit.body).to.deep.equal((await svc.request('GET', `/v1.0/events/${eventId}/logs?period=minute`, { token })).body);
    for (const bad of ['week', '', 'MINUTE']) {
      expectErrorBody(await svc.request('GET', `/v1.0/events/${eventId}/logs?period=${bad}`, { token }), 400, 'validation_failed', bad);
    }
  });

  it('lists every matching alert without limit, newest first (the SDKs cannot page)', async () => {
    const ws = await svc.tokenFor('contract-alerts-ws');
    const eventId = (await svc.request('POST', '/v1.0/events', { token: ws, body: { event: 'alerts.whole' } })).body.event_id;
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const COUNT = 101;
    for (let i = 0; i < COUNT; i++) {
      // count >= 0 breaches on any bucket, empty ones included.
      const policy = await svc.request('POST', '/v1.0/policies', {
        token: ws,
        body: { event_id: eventId, title: `p${i}`, period: 'minute', aggregate: 'count', condition: 'gte', threshold: 0, severity: 'info' },
      });
      const evaluated = await svc.request('POST', `/v1.0/policies/${policy.body.policy_id}/evaluate`, { token: ws, body: { at } });
      expect(evaluated.body.alert, evaluated.text).to.not.equal(null);
    }
    const all = await svc.request('GET', '/v1.0/alerts', { token: ws });
    expect(all.body).to.have.length(COUNT);
    const triggered = await svc.request('GET', '/v1.0/alerts?status=triggered', { token: ws });
    expect(triggered.body).to.have.length(COUNT);
    const order = triggered.body.map((a: Json) => `${a.triggered_at} ${a.alert_id}`);
    expect(order).to.deep.equal([...order].sort().reverse());
    expect((await svc.request('GET', '/v1.0/alerts?limit=100', { token: ws })).body).to.have.length(100);
  });
});
