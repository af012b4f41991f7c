// kill -9 of the service process in the middle of an escalation chain, then a restart on the
// same stores: every step of the chain is written exactly once (none twice, none skipped) and
// reaches the destination; a step whose send the kill interrupted may be delivered again with
// the same webhook-id (receivers dedupe on it), never as a second step.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { requestOk } from '../../helpers/http.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'escalation-kill-admin-token-0123';
/** 3 steps of 1 "minute" each, 3 rounds: 9 steps, one every 300 ms. */
const MINUTE_MS = 300;

describe(`escalation survives kill -9 of the worker mid-chain (Postgres ${postgresMode})`, function () {
  this.timeout(240_000);

  it('writes and sends every step once, none skipped, across kills and restarts', async () => {
    const sink = await FakeHttpServer.start();
    const env: Record<string, string> = {
      ...(await freshProcessEnv()),
      ADMIN_TOKEN,
      ALLOW_PRIVATE_TARGETS: '1',
      EVAL_INTERVAL_MS: '86400000',
      ESCALATION_MINUTE_MS: String(MINUTE_MS),
      ESCALATION_POLL_INTERVAL_MS: '20',
      DELIVERY_POLL_INTERVAL_MS: '20',
    };
    let service = await startServiceProcess({ env });
    try {
      // service.url read at each call: a restart gives the process a new port.
      const call = (method: string, path: string, token: string, body?: unknown) => requestOk(service.url, method, path, token, body);
      const token = (await call('POST', '/v1.0/admin/tokens', ADMIN_TOKEN, { user_id: 'kill-ws' })).token as string;
      const destination = (await call('POST', '/v1.0/destinations', token, { channel: 'webhook', url: `${sink.origin}/hook` })).destination_id;
      const chain = await call('POST', '/v1.0/escalation-policies', token, {
        name: 'kill',
        steps: [1, 1, 1].map((after_minutes) => ({ after_minutes, destination_ids: [destination] })),
        repeat: 2,
      });
      const event = await call('POST', '/v1.0/events', token, { event: 'kill.silence', agent: 'k' });
      const policy = await call('POST', '/v1.0/policies', token, {
        event_id: event.event_id,
        title: 'silent',
        severity: 'critical',
        period: 'minute',
        aggregate: 'count',
        condition: 'lt',
        threshold: 1,
        escalation_policy_id: chain.escalation_policy_id,
      });
      const alert = (await call('POST', `/v1.0/policies/${policy.policy_id}/evaluate`, token, {})).alert;
      const escalated = () => sink.requests.filter((r) => r.json?.type === 'alert.escalated' && r.json.alert.alert_id === alert.alert_id);

      // Two kills, each after a step went out, then a restart on the same stores.
      for (const after of [2, 5]) {
        await waitFor(`${after} steps sent`, async () => (escalated().length >= after ? true : null), 60_000);
        await service.kill();
        service = await startServiceProcess({ env });
      }
      const all = await waitFor(
        'the 9 steps sent',
        async () => (new Set(escalated().map((r) => r.headers['webhook-id'])).size >= 9 ? escalated() : null),
        60_000,
      );
      // The chain is over: nothing more comes.
      await new Promise((resolve) => setTimeout(resolve, 6 * MINUTE_MS));

      const byId = new Map<string, string>();
      for (const r of escalated()) {
        const position = JSON.stringify(r.json.escalation);
        expect(byId.get(r.headers['webhook-id'] as string) ?? position, 'one webhook-id, one step').to.equal(position);
        byId.set(r.headers['webhook-id'] as string, position);
      }
      const positions = [...byId.values()].map((p) => JSON.parse(p));
      const expected = [1, 2, 3].flatMap((round) => [1, 2, 3].map((step) => ({ step, of: 3, round })));
      expect(positions).to.have.deep.members(expected);
      expect(positions).to.have.length(9);
      expect(all.length).to.be.at.least(9);
    } finally {
      await service.kill();
      await sink.close();
    }
  });
});
