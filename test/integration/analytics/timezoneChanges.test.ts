// Window reads look for day rows of an earlier timezone only for events whose timezone
// changed (src/rollups/windowTotals.ts), so Postgres must know every change, and count events
// from before it kept the record as changed.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { migrateClickHouse, migratePostgres } from '../../../src/stores/migrations.js';
import { openStores } from '../../../src/stores/index.js';
import { startTestService } from '../../helpers/service.js';
import { freshStoreOptions } from '../../helpers/stores.js';

describe('event timezone changes', function () {
  this.timeout(120_000);

  it('are recorded when the timezone becomes another, and only then', async () => {
    const svc = await startTestService();
    try {
      const token = await svc.tokenFor('tz-changes-ws');
      const changedAt = async (eventId: string) =>
        (await svc.stores.postgres.query<{ at: Date | null }>('SELECT timezone_changed_at AS at FROM event_definitions WHERE event_id = $1', [eventId]))[0]!.at;
      const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'moving', timezone: 'Europe/Berlin' } });
      expect(created.status).to.equal(201);
      const eventId: string = created.body.event_id;
      expect(created.body).to.not.have.property('timezone_changed_at');
      expect(await changedAt(eventId)).to.equal(null);

      // Other edits, the same timezone, and the whole object read and sent back change nothing.
      expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { title: 'Moving' } })).status).to.equal(200);
      expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'Europe/Berlin' } })).status).to.equal(200);
      const read = await svc.request('GET', `/v1.0/events/${eventId}`, { token });
      expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: read.body })).status).to.equal(200);
      expect(await changedAt(eventId)).to.equal(null);

      expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: { timezone: 'America/New_York' } })).status).to.equal(200);
      const first = await changedAt(eventId);
      expect(first).to.be.instanceOf(Date);
      // Sent back unchanged, it keeps the time of the change.
      const again = await svc.request('GET', `/v1.0/events/${eventId}`, { token });
      expect((await svc.request('PUT', `/v1.0/events/${eventId}`, { token, body: again.body })).status).to.equal(200);
      expect(await changedAt(eventId)).to.deep.equal(first);
    } finally {
      await svc.close();
    }
  });

  it('count every event from before the record as changed', async () => {
    const options = await freshStoreOptions({ unmigrated: true });
    const eventId = newId();
    const old = await openStores({ ...options, migrate: false });
    try {
      await migratePostgres(old.postgres, '0010');
      await migrateClickHouse(old.clickhouse);
      await old.postgres.query("INSERT INTO workspaces (user_id) VALUES ('tz-before-ws')");
      await old.postgres.query(
        `INSERT INTO event_definitions (event_id, user_id, agent, event, timezone, share_token) VALUES ($1, 'tz-before-ws', 'a', 'old', 'Asia/Tokyo', $2)`,
        [eventId, newId()],
      );
    } finally {
      await old.close();
    }
    const upgraded = await openStores(options);
    try {
      const rows = await upgraded.postgres.query<{ at: Date | null }>('SELECT timezone_changed_at AS at FROM event_definitions WHERE event_id = $1', [eventId]);
      expect(rows[0]!.at).to.be.instanceOf(Date);
    } finally {
      await upgraded.close();
    }
  });
});
