// One slow destination must not delay the others. A target that accepts connections and never
// answers holds its sends until the time-out (set here far beyond the test's length); the
// worker's slots are few, so without a bound per destination and per workspace the hanging
// sends would take them all and the healthy destination would wait for the time-out. The
// tests assert the order of events, not a time budget: every notification to the healthy
// destination is delivered while the hanging one still holds its requests unanswered.
import { expect } from 'chai';
import { FakeHttpServer, HangingHttpServer } from '../../helpers/fakeProviders.js';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const NOTIFICATIONS = 20;
const TIMEOUT_MS = 120_000;
const ENV = {
  ALLOW_PRIVATE_TARGETS: '1',
  DELIVERY_POLL_INTERVAL_MS: '50',
  DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
  // The cut connections of a test's end come back only after it.
  DELIVERY_RETRY_SCHEDULE_MS: '3600000',
  DELIVERY_CONCURRENCY: '6',
  DELIVERY_DESTINATION_CONCURRENCY: '2',
  DELIVERY_WORKSPACE_CONCURRENCY: '4',
};

interface StatusCount {
  status: string;
  n: number;
}

describe('delivery: one slow destination does not delay the others', function () {
  this.timeout(90_000);
  let svc: TestService;
  let healthy: FakeHttpServer;
  let hanging: HangingHttpServer;

  before(async () => {
    svc = await startTestService({ env: ENV });
  });
  after(async () => {
    await svc.close();
  });
  beforeEach(async () => {
    healthy = await FakeHttpServer.start();
    hanging = await HangingHttpServer.start();
  });
  // Cutting the hanging requests first lets their sends finish, so the worker stops at once.
  afterEach(async () => {
    await hanging.close();
    await healthy.close();
  });

  const webhook = async (token: string, url: string) => {
    const res = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url } });
    expect(res.status, res.text).to.equal(201);
    return res.body.destination_id as string;
  };
  const raise = async (workspace: string, count: number) => {
    const policy = await seedPolicy(svc.stores.postgres, workspace);
    for (let i = 0; i < count; i++) await raiseAlert(svc.stores.postgres, workspace, policy);
  };
  const statusesOf = (workspace: string) =>
    svc.stores.postgres.query<StatusCount>(`SELECT status, count(*)::int AS n FROM delivery_attempts WHERE workspace_id = $1 GROUP BY status ORDER BY status`, [
      workspace,
    ]);
  const deliveredOf = async (workspace: string) => (await statusesOf(workspace)).find((s) => s.status === 'delivered')?.n ?? 0;
  /** Longest wait from an attempt's creation to its delivery at the healthy destination. */
  const longestLagMs = async (destinationId: string) => {
    const [row] = await svc.stores.postgres.query<{ ms: number }>(
      `SELECT max(extract(epoch FROM updated_at - created_at) * 1000)::float8 AS ms FROM delivery_attempts WHERE destination_id = $1`,
      [destinationId],
    );
    return row!.ms;
  };

  it('a destination that never answers holds only its own slots', async () => {
    const token = await svc.tokenFor('slow-one');
    await webhook(token, `${hanging.origin}/never`);
    const fast = await webhook(token, `${healthy.origin}/at-once`);
    await raise('slow-one', NOTIFICATIONS);

    await waitFor('the healthy deliveries', async () => ((await deliveredOf('slow-one')) === NOTIFICATIONS ? true : null));
    await waitFor('the hanging requests', async () => (hanging.open === 2 ? true : null));
    // Still hanging: exactly its two slots, nothing answered, nothing else sent to it.
    expect(hanging.received).to.equal(2);
    const statuses = await statusesOf('slow-one');
    expect(statuses).to.deep.include({ status: 'delivered', n: NOTIFICATIONS });
    expect(statuses).to.deep.include({ status: 'pending', n: NOTIFICATIONS });
    expect(statuses).to.have.length(2);
    expect(healthy.requests).to.have.length(NOTIFICATIONS);
    const lag = await longestLagMs(fast);
    expect(lag, `longest wait of a healthy delivery: ${lag} ms`).to.be.below(TIMEOUT_MS);
  });

  it("a workspace whose destinations all hang does not take another workspace's slots", async () => {
    const slowToken = await svc.tokenFor('slow-many');
    for (const path of ['a', 'b', 'c']) await webhook(slowToken, `${hanging.origin}/${path}`);
    const token = await svc.tokenFor('fast-other');
    await webhook(token, `${healthy.origin}/other`);
    await raise('slow-many', NOTIFICATIONS);
    await raise('fast-other', NOTIFICATIONS);

    await waitFor('the healthy deliveries', async () => ((await deliveredOf('fast-other')) === NOTIFICATIONS ? true : null));
    await waitFor('the hanging requests', async () => (hanging.open === 4 ? true : null));
    // Three destinations of two slots each, but four for their workspace.
    expect(hanging.received).to.equal(4);
    expect(await statusesOf('fast-other')).to.deep.equal([{ status: 'delivered', n: NOTIFICATIONS }]);
    expect(healthy.requests).to.have.length(NOTIFICATIONS);
  });
});
