// A Postgres connection cut while in use (what a Postgres restart, a fail-over or
// idle_in_transaction_session_timeout does) must fail only the operation on it, answered 503
// in the JSON error shape, never the process: the service once died of an unhandled 'error'
// event of a checked-out client ("terminating connection due to administrator command",
// 57P01). The service's backends are terminated again and again under load; it must answer
// again by itself, and lose nothing it acknowledged. Server mode only: embedded PGlite has no
// backends to terminate.
import { expect } from 'chai';
import pg from 'pg';
import { startTestService, type TestService } from '../../helpers/service.js';
import { postgresMode } from '../../helpers/stores.js';

const CLIENTS = 8;
const CUT_ROUNDS = 40;

describe(`Postgres connections cut while in use (${postgresMode})`, function () {
  this.timeout(300_000);
  let svc: TestService;
  let admin: pg.Client;

  before(async function () {
    if (postgresMode !== 'server') this.skip();
    svc = await startTestService({ env: { DELIVERY_POLL_INTERVAL_MS: '20' } });
    admin = new pg.Client({ connectionString: process.env.ALERTMON_TEST_POSTGRES_URL });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await svc?.close();
  });

  it('fails only the cut operations (503), keeps the process, recovers by itself and loses nothing acknowledged', async () => {
    const token = await svc.tokenFor('cut-ws');
    const eventId = (await svc.request('POST', '/v1.0/events', { token, body: { event: 'base', agent: 'a' } })).body.event_id;
    const database = new URL(svc.storeOptions.postgres.mode === 'server' ? svc.storeOptions.postgres.url : '').pathname.slice(1);

    let stop = false;
    const acknowledged = { events: new Set<string>([eventId]), policies: new Set<string>() };
    const statuses: Record<string, number> = {};
    const unexpected: string[] = [];
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const kind = i % 3;
        const res =
          kind === 0
            ? await svc.request('POST', '/v1.0/events', { token, body: { event: `e.${n}.${i}`, agent: 'a' } })
            : kind === 1
              ? await svc.request('POST', '/v1.0/policies', {
                  token,
                  body: {
                    event_id: eventId,
                    title: `p ${n}.${i}`,
                    channel: 'ops',
                    period: 'minute',
                    aggregate: 'count',
                    condition: 'gt',
                    threshold: i,
                    severity: 'warning',
                    enabled: true,
                  },
                })
              : await svc.request('GET', '/v1.0/events?limit=10', { token });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 201 && kind === 0) acknowledged.events.add(res.body.event_id);
        else if (res.status === 201 && kind === 1) acknowledged.policies.add(res.body.policy_id);
        else if (res.status === 503) {
          if (res.body?.error?.code !== 'database_unavailable' || res.headers.get('retry-after') === null) unexpected.push(`503 ${res.text}`);
        } else if (res.status !== 200) unexpected.push(`${res.status} ${res.text.slice(0, 200)}`);
      }
    };
    const load = Array.from({ length: CLIENTS }, (_, n) => client(n));

    let terminated = 0;
    for (let round = 0; round < CUT_ROUNDS; round++) {
      const { rows } = await admin.query<{ cut: boolean }>(
        'SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      terminated += rows.filter((r) => r.cut).length;
      // Let the load open new connections and get into them before the next cut.
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    stop = true;
    await Promise.all(load);

    expect(terminated, 'backends of the service were terminated').to.be.at.least(CUT_ROUNDS / 2);
    expect(unexpected, JSON.stringify(statuses)).to.deep.equal([]);

    // It answers again without a restart, and every acknowledged write is there.
    const events = await svc.request<{ event_id: string }[]>('GET', '/v1.0/events', { token });
    expect(events.status).to.equal(200);
    const stored = new Set(events.body.map((e) => e.event_id));
    expect([...acknowledged.events].filter((id) => !stored.has(id))).to.deep.equal([]);
    const policies = await svc.request<{ policy_id: string }[]>('GET', '/v1.0/policies', { token });
    expect(policies.status).to.equal(200);
    const storedPolicies = new Set(policies.body.map((p) => p.policy_id));
    expect([...acknowledged.policies].filter((id) => !storedPolicies.has(id))).to.deep.equal([]);
    expect((await svc.request('GET', '/readyz')).status).to.equal(200);
  });
});
