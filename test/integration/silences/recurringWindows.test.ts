// Recurring maintenance windows through the dispatch of real outbox rows: each notification is
// written at a chosen instant of a DST day and dispatched, and its attempt is silenced or not.
// A window is always its local wall-clock times: one computed with the day's first UTC offset
// would silence the wrong hour after the change. The alerts are resolved, so what the windows
// held is dropped rather than notified again.
import { expect } from 'chai';
import { dispatchNotifications } from '../../../src/delivery/dispatch.js';
import { newId } from '../../../src/ids.js';
import { alertObject, seedPolicy, type SeededPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';

interface Case {
  readonly local: string;
  readonly at: string;
  readonly silenced: boolean;
}

interface Window {
  readonly name: string;
  readonly recurrence: { timezone: string; days: string[]; start: string; end: string };
  readonly cases: readonly Case[];
}

const WINDOWS: readonly Window[] = [
  {
    name: 'Europe/Berlin, Sunday 01:00–03:30 on the spring-forward day (02:00 CET → 03:00 CEST, 2027-03-28)',
    recurrence: { timezone: 'Europe/Berlin', days: ['sun'], start: '01:00', end: '03:30' },
    cases: [
      { local: '00:59 CET', at: '2027-03-27T23:59:00Z', silenced: false },
      { local: '01:00 CET', at: '2027-03-28T00:00:00Z', silenced: true },
      { local: '01:59 CET', at: '2027-03-28T00:59:00Z', silenced: true },
      { local: '03:00 CEST', at: '2027-03-28T01:00:00Z', silenced: true },
      { local: '03:29 CEST', at: '2027-03-28T01:29:00Z', silenced: true },
      // 03:30 CET would be 02:30Z: a window kept at the morning's offset would still be on.
      { local: '03:30 CEST', at: '2027-03-28T01:30:00Z', silenced: false },
    ],
  },
  {
    name: 'Europe/Berlin, Sunday 01:00–02:30 on the fall-back day (03:00 CEST → 02:00 CET, 2027-10-31)',
    recurrence: { timezone: 'Europe/Berlin', days: ['sun'], start: '01:00', end: '02:30' },
    cases: [
      { local: 'Sat 00:59 CEST', at: '2027-10-30T22:59:00Z', silenced: false },
      { local: '01:00 CEST', at: '2027-10-30T23:00:00Z', silenced: true },
      { local: '02:15 CEST (first time)', at: '2027-10-31T00:15:00Z', silenced: true },
      { local: '02:45 CEST', at: '2027-10-31T00:45:00Z', silenced: false },
      { local: '02:15 CET (second time)', at: '2027-10-31T01:15:00Z', silenced: true },
      { local: '02:30 CET', at: '2027-10-31T01:30:00Z', silenced: false },
    ],
  },
  {
    name: 'America/New_York, Saturday 22:00 past midnight to 03:30 on the spring-forward night (02:00 EST → 03:00 EDT, 2027-03-14)',
    recurrence: { timezone: 'America/New_York', days: ['sat'], start: '22:00', end: '03:30' },
    cases: [
      { local: 'Sat 21:59 EST', at: '2027-03-14T02:59:00Z', silenced: false },
      { local: 'Sat 22:00 EST', at: '2027-03-14T03:00:00Z', silenced: true },
      { local: 'Sun 00:00 EST', at: '2027-03-14T05:00:00Z', silenced: true },
      { local: 'Sun 01:59 EST', at: '2027-03-14T06:59:00Z', silenced: true },
      { local: 'Sun 03:00 EDT', at: '2027-03-14T07:00:00Z', silenced: true },
      // 03:30 EST would be 08:30Z.
      { local: 'Sun 03:30 EDT', at: '2027-03-14T07:30:00Z', silenced: false },
      { local: 'Sun 22:00 EDT (Sunday is not listed)', at: '2027-03-15T02:00:00Z', silenced: false },
    ],
  },
  {
    name: 'America/New_York, Sunday 00:30–01:30 on the fall-back day (02:00 EDT → 01:00 EST, 2027-11-07)',
    recurrence: { timezone: 'America/New_York', days: ['sun'], start: '00:30', end: '01:30' },
    cases: [
      { local: '00:29 EDT', at: '2027-11-07T04:29:00Z', silenced: false },
      { local: '00:30 EDT', at: '2027-11-07T04:30:00Z', silenced: true },
      { local: '01:15 EDT (first time)', at: '2027-11-07T05:15:00Z', silenced: true },
      { local: '01:30 EDT', at: '2027-11-07T05:30:00Z', silenced: false },
      { local: '01:15 EST (second time)', at: '2027-11-07T06:15:00Z', silenced: true },
      { local: '01:30 EST', at: '2027-11-07T06:30:00Z', silenced: false },
    ],
  },
  {
    name: 'Europe/Berlin, Friday 22:00 past midnight to 06:00 on an ordinary weekend (2027-01-15)',
    recurrence: { timezone: 'Europe/Berlin', days: ['fri'], start: '22:00', end: '06:00' },
    cases: [
      { local: 'Fri 21:59', at: '2027-01-15T20:59:00Z', silenced: false },
      { local: 'Fri 22:00', at: '2027-01-15T21:00:00Z', silenced: true },
      { local: 'Sat 00:00', at: '2027-01-15T23:00:00Z', silenced: true },
      { local: 'Sat 05:59', at: '2027-01-16T04:59:00Z', silenced: true },
      { local: 'Sat 06:00', at: '2027-01-16T05:00:00Z', silenced: false },
      { local: 'Sat 23:00 (Saturday is not listed)', at: '2027-01-16T22:00:00Z', silenced: false },
      { local: 'Thu 23:00 (Thursday is not listed)', at: '2027-01-14T22:00:00Z', silenced: false },
    ],
  },
];

describe('recurring silence windows across DST and midnight', function () {
  this.timeout(60_000);
  let svc: TestService;
  let n = 0;

  before(async () => {
    // No worker: the test dispatches itself, so nothing is sent.
    svc = await startTestService({ env: { ROLE: 'api', ALLOW_PRIVATE_TARGETS: '1' } });
  });
  after(() => svc.close());

  /** A resolved alert of the policy and its alert.triggered outbox row written at `at`. */
  async function notificationAt(ws: string, policy: SeededPolicy, at: string): Promise<string> {
    const alertId = newId();
    await svc.stores.postgres.query(
      `INSERT INTO alerts (alert_id, workspace_id, policy_id, event_id, agent, event, title, channel, period, aggregate, condition, threshold,
         severity, value, count, min, max, bucket_start, bucket_end, status, resolved_at)
       VALUES ($1, $2, $3, $4, 'web-1', 'http.latency_ms', 'High latency', 'default', 'minute', 'p95_est', 'gt', 500, 'critical',
         812.5, 40, 20, 990, now(), now(), 'resolved', now())`,
      [alertId, ws, policy.policyId, policy.eventId],
    );
    await svc.stores.postgres.query(
      `INSERT INTO alert_notifications (notification_id, workspace_id, alert_id, policy_id, type, alert, created_at)
       VALUES ($1, $2, $3, $4, 'alert.triggered', $5, $6)`,
      [newId(), ws, alertId, policy.policyId, alertObject(alertId, policy, 'triggered'), at],
    );
    return alertId;
  }

  for (const window of WINDOWS) {
    it(window.name, async () => {
      const ws = `windows-${++n}`;
      const token = await svc.tokenFor(ws);
      const policy = await seedPolicy(svc.stores.postgres, ws);
      const destination = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'http://127.0.0.1:9/hook' } });
      expect(destination.status, destination.text).to.equal(201);
      const created = await svc.request('POST', '/v1.0/silences', {
        token,
        body: { ends_at: '2028-01-01T00:00:00Z', recurrence: window.recurrence, comment: window.name },
      });
      expect(created.status, created.text).to.equal(201);

      const alerts = new Map<string, Case>();
      for (const c of window.cases) alerts.set(await notificationAt(ws, policy, c.at), c);
      await dispatchNotifications(svc.stores.postgres, svc.services.delivery.settings, 1000);

      const outcome = [];
      for (const [alertId, c] of alerts) {
        const [attempt] = (await svc.request('GET', `/v1.0/alerts/${alertId}/deliveries`, { token })).body;
        outcome.push({ local: c.local, silenced: attempt.status === 'silenced' });
      }
      expect(outcome).to.deep.equal(window.cases.map((c) => ({ local: c.local, silenced: c.silenced })));
    });
  }
});
