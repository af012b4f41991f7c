// kill -9 of the service process while the shifts of a schedule with notify_handoffs keep
// starting, then a restart on the same stores: every shift start is announced exactly once
// (none twice, none skipped, those that started while it was down announced on restart); a
// notice whose send the kill interrupted may be delivered again with the same webhook-id
// (receivers dedupe on it), never as a second notice. Real time: overrides of a few seconds
// each make the shifts.
import { expect } from 'chai';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { requestOk } from '../../helpers/http.js';
import { freshProcessEnv, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'handoff-kill-admin-token-0123';
const SHIFTS = 6;
const SHIFT_MS = 4000;

describe(`handoff notices survive kill -9 of the worker (Postgres ${postgresMode})`, function () {
  this.timeout(300_000);

  it('announces every shift start once, none skipped, across a kill and a restart', async () => {
    const sink = await FakeHttpServer.start();
    const env: Record<string, string> = {
      ...(await freshProcessEnv()),
      ADMIN_TOKEN,
      ALLOW_PRIVATE_TARGETS: '1',
      EVAL_INTERVAL_MS: '86400000',
      ESCALATION_POLL_INTERVAL_MS: '20',
      DELIVERY_POLL_INTERVAL_MS: '20',
    };
    let service = await startServiceProcess({ env });
    try {
      const call = (method: string, path: string, token: string, body?: unknown) => requestOk(service.url, method, path, token, body);
      const token = (await call('POST', '/v1.0/admin/tokens', ADMIN_TOKEN, { user_id: 'handoff-kill-ws' })).token as string;
      const personOf = async (name: string) => {
        const destination = (await call('POST', '/v1.0/destinations', token, { channel: 'webhook', url: `${sink.origin}/${name}` })).destination_id;
        return (await call('POST', '/v1.0/people', token, { name, destination_ids: [destination] })).person_id as string;
      };
      const people = [await personOf('ada'), await personOf('bo')];
      // The layer starts in a year: the overrides alone make the shifts now.
      const schedule = await call('POST', '/v1.0/schedules', token, {
        name: 'Kill',
        timezone: 'UTC',
        notify_handoffs: true,
        layers: [{ name: 'later', start: new Date(Date.now() + 365 * 86_400_000).toISOString(), rotation: { type: 'daily' }, members: people }],
      });
      const first = Date.now() + 5000;
      const starts: string[] = [];
      for (let i = 0; i < SHIFTS; i++) {
        const startsAt = new Date(first + i * SHIFT_MS).toISOString();
        starts.push(`${people[i % 2]} ${startsAt}`);
        await call('POST', `/v1.0/schedules/${schedule.schedule_id}/overrides`, token, {
          person_id: people[i % 2],
          starts_at: startsAt,
          ends_at: new Date(first + (i + 1) * SHIFT_MS).toISOString(),
        });
      }
      const notices = () => sink.requests.filter((r) => r.json?.type === 'schedule.handoff');
      const distinct = () => new Set(notices().map((r) => r.headers['webhook-id'])).size;

      await waitFor('2 notices sent', async () => (distinct() >= 2 ? true : null), 60_000);
      await service.kill();
      service = await startServiceProcess({ env });
      await waitFor(`the ${SHIFTS} notices sent`, async () => (distinct() >= SHIFTS ? true : null), 120_000);
      // The last shift has started: nothing more comes.
      await new Promise((resolve) => setTimeout(resolve, 2 * SHIFT_MS));

      const byId = new Map<string, string>();
      for (const r of notices()) {
        const shift = `${r.json.handoff.person_id} ${r.json.handoff.starts_at}`;
        expect(byId.get(r.headers['webhook-id'] as string) ?? shift, 'one webhook-id, one shift start').to.equal(shift);
        byId.set(r.headers['webhook-id'] as string, shift);
        // To the incoming person's own destination.
        expect(r.path).to.equal(r.json.handoff.person_id === people[0] ? '/ada' : '/bo');
      }
      expect([...byId.values()]).to.have.members(starts);
      expect(byId.size).to.equal(SHIFTS);
    } finally {
      await service.kill();
      await sink.close();
    }
  });
});
