import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { request } from '../../helpers/http.js';
import { isoMinutesAgo } from '../../helpers/logs.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode, describeInEmbeddedRunOnly } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'durability-admin-token-0123456789';

describeInEmbeddedRunOnly(`durability of acknowledged logs (Postgres ${postgresMode})`, function () {
  this.timeout(180_000);

  it('keeps every acknowledged record through a kill -9, and a retry after it is not counted again', async () => {
    const env = { ...(await freshProcessEnv()), ADMIN_TOKEN };
    const first = await startServiceProcess({ env });
    const batches = Array.from({ length: 20 }, () =>
      Array.from({ length: 250 }, (_, i) => ({ log_id: randomUUID(), event: 'durable', value: 1, occurred_at: isoMinutesAgo(i % 30) })),
    );
    let token = '';
    let acknowledged = 0;
    try {
      token = (await request(first.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: 'durable-ws' } })).body.token;
      // Concurrent senders; the process is killed as soon as the last answer arrives.
      const answers = await Promise.all(batches.map((body) => request(first.url, 'POST', '/v1.0/logs', { token, body })));
      acknowledged = answers.filter((a) => a.status === 200).length * 250;
    } finally {
      await first.kill();
    }
    expect(acknowledged).to.equal(5000);

    const second = await startServiceProcess({ env });
    try {
      const events = await request(second.url, 'GET', '/v1.0/events', { token });
      const eventId = events.body[0].event_id;
      const total = async () => {
        const days = await request(second.url, 'GET', `/v1.0/events/${eventId}/logs?period=day`, { token });
        return days.body.reduce((sum: number, d: { count: number }) => sum + d.count, 0);
      };
      // Whatever the journal still held is replayed into ClickHouse after the restart.
      const drained = async () => /^alertmon_journal_backlog_records 0$/m.test((await request(second.url, 'GET', '/metrics')).text);
      await waitFor('the journal replay', async () => ((await drained()) ? true : null));
      expect(await total()).to.equal(acknowledged);
      // The agent retries the last batch it sent, unsure whether it arrived.
      expect((await request(second.url, 'POST', '/v1.0/logs', { token, body: batches[19] })).status).to.equal(200);
      await waitFor('the journal to drain', async () => ((await drained()) ? true : null));
      expect(await total()).to.equal(acknowledged);
    } finally {
      await second.stop();
    }
  });
});
