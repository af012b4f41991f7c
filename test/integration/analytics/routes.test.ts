// The analytics route over HTTP: the response shape (checked against the schema the OpenAPI
// document publishes), the clock-driven windows, and every way a request is refused.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { COMPARISONS, SUPPORTED_COMPARISONS, WINDOW_PERIODS } from '../../../src/analytics/windows.js';
import { analyticsRoutes } from '../../../src/http/analytics/routes.js';
import { windowResponseSchema } from '../../../src/http/analytics/schemas.js';
import { buildOpenApiDocument } from '../../../src/http/openapi.js';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import type { Json } from '../../helpers/http.js';
import { describeInOneRun } from '../../helpers/stores.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
const validateResponse = addFormats(new Ajv({ allErrors: true, strict: false })).compile(windowResponseSchema);
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeInOneRun('GET /v1.0/events/:eventID/analytics', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let eventId: string;
  const sentAt = new Date().toISOString();

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('analytics-http');
    const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'http.latency_ms', timezone: 'Asia/Kolkata' } });
    eventId = created.body.event_id;
    await sendLogs(
      svc,
      token,
      [2, 4, 6].map((value) => ({ event: 'http.latency_ms', value, occurred_at: sentAt })),
    );
  });
  after(() => svc.close());

  const get = (query: string, id = eventId, as = token) => svc.request('GET', `/v1.0/events/${id}/analytics?${query}`, { token: as });

  it('answers every supported combination with the documented shape and the windows compared', async () => {
    for (const period of WINDOW_PERIODS) {
      for (const previous of SUPPORTED_COMPARISONS[period]) {
        const res = await get(`view=window&period=${period}&previous=${previous}`);
        expect(res.status, `${period}/${previous}`).to.equal(200);
        expect(validateResponse(res.body), JSON.stringify(validateResponse.errors)).to.equal(true);
        expect(res.body).to.include({ event_id: eventId, view: 'window', period, previous, timezone: 'Asia/Kolkata' });
        const { current, previous: before } = res.body.windows;
        for (const t of [current.from, current.to, before.from, before.to]) expect(t).to.match(ISO_MS);
        // The logs just sent are in the current window unless it began after them (a new hour, day…).
        if (Date.parse(current.from) <= Date.parse(sentAt)) {
          expect(res.body.data).to.deep.include({ current_count: 3, current_value: 12, current_mean: 4, current_stddev: 2, previous_count: 0 });
          expect(res.body.data.value_pct_change).to.equal(null);
        }
      }
    }
  });

  it('answers data null for an event without logs', async () => {
    const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'silent' } });
    const res = await get('view=window&period=1d&previous=previous_7d', created.body.event_id);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.equal(null);
    expect(validateResponse(res.body)).to.equal(true);
  });

  const refusals: [string, string, string[]][] = [
    ['a missing view', 'period=1h&previous=previous_window', ['view', 'window']],
    ['a view other than window', 'view=series&period=1h&previous=previous_window', ['view', 'window']],
    ['a missing period', 'view=window&previous=previous_window', ['period', '1h, 1d, 7d, 1m']],
    ['the rollup name hour as a period', 'view=window&period=hour&previous=previous_window', ['period', '1h, 1d, 7d, 1m']],
    ['the rollup name day as a period', 'view=window&period=day&previous=previous_window', ['period', '1h, 1d, 7d, 1m']],
    ['a missing previous', 'view=window&period=1h', ['previous', COMPARISONS.join(', ')]],
    ['the name compare instead of previous', 'view=window&period=1h&compare=previous_window', ['compare', 'previous']],
  ];
  for (const [what, query, named] of refusals) {
    it(`refuses ${what} with 400 naming the allowed values`, async () => {
      const res = await get(query);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      for (const word of named) expect(res.body.error.message).to.contain(word);
    });
  }

  it('refuses each unsupported combination with 400 unsupported_combination', async () => {
    for (const period of WINDOW_PERIODS) {
      for (const previous of COMPARISONS.filter((c) => !SUPPORTED_COMPARISONS[period].includes(c))) {
        const res = await get(`view=window&period=${period}&previous=${previous}`);
        expect(res.status, `${period}/${previous}`).to.equal(400);
        expect(res.body.error.code).to.equal('unsupported_combination');
        expect(res.body.error.message).to.contain('1d with previous_window, previous_7d, previous_1m');
      }
    }
  });

  it('refuses an id that is not a UUID with 400 invalid_id', async () => {
    const res = await get('view=window&period=1h&previous=previous_window', 'not-a-uuid');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_id');
  });

  it("answers 404 for another workspace's event and for an unknown one", async () => {
    const other = await svc.tokenFor('analytics-other');
    expect((await get('view=window&period=1h&previous=previous_window', eventId, other)).status).to.equal(404);
    expect((await get('view=window&period=1h&previous=previous_window', '00000000-0000-4000-8000-000000000000')).status).to.equal(404);
  });

  it('needs a token', async () => {
    const res = await svc.request('GET', `/v1.0/events/${eventId}/analytics?view=window&period=1h&previous=previous_window`);
    expect(res.status).to.equal(401);
  });

  it('is in the OpenAPI document with its parameters and response schema', () => {
    const doc = buildOpenApiDocument([analyticsRoutes(svc.stores)], 'test');
    const op = doc.paths['/v1.0/events/{eventID}/analytics']?.get as { parameters: { name: string; required: boolean }[]; responses: Record<string, Json> };
    expect(op.parameters.map((p) => [p.name, p.required])).to.deep.equal([
      ['eventID', true],
      ['view', true],
      ['period', true],
      ['previous', true],
    ]);
    expect(op.responses['200'].content['application/json'].schema).to.equal(windowResponseSchema);
  });
});
