// Date-time fields accept what RFC 3339 and JavaScript both represent; a leap second
// (23:59:60), which RFC 3339 allows and Date cannot hold, is a 400 naming the field
// (issue 7: a rollup read with one in `from` or `to` was a 500).
import { expect } from 'chai';
import { eventIdOf, sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

describeInOneRun('date-time fields', () => {
  let svc: TestService;
  let token: string;
  let eventId: string;
  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('dates-ws');
    await sendLogs(svc, token, [{ event: 'dates', value: 1 }]);
    eventId = await eventIdOf(svc, token, 'default', 'dates');
  });
  after(() => svc?.close());

  it('refuses a leap second in from or to of a rollup read with 400', async () => {
    for (const field of ['from', 'to']) {
      const res = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=minute&${field}=2016-12-31T23:59:60Z`, { token });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.code).to.equal('validation_failed');
      expect(res.body.error.details).to.deep.equal([
        { path: `/${field}`, message: 'must be an ISO 8601 date-time with a timezone (seconds 00-59), e.g. 2026-11-21T14:04:00Z' },
      ]);
    }
  });

  it('still reads with ordinary bounds, fractions and offsets', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString().replace('Z', '+00:00');
    const res = await svc.request('GET', `/v1.0/events/${eventId}/logs?period=minute&from=${encodeURIComponent(from)}&to=2099-12-31T23:59:59.999999Z`, {
      token,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.length(1);
  });

  it('refuses a leap second in a log record with 400', async () => {
    const res = await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'dates', value: 1, occurred_at: '2016-12-31T23:59:60Z' }] });
    expect(res.status, res.text).to.equal(400);
  });
});
