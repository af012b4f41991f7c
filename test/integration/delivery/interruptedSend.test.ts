// A send cut off by a kill -9 of the service process is one attempt row, closed as
// interrupted once its claim's lease has run out, and its re-send is another, under the same
// Idempotency-Key and webhook-id: the history shows both sends. A clean stop hands back the
// attempts it had claimed but not sent, so it leaves no interrupted rows.
import { expect } from 'chai';
import { issueToken } from '../../../src/auth/tokens.js';
import { loadConfig } from '../../../src/config.js';
import { openStores, storeOptions } from '../../../src/stores/index.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { seedOutboxBurst } from '../../helpers/outboxBurst.js';
import { freshProcessEnv } from '../../helpers/stores.js';

const COUNT = 3;

interface HistoryEntry {
  readonly status: string;
  readonly attempt: number;
  readonly notification_id: string;
  readonly error_message: string | null;
}

interface AttemptRow {
  notification_id: string;
  attempt: number;
  status: string;
  error_message: string | null;
  claimed: boolean;
  due: boolean;
}

/** Every attempt of the database, by notification then attempt. */
async function attemptRows(env: Record<string, string>): Promise<AttemptRow[]> {
  const stores = await openStores(storeOptions(loadConfig(env)));
  try {
    return await stores.postgres.query<AttemptRow>(
      `SELECT notification_id, attempt, status, error_message, claimed_at IS NOT NULL AS claimed, next_attempt_at <= now() AS due
       FROM delivery_attempts ORDER BY notification_id, attempt`,
    );
  } finally {
    await stores.close();
  }
}

async function seed(env: Record<string, string>, url: string): Promise<{ notificationIds: string[]; token: string }> {
  const stores = await openStores(storeOptions(loadConfig(env)));
  try {
    return await stores.postgres.transaction(async (tx) => ({
      notificationIds: await seedOutboxBurst(tx, 'interrupted-ws', url, COUNT),
      token: (await issueToken(tx, 'interrupted-ws', undefined)).token,
    }));
  } finally {
    await stores.close();
  }
}

/** A service process's environment on fresh stores: sends to this machine allowed, no evaluation cycle. */
async function processEnv(settings: Record<string, string>): Promise<Record<string, string>> {
  return { ...(await freshProcessEnv()), ALLOW_PRIVATE_TARGETS: '1', EVAL_INTERVAL_MS: '86400000', ...settings };
}

describe('a send interrupted by a kill -9', function () {
  this.timeout(240_000);

  it('is closed as interrupted, and its re-send is an attempt of its own under the same Idempotency-Key', async () => {
    const sink = await FakeHttpServer.start();
    const env = await processEnv({
      ROLE: 'all',
      // Long enough that the held sends are still on the wire when the process is killed;
      // their claims' lease (4 time-outs + the grace) ends 17 s after the claim.
      DELIVERY_TIMEOUT_MS: '3000',
      DELIVERY_LEASE_GRACE_MS: '5000',
    });
    const { notificationIds, token } = await seed(env, `${sink.origin}/hook`);
    sink.hangNext(COUNT);

    const first = await startServiceProcess({ env });
    await sink.waitForRequests(COUNT, 60_000);
    await first.kill(); // every send is on the wire, none answered
    const before = await attemptRows(env);
    expect(before.map((r) => [r.attempt, r.status, r.claimed])).to.deep.equal(Array(COUNT).fill([1, 'pending', true]));

    const second = await startServiceProcess({ env });
    try {
      await sink.waitForRequests(2 * COUNT, 120_000);
      // The history a user reads shows both sends of each notification, newest first, once the re-sends are recorded.
      const get = async <T>(path: string) => {
        const res = await fetch(`${second.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status, path).to.equal(200);
        return (await res.json()) as T;
      };
      const alerts = await get<{ alert_id: string }[]>('/v1.0/alerts?limit=100');
      expect(alerts).to.have.length(COUNT);
      for (const { alert_id } of alerts) {
        const historyOf = () => get<HistoryEntry[]>(`/v1.0/alerts/${alert_id}/deliveries?kind=all`);
        const deadline = Date.now() + 30_000;
        let history = await historyOf();
        while (history.some((a) => a.status === 'pending') && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          history = await historyOf();
        }
        expect(history.map((a) => [a.attempt, a.status])).to.deep.equal([
          [2, 'delivered'],
          [1, 'interrupted'],
        ]);
        expect(history[0]!.notification_id).to.equal(history[1]!.notification_id);
        expect(history[1]!.error_message).to.match(/^interrupted: the process stopped during this send/);
      }
    } finally {
      expect(await second.stop()).to.equal(0);
      await sink.close();
    }

    // Each notification: one interrupted row, one delivered re-send, nothing left pending.
    const rows = await attemptRows(env);
    expect(new Set(rows.map((r) => r.notification_id))).to.deep.equal(new Set(notificationIds));
    for (const id of notificationIds) {
      const mine = rows.filter((r) => r.notification_id === id);
      expect(
        mine.map((r) => [r.attempt, r.status]),
        id,
      ).to.deep.equal([
        [1, 'interrupted'],
        [2, 'delivered'],
      ]);
      expect(mine[0]!.error_message).to.include('the process stopped during this send');
    }
    // The receiver got each notification twice, both times under its one key and id.
    expect(sink.requests).to.have.length(2 * COUNT);
    for (const id of notificationIds) {
      const received = sink.requests.filter((r) => r.headers['idempotency-key'] === id);
      expect(received, id).to.have.length(2);
      for (const r of received) expect(r.headers['webhook-id']).to.equal(id);
      expect(received[1]!.body).to.equal(received[0]!.body);
    }
  });

  it('is not what a clean stop leaves: the attempts it had claimed but not sent are handed back, due at once', async () => {
    const sink = await FakeHttpServer.start();
    const env = await processEnv({
      ROLE: 'worker',
      // The held send stays on the wire while the worker stops (its stop waits for it up to the time-out).
      DELIVERY_TIMEOUT_MS: '5000',
      // One send on the wire; the worker claims ahead, so the others wait in its queue.
      DELIVERY_CONCURRENCY: '1',
    });
    await seed(env, `${sink.origin}/hook`);
    sink.hangNext(COUNT);
    const worker = await startServiceProcess({ env });
    await sink.waitForRequests(1, 60_000);
    expect(await worker.stop()).to.equal(0);
    await sink.close();

    const rows = await attemptRows(env);
    expect(rows.filter((r) => r.status === 'interrupted')).to.deep.equal([]);
    // Each first try that went out was recorded (the held one timed out: failed); the others
    // were never sent, and are pending again, unclaimed and due now.
    const firstTries = rows.filter((r) => r.attempt === 1);
    expect(firstTries).to.have.length(COUNT);
    const unsent = firstTries.filter((r) => r.status === 'pending');
    expect(firstTries.length - unsent.length).to.equal(sink.requests.length);
    expect(unsent.length).to.be.at.least(1);
    for (const r of unsent) expect({ claimed: r.claimed, due: r.due }).to.deep.equal({ claimed: false, due: true });
  });
});
