// Numbers that parse to ±Infinity (`1e400` in a query string or a JSON body) are refused
// with 400 and the usual error shape on every route, never let through to a store (they
// were 500s: `invalid input syntax for type bigint: "Infinity"`).
import { expect } from 'chai';
import { sendLogs } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('non-finite numbers', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let eventId: string;
  let policyId: string;
  const alertId = '0196f7a0-3c1e-7000-8000-0000000000a1';

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('non-finite-ws');
    await sendLogs(svc, token, [{ agent: 'a', event: 'e', value: 1 }]);
    eventId = (await svc.request('GET', '/v1.0/events', { token })).body[0].event_id;
    const policy = await svc.request('POST', '/v1.0/policies', { token, body: policyBody() });
    expect(policy.status, policy.text).to.equal(201);
    policyId = policy.body.policy_id;
  });
  after(() => svc.close());

  const policyBody = () => ({
    event_id: eventId,
    title: 'Too many',
    channel: 'ops',
    period: 'minute',
    aggregate: 'count',
    condition: 'gt',
    threshold: 5,
    severity: 'warning',
    enabled: true,
  });

  const listRoutes = () => [
    '/v1.0/events?',
    '/v1.0/policies?',
    '/v1.0/alerts?',
    '/v1.0/destinations?',
    `/v1.0/events/${eventId}/logs?period=minute&`,
    `/v1.0/alerts/${alertId}/deliveries?`,
  ];

  it('refuses limit and offset of 1e400, -1e400, Infinity and 1e2 (only plain decimal digits) on every list route with 400', async () => {
    const answers: string[] = [];
    for (const route of listRoutes()) {
      for (const name of ['limit', 'offset']) {
        for (const value of ['1e400', '-1e400', 'Infinity', '1E+400', '1e2']) {
          const res = await svc.request('GET', `${route}${name}=${encodeURIComponent(value)}`, { token });
          const detail = res.body?.error?.details?.[0];
          const ok =
            res.status === 400 && res.body.error.code === 'validation_failed' && detail?.path === `/${name}` && /plain decimal digits/.test(detail.message);
          if (!ok) answers.push(`${route}${name}=${value}: ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
    }
    expect(answers).to.deep.equal([]);
    // Plain digits still page.
    expect((await svc.request('GET', '/v1.0/events?limit=100&offset=0', { token })).status).to.equal(200);
  });

  it('refuses a number that parses to Infinity in any numeric body field, naming the field', async () => {
    const cases: [string, string][] = [
      ['threshold', '"threshold":5'],
      ['recovery_threshold', '"threshold":5,"recovery_threshold":1e400'],
      ['min_count', '"threshold":5,"min_count":1e400'],
      ['pending_buckets', '"threshold":5,"pending_buckets":-1e400'],
    ];
    for (const [field, replacement] of cases) {
      const raw = JSON.stringify(policyBody())
        .replace('"threshold":5', replacement)
        .replace(field === 'threshold' ? '"threshold":5' : '\u0000', '"threshold":1e400');
      for (const [method, path] of [
        ['POST', '/v1.0/policies'],
        ['PUT', `/v1.0/policies/${policyId}`],
      ] as const) {
        const res = await svc.request(method, path, { token, rawBody: raw, headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${field}: ${res.text}`).to.equal(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal([`/${field}`]);
      }
    }
    // Nothing was stored or changed.
    const policies = (await svc.request('GET', '/v1.0/policies', { token })).body;
    expect(policies.map((p: { threshold: number }) => p.threshold)).to.deep.equal([5]);
  });
});
