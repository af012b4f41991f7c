// No notification is lost or delivered twice as a different message across a kill -9 of the
// worker process during a burst: a second worker sends what the first left (after the claims'
// lease), with the same webhook-id on any send that is repeated, so a receiver that dedups
// by webhook-id gets every notification exactly once.
import { expect } from 'chai';
import { loadConfig } from '../../../src/config.js';
import { openStores, storeOptions } from '../../../src/stores/index.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { seedOutboxBurst } from '../../helpers/outboxBurst.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv } from '../../helpers/stores.js';

const COUNT = 300;
/** No request for this long after the leases ran out: the re-sends are done. */
const QUIET_MS = 2000;

describe('delivery across a kill -9 of the worker', function () {
  this.timeout(240_000);

  it('delivers every notification, each under its one webhook-id', async () => {
    // Slow answers keep sends on the wire when the worker dies.
    const sink = await FakeHttpServer.start();
    const env = {
      ...(await freshProcessEnv()),
      ROLE: 'worker',
      ALLOW_PRIVATE_TARGETS: '1',
      // A short time-out and grace, so the killed worker's claims (lease: 4 time-outs + the grace) come back after 9 s.
      DELIVERY_TIMEOUT_MS: '1000',
      DELIVERY_LEASE_GRACE_MS: '5000',
      DELIVERY_CONCURRENCY: '8',
      EVAL_INTERVAL_MS: '86400000',
    };
    const config = loadConfig(env);
    let stores = await openStores(storeOptions(config));
    const ids = await stores.postgres.transaction((tx) => seedOutboxBurst(tx, 'kill-ws', `${sink.origin}/kill`, COUNT));
    await stores.close();

    const first = await startServiceProcess({ env });
    await sink.waitForRequests(COUNT / 10, 60_000);
    await first.kill(); // SIGKILL mid-burst
    const killedAt = Date.now();
    const sentBeforeKill = sink.requests.length;
    expect(sentBeforeKill).to.be.below(COUNT);

    // The second worker is stopped as soon as every id arrived; its stop waits for the sends in
    // flight to be recorded for as long as a send may take (DELIVERY_TIMEOUT_MS + a grace), which a
    // loaded machine's 1 s could outlast, leaving a delivered attempt pending. The killed worker's
    // leases were set by its own time-out at claim time, so this changes nothing of the recovery.
    //
    // Every id arriving is not enough: a send the killed worker put on the wire but never recorded
    // has its id at the sink already, and its row stays pending until its lease runs out and a
    // worker sends it again. So the second worker runs until every lease the killed worker held
    // has run out, every id has arrived, and the sink has been quiet for a while (the re-sends done).
    const second = await startServiceProcess({ env: { ...env, DELIVERY_TIMEOUT_MS: '15000' } });
    try {
      const deadline = Date.now() + 150_000;
      // The killed worker's claims held for 4 of its time-outs and the grace (delivery/worker.ts, leaseMs).
      const leasesOutAt = killedAt + 4 * Number(env.DELIVERY_TIMEOUT_MS) + Number(env.DELIVERY_LEASE_GRACE_MS);
      const distinct = () => new Set(sink.requests.map((r) => r.headers['webhook-id'])).size;
      const quiet = () => Date.now() - (sink.requests.at(-1)?.at ?? 0) >= QUIET_MS;
      const done = () => Date.now() > leasesOutAt + QUIET_MS && distinct() === COUNT && quiet();
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    } finally {
      expect(await second.stop()).to.equal(0);
    }
    await sink.close();

    const received = sink.requests.map((r) => String(r.headers['webhook-id']));
    // Every notification arrived, none under an id it does not have.
    expect(new Set(received)).to.deep.equal(new Set(ids));
    // A repeated send (one the killed worker sent but could not record) carried the same id and the same body.
    const bodies = new Map<string, string>();
    for (const r of sink.requests) {
      const id = String(r.headers['webhook-id']);
      expect(r.headers['idempotency-key']).to.equal(id);
      const body = JSON.stringify(r.json);
      if (bodies.has(id)) expect(body).to.equal(bodies.get(id));
      bodies.set(id, body);
    }
    // Repeats are bounded by what was on the wire or unrecorded at the kill.
    expect(received.length - COUNT).to.be.at.most(sentBeforeKill);

    stores = await openStores(storeOptions(config));
    try {
      const rows = await stores.postgres.query<{ notification_id: string; delivered: number; pending: number }>(
        `SELECT notification_id, count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE status = 'pending')::int AS pending
         FROM delivery_attempts GROUP BY notification_id`,
      );
      expect(rows).to.have.length(COUNT);
      for (const row of rows)
        expect({ id: row.notification_id, delivered: row.delivered, pending: row.pending }).to.deep.equal({
          id: row.notification_id,
          delivered: 1,
          pending: 0,
        });
    } finally {
      await stores.close();
    }
  });
});
