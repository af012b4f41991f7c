import { expect } from 'chai';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import type { Json } from '../../helpers/http.js';

function expectErrorShape(body: Json, code: string): void {
  expect(body).to.have.property('error');
  expect(body.error.code).to.equal(code);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  expect(body.error.details).to.be.an('array');
}

describe('HTTP error shapes', () => {
  let svc: TestService;
  let token: string;
  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('errors-ws');
  });
  after(() => svc.close());

  it('answers an unknown route with a JSON 404 and a request id', async () => {
    const res = await svc.request('GET', '/v1.0/no-such-thing', { token });
    expect(res.status).to.equal(404);
    expectErrorShape(res.body, 'not_found');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('treats an empty body sent as application/json like no body at all', async () => {
    // Clients often label a bodiless POST (a lifecycle action) as JSON.
    const missing = '/v1.0/alerts/00000000-0000-0000-0000-000000000000/acknowledge';
    const labelled = await svc.request('POST', missing, { token, rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(labelled.status).to.equal(404);
    expectErrorShape(labelled.body, 'not_found');
    const nullBody = await svc.request('POST', missing, { token, rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect(nullBody.status).to.equal(400);
  });

  it('echoes a sane client request id', async () => {
    const res = await svc.request('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).to.equal('abc-123');
    const odd = await svc.request('GET', '/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(odd.headers.get('x-request-id')).to.not.equal('a b<script>');
  });

  it('refuses malformed JSON with 400 invalid_json', async () => {
    const res = await svc.request('POST', '/v1.0/admin/tokens', {
      token: TEST_ADMIN_TOKEN,
      rawBody: '{"user_id": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expectErrorShape(res.body, 'invalid_json');
  });

  it('refuses a body over 1 MB with 413', async () => {
    const res = await svc.request('POST', '/v1.0/admin/tokens', {
      token: TEST_ADMIN_TOKEN,
      body: { user_id: 'x', email: 'a'.repeat(1_100_000) },
    });
    expect(res.status).to.equal(413);
    expectErrorShape(res.body, 'payload_too_large');
  });

  it('refuses a non-JSON body with 415', async () => {
    const res = await svc.request('POST', '/v1.0/admin/tokens', {
      token: TEST_ADMIN_TOKEN,
      rawBody: 'user_id=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expectErrorShape(res.body, 'unsupported_media_type');
  });

  it('lists every validation problem with its JSON path', async () => {
    const res = await svc.request('POST', '/v1.0/admin/tokens', {
      token: TEST_ADMIN_TOKEN,
      body: { user_idd: 'x', email: 'not-an-email' },
    });
    expect(res.status).to.equal(400);
    expectErrorShape(res.body, 'validation_failed');
    expect(res.body.error.details).to.deep.include.members([
      { path: '/user_id', message: 'is required' },
      { path: '/user_idd', message: 'is not a known field' },
      { path: '/email', message: 'must be a valid email address' },
    ]);
  });

  it('answers a wrong method on a known route with 405', async () => {
    const res = await svc.request('POST', '/healthz');
    expect(res.status).to.equal(405);
    expectErrorShape(res.body, 'method_not_allowed');
  });
});

describe('HTTP 500', () => {
  it('hides internals when a store fails', async () => {
    const svc = await startTestService();
    try {
      await svc.stores.postgres.close();
      const res = await svc.request('POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'x' } });
      expect(res.status).to.equal(500);
      expectErrorShape(res.body, 'internal_error');
      expect(res.body.error.message).to.equal('Internal server error.');
      const ready = await svc.request('GET', '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body.checks).to.deep.equal({ clickhouse: 'ok', postgres: 'down', writer: 'ok' });
    } finally {
      await svc.close();
    }
  });
});
