// The delivery worker over the outbox: routing, retries and their schedule, exhaustion,
// restarts and two workers sharing the queue. A short retry schedule stands in for the
// default 10 s … 2 h.
import { expect } from 'chai';
import { claimDueAttempts, hasDueAttempts } from '../../../src/delivery/attempts.js';
import { dispatchNotifications } from '../../../src/delivery/dispatch.js';
import { DeliveryWorker } from '../../../src/delivery/worker.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { raiseAlert, resolveAlert, seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WORKER_ENV = { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '100,100,100,100,100' };

interface Attempt {
  attempt: number;
  status: string;
  response_status: number | null;
  error_message: string | null;
  next_attempt_at: string | null;
  updated_at: string;
  destination_id: string;
  type: string;
}

describe('delivery worker', function () {
  this.timeout(90_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let ws: string;
  let policy: SeededPolicy;
  let counter = 0;

  before(async () => {
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: WORKER_ENV });
  });
  after(async () => {
    await svc.close();
    await sink.close();
  });
  // Each test gets a workspace of its own, so destinations of one test do not receive another's alerts.
  beforeEach(async () => {
    ws = `worker-ws-${++counter}`;
    token = await svc.tokenFor(ws);
    policy = await seedPolicy(svc.stores.postgres, ws);
  });

  const createWebhook = async (path: string, extra: object = {}) => {
    const res = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}${path}`, ...extra } });
    expect(res.status, res.text).to.equal(201);
    return res.body.destination_id as string;
  };
  const attemptsOf = async (alertId: string): Promise<Attempt[]> => (await svc.request<Attempt[]>('GET', `/v1.0/alerts/${alertId}/deliveries`, { token })).body;
  const requestsTo = (path: string) => sink.requests.filter((r) => r.path === path);
  const settle = () => new Promise((r) => setTimeout(r, 600));

  it('routes to enabled destinations whose scope matches, triggered then resolved', async () => {
    const other = await seedPolicy(svc.stores.postgres, ws, 'Other policy');
    const all = await createWebhook(`/${ws}/all`);
    const mine = await createWebhook(`/${ws}/mine`, { scope: 'policies', policy_ids: [policy.policyId] });
    await createWebhook(`/${ws}/theirs`, { scope: 'policies', policy_ids: [other.policyId] });
    await createWebhook(`/${ws}/disabled`, { enabled: false });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    await waitFor('two deliveries', async () => ((await attemptsOf(alertId)).filter((a) => a.status === 'delivered').length === 2 ? true : null));
    await resolveAlert(svc.stores.postgres, ws, alertId, policy);
    const attempts = await waitFor('four deliveries', async () => {
      const list = await attemptsOf(alertId);
      return list.filter((a) => a.status === 'delivered').length === 4 ? list : null;
    });
    await settle();
    expect(new Set(attempts.map((a) => a.destination_id))).to.deep.equal(new Set([all, mine]));
    expect(requestsTo(`/${ws}/all`).map((r) => r.json.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    expect(requestsTo(`/${ws}/mine`).map((r) => r.json.type)).to.deep.equal(['alert.triggered', 'alert.resolved']);
    expect(requestsTo(`/${ws}/theirs`)).to.have.length(0);
    expect(requestsTo(`/${ws}/disabled`)).to.have.length(0);
    const destination = await svc.request('GET', `/v1.0/destinations/${all}`, { token });
    expect(destination.body.last_delivered_at).to.be.a('string');
    const metrics = (await svc.request('GET', '/metrics')).text;
    expect(metrics).to.match(/alertmon_deliveries_total\{channel="webhook",outcome="delivered"\} [1-9]/);
    expect(metrics).to.contain('alertmon_delivery_attempt_seconds_bucket{le="0.5",channel="webhook"}');
    expect(metrics).to.contain('alertmon_delivery_pending_retries');
  });

  it('retries after a 500 and delivers, with the same Idempotency-Key', async () => {
    await createWebhook(`/${ws}/flaky`);
    sink.answerNext({ status: 500, body: 'oops' });
    const { alertId, notificationId } = await raiseAlert(svc.stores.postgres, ws, policy);
    const attempts = await waitFor('a delivery', async () => {
      const list = await attemptsOf(alertId);
      return list.some((a) => a.status === 'delivered') ? list : null;
    });
    expect(attempts.map((a) => [a.attempt, a.status, a.response_status])).to.deep.equal([
      [2, 'delivered', 200],
      [1, 'failed', 500],
    ]);
    expect(attempts[1]!.error_message).to.equal('server_error: provider error (HTTP 500): oops');
    expect(attempts[1]!.next_attempt_at).to.be.a('string');
    expect(requestsTo(`/${ws}/flaky`).map((r) => r.headers['idempotency-key'])).to.deep.equal([notificationId, notificationId]);
    const destination = (await svc.request('GET', '/v1.0/destinations', { token })).body[0];
    expect(destination.last_error).to.equal(null);
  });

  it('honours Retry-After on a 429', async () => {
    await createWebhook(`/${ws}/limited`);
    sink.answerNext({ status: 429, body: 'slow down', headers: { 'Retry-After': '2' } });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    const attempts = await waitFor('a delivery', async () => {
      const list = await attemptsOf(alertId);
      return list.some((a) => a.status === 'delivered') ? list : null;
    });
    const failed = attempts.find((a) => a.attempt === 1)!;
    expect(failed).to.include({ status: 'failed', response_status: 429 });
    expect(Date.parse(failed.next_attempt_at!) - Date.parse(failed.updated_at)).to.be.at.least(1_990);
    const [first, second] = requestsTo(`/${ws}/limited`);
    expect(second!.at - first!.at).to.be.at.least(1_900);
  });

  it('does not retry a 400', async () => {
    await createWebhook(`/${ws}/rejects`);
    sink.answerNext({ status: 400, body: 'bad payload' });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    const [attempt] = await waitFor('a final attempt', async () => {
      const list = await attemptsOf(alertId);
      return list.some((a) => a.status === 'exhausted') ? list : null;
    });
    await settle();
    expect(requestsTo(`/${ws}/rejects`)).to.have.length(1);
    expect(await attemptsOf(alertId)).to.have.length(1);
    expect(attempt).to.include({ attempt: 1, status: 'exhausted', response_status: 400, next_attempt_at: null });
    const destination = (await svc.request('GET', '/v1.0/destinations', { token })).body[0];
    expect(destination.last_error).to.contain('400');
  });

  it('gives up after 6 tries', async () => {
    await createWebhook(`/${ws}/down`);
    for (let i = 0; i < 6; i++) sink.answerNext({ status: 503, body: 'down' });
    const { alertId } = await raiseAlert(svc.stores.postgres, ws, policy);
    const attempts = await waitFor('exhaustion', async () => {
      const list = await attemptsOf(alertId);
      return list.some((a) => a.status === 'exhausted') ? list : null;
    });
    await settle();
    expect(requestsTo(`/${ws}/down`)).to.have.length(6);
    expect(attempts.map((a) => [a.attempt, a.status])).to.deep.equal([
      [6, 'exhausted'],
      [5, 'failed'],
      [4, 'failed'],
      [3, 'failed'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
  });

  // Two more workers beside the service's own: three claim from the same queue.
  it('two workers on the same queue send every notification exactly once', async () => {
    await createWebhook(`/${ws}/race`);
    const workers = [0, 1].map(() => new DeliveryWorker(svc.services.delivery, { pollIntervalMs: 10, concurrency: 4, perDestination: 4, perWorkspace: 4 }));
    const policies = await Promise.all(Array.from({ length: 30 }, (_, i) => seedPolicy(svc.stores.postgres, ws, `p${i}`)));
    for (const w of workers) w.start();
    try {
      const ids = [];
      for (const p of policies) ids.push((await raiseAlert(svc.stores.postgres, ws, p)).notificationId);
      await waitFor('30 requests', async () => (requestsTo(`/${ws}/race`).length >= 30 ? true : null));
      await settle();
      const keys = requestsTo(`/${ws}/race`).map((r) => r.headers['idempotency-key']);
      expect(keys).to.have.length(30);
      expect(new Set(keys)).to.deep.equal(new Set(ids));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });
});

describe('delivery worker across a restart', function () {
  this.timeout(90_000);

  it('re-sends, once, as an attempt of its own, an attempt whose worker died between claim and record', async () => {
    const sink = await FakeHttpServer.start();
    const svc = await startTestService({ env: { ...WORKER_ENV, ROLE: 'api' } });
    const deps = svc.services.delivery;
    const worker = new DeliveryWorker(deps, { pollIntervalMs: 20, concurrency: 4, perDestination: 4, perWorkspace: 4 });
    try {
      const token = await svc.tokenFor('lease-ws');
      await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/lease` } });
      const { alertId } = await raiseAlert(svc.stores.postgres, 'lease-ws', await seedPolicy(svc.stores.postgres, 'lease-ws'));
      expect(await hasDueAttempts(svc.stores.postgres)).to.equal(false);
      // A worker dispatches and claims the attempt for 500 ms, then dies without a trace.
      await dispatchNotifications(svc.stores.postgres, deps.settings, 10);
      expect(await hasDueAttempts(svc.stores.postgres)).to.equal(true);
      const unbounded = { perDestination: 10, perWorkspace: 10, busyDestinations: new Map(), busyWorkspaces: new Map() };
      expect(await claimDueAttempts(svc.stores.postgres, 10, 500, unbounded)).to.have.length(1);
      // Leased: not due again until the lease runs out.
      expect(await hasDueAttempts(svc.stores.postgres)).to.equal(false);
      worker.start();
      await sink.waitForRequests(1);
      await new Promise((r) => setTimeout(r, 800));
      expect(sink.requests).to.have.length(1);
      // The claimed attempt is closed as interrupted (whether it reached the receiver is unknown); the re-send is attempt 2.
      const attempts = (await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token })).body;
      expect(attempts.map((a: Attempt) => [a.attempt, a.status])).to.deep.equal([
        [2, 'delivered'],
        [1, 'interrupted'],
      ]);
    } finally {
      await worker.stop();
      await svc.close();
      await sink.close();
    }
  });

  it('sends a pending retry exactly once after the worker restarts', async () => {
    const sink = await FakeHttpServer.start();
    const env = { ...WORKER_ENV, DELIVERY_RETRY_SCHEDULE_MS: '1500,1500,1500,1500,1500' };
    let svc = await startTestService({ env });
    try {
      const token = await svc.tokenFor('restart-ws');
      const policy = await seedPolicy(svc.stores.postgres, 'restart-ws');
      await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/restart` } });
      sink.answerNext({ status: 502, body: 'bad gateway' });
      const { alertId } = await raiseAlert(svc.stores.postgres, 'restart-ws', policy);
      await sink.waitForRequests(1);
      // Stop while the retry waits for its time; start a new worker on the same stores.
      const storeOptions = svc.storeOptions;
      await svc.close();
      svc = await startTestService({ env, storeOptions });
      await sink.waitForRequests(2);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(sink.requests).to.have.length(2);
      const attempts = (await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token })).body;
      expect(attempts.map((a: Attempt) => [a.attempt, a.status])).to.deep.equal([
        [2, 'delivered'],
        [1, 'failed'],
      ]);
    } finally {
      await svc.close();
      await sink.close();
    }
  });
});
