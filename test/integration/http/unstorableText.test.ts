// Every route validated through bodyValidator/queryValidator (ApiRouter and the older
// routers alike) refuses strings and keys that no store can keep — NUL characters and
// lone UTF-16 surrogates — with 400 validation_failed naming the path, without its schema
// saying so; and such a request changes nothing.
import { expect } from 'chai';
import type { TestResponse } from '../../helpers/http.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';

function expectTextRefused(res: TestResponse, path: string): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.body.error.code).to.equal('validation_failed');
  const details = (res.body.error.details as { path: string; message: string }[]).filter((d) => d.path === path);
  expect(
    details.some((d) => /NUL|well-formed/.test(d.message)),
    `a text detail at ${path} in ${res.text}`,
  ).to.equal(true);
}

describe('control plane: text no store can keep', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('text-ws');
  });
  after(() => svc.close());

  const listedNames = async () => (await svc.request<{ event: string }[]>('GET', '/v1.0/events', { token })).body.map((d) => d.event);

  for (const [label, text] of [
    ['a NUL character', 'a\u0000b'],
    ['a lone surrogate', 'a\udc00b'],
  ] as const) {
    it(`refuses ${label} in an event definition's fields, and creates nothing`, async () => {
      for (const field of ['event', 'agent', 'title', 'description', 'unit']) {
        const body = { event: 'text.checked', [field]: text };
        expectTextRefused(await svc.request('POST', '/v1.0/events', { token, body }), `/${field}`);
      }
      expect(await listedNames()).to.not.include('text.checked');
    });

    it(`refuses ${label} in a field the schema does not know, beside the unknown-field detail`, async () => {
      const res = await svc.request('POST', '/v1.0/events', { token, body: { event: 'text.checked', extra: { deep: [text] } } });
      expectTextRefused(res, '/extra/deep/0');
    });

    it(`refuses ${label} in an object key`, async () => {
      const res = await svc.request('POST', '/v1.0/events', { token, body: { event: 'text.checked', [`k${text}`]: 1 } });
      expectTextRefused(res, '');
    });

    it(`refuses ${label} in an update, and changes nothing`, async () => {
      const created = await svc.request('POST', '/v1.0/events', { token, body: { event: `kept.${label.length}` } });
      expect(created.status, created.text).to.equal(201);
      const id = created.body.event_id as string;
      expectTextRefused(await svc.request('PUT', `/v1.0/events/${id}`, { token, body: { description: text } }), '/description');
      const read = await svc.request('GET', `/v1.0/events/${id}`, { token });
      expect(read.body.description).to.equal('');
    });

    it(`refuses ${label} in an admin request`, async () => {
      const res = await svc.request('POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'text-admin', email: `x${text}@example.com` } });
      expectTextRefused(res, '/email');
    });
  }

  it('refuses a NUL character in a query parameter', async () => {
    const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'query.checked' } });
    const res = await svc.request('GET', `/v1.0/events/${created.body.event_id as string}/logs?period=minute&from=2026-01-01T00:00:00Z%00`, { token });
    expectTextRefused(res, '/from');
  });

  it('still answers other requests normally afterwards', async () => {
    const res = await svc.request('GET', '/v1.0/events', { token });
    expect(res.status).to.equal(200);
  });
});
