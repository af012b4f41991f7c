// kill -9 of the service in the middle of a grouping window, then a restart on the same
// stores: the notifications the window held live in Postgres, so they survive the kill and
// reach the destination once, as one alert.group at the end of the window, each alert with
// one delivered attempt (grouping.test.ts has the clean restart).
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { requestOk } from '../../helpers/http.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'grouping-kill-admin-token-0123';
/** Long enough that raising the alerts and seeing them held ends well inside it on a loaded machine. */
const WINDOW_SECONDS = 30;
const ALERTS = 10;

describe(`grouping survives kill -9 mid-window (Postgres ${postgresMode})`, function () {
  this.timeout(300_000);

  it('sends the held notifications once, as one group, after a SIGKILL in the middle of the window', async () => {
    const sink = await FakeHttpServer.start();
    const env: Record<string, string> = {
      ...(await freshProcessEnv()),
      ADMIN_TOKEN,
      ALLOW_PRIVATE_TARGETS: '1',
      EVAL_INTERVAL_MS: '86400000',
      DELIVERY_POLL_INTERVAL_MS: '50',
    };
    let service = await startServiceProcess({ env });
    try {
      // service.url read at each call: a restart gives the process a new port.
      const call = (method: string, path: string, token: string, body?: unknown) => requestOk(service.url, method, path, token, body);
      const token = (await call('POST', '/v1.0/admin/tokens', ADMIN_TOKEN, { user_id: 'grouping-kill-ws' })).token as string;
      await call('POST', '/v1.0/destinations', token, { channel: 'webhook', url: `${sink.origin}/grouped`, group_window_seconds: WINDOW_SECONDS });
      const event = await call('POST', '/v1.0/events', token, { event: 'grouping.kill', agent: 'k' });
      // Policies that breach whenever evaluated (no logs: count < 1), each raising its alert now.
      const alertIds: string[] = [];
      for (let i = 0; i < ALERTS; i++) {
        const policy = await call('POST', '/v1.0/policies', token, {
          event_id: event.event_id,
          title: `Quiet ${i}`,
          severity: 'critical',
          period: 'minute',
          aggregate: 'count',
          condition: 'lt',
          threshold: 1,
        });
        alertIds.push((await call('POST', `/v1.0/policies/${policy.policy_id}/evaluate`, token, {})).alert.alert_id);
      }
      const historyOf = async (alertId: string) => (await call('GET', `/v1.0/alerts/${alertId}/deliveries`, token)) as { status: string }[];

      // The first went out at once; the other nine are held (pending attempts) for the window.
      await sink.waitForRequests(1, 60_000);
      await waitFor(
        'one sent and nine held attempts',
        async () => {
          const statuses = (await Promise.all(alertIds.map(historyOf))).flatMap((h) => h.map((a) => a.status));
          const count = (s: string) => statuses.filter((x) => x === s).length;
          return statuses.length === ALERTS && count('delivered') === 1 && count('pending') === ALERTS - 1 ? true : null;
        },
        60_000,
      );
      await service.kill();
      expect(sink.requests, 'the window had not ended at the kill').to.have.length(1);

      service = await startServiceProcess({ env });
      const [first, group] = await sink.waitForRequests(2, 120_000);
      expect(first!.json.type).to.equal('alert.triggered');
      expect(group!.json).to.include({ type: 'alert.group', group_type: 'alert.triggered', count: ALERTS - 1 });
      const sent = [first!.json.alert.alert_id, ...group!.json.alerts.map((a: { alert_id: string }) => a.alert_id)];
      expect([...sent].sort()).to.deep.equal([...alertIds].sort());

      // Each alert's history: one attempt, delivered; and nothing more reaches the destination.
      await waitFor('every attempt delivered', async () => {
        const histories = await Promise.all(alertIds.map(historyOf));
        return histories.every((h) => h.length === 1 && h[0]!.status === 'delivered') ? true : null;
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(sink.requests).to.have.length(2);
    } finally {
      await service.kill();
      await sink.close();
    }
  });
});
