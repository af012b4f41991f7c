// A workspace as a person finds it after a week of use, seeded through the API only: an
// event with nine days of logs every seven minutes (in Europe/Berlin), one with three
// isolated minutes, policies of every kind of rule, an alert in each status with its
// deliveries, destinations of three channels with a test send, silences (one weekly) and an
// escalation policy. The console tests walk it.
import { expect } from 'chai';
import type { FakeHttpServer } from './fakeProviders.js';
import { sendLogs } from './logs.js';
import type { TestService } from './service.js';
import { waitFor } from './waitFor.js';

/** What the service seeded with it must run with: private webhook targets, fast deliveries, no evaluation worker (the alerts stay as made). */
export const SEEDED_SERVICE_ENV = { EVAL_INTERVAL_MS: '86400000', ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } as const;

export interface SeededWorkspace {
  readonly token: string;
  /** Nine days of logs every 7 minutes, Europe/Berlin. */
  readonly latencyEventId: string;
  /** Three minutes of logs, 30, 20 and 10 minutes ago: isolated minute buckets. */
  readonly sparseEventId: string;
  /** Policy titles by the status their alert was left in. */
  readonly alertTitles: Readonly<Record<'triggered' | 'acknowledged' | 'resolved' | 'archived', string>>;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

export async function seedConsoleWorkspace(svc: TestService, sink: FakeHttpServer, workspaceId: string): Promise<SeededWorkspace> {
  const token = await svc.tokenFor(workspaceId);
  const call = async (method: string, path: string, body?: unknown, expected = [200, 201, 204]) => {
    const res = await svc.request(method, path, { token, body });
    expect(expected, `${method} ${path}: ${res.status} ${res.text}`).to.include(res.status);
    return res.body;
  };

  const latency = await call('POST', '/v1.0/events', {
    agent: 'shop',
    event: 'checkout.latency',
    title: 'Checkout latency',
    unit: 'ms',
    timezone: 'Europe/Berlin',
    description: 'Time from the pay button to the confirmation page.',
  });
  const sparse = await call('POST', '/v1.0/events', { agent: 'worker', event: 'queue.depth', title: 'Queue depth', unit: 'jobs', timezone: 'Europe/Berlin' });
  const now = Date.now();
  const start = now - 9 * DAY;
  const logs = [];
  // 400 and 600 in turn: every hour's maximum is 600, its average 500.
  for (let t = start, i = 0; t < now - MINUTE; t += 7 * MINUTE, i++)
    logs.push({ agent: 'shop', event: 'checkout.latency', value: i % 2 === 0 ? 400 : 600, occurred_at: new Date(t).toISOString() });
  for (const minutesAgo of [30, 20, 10])
    logs.push({ agent: 'worker', event: 'queue.depth', value: minutesAgo, occurred_at: new Date(now - minutesAgo * MINUTE).toISOString() });
  await sendLogs(svc, token, logs);

  const webhook = await call('POST', '/v1.0/destinations', { channel: 'webhook', url: `${sink.origin}/hook` });
  const rule = { event_id: latency.event_id, severity: 'warning' };
  const policy = async (body: Record<string, unknown>) => (await call('POST', '/v1.0/policies', { ...rule, ...body })).policy_id as string;
  const policies = {
    triggered: await policy({ title: 'Checkout slow', period: 'hour', aggregate: 'max', condition: 'gt', threshold: 500, severity: 'critical' }),
    acknowledged: await policy({
      title: 'Checkout p95 high',
      period: 'hour',
      aggregate: 'p95_est',
      condition: 'gte',
      threshold: 300,
      recovery_threshold: 250,
      no_data: 'breach',
      pending_buckets: 2,
    }),
    resolved: await policy({ title: 'Checkout average under a second', period: 'day', aggregate: 'average', condition: 'lt', threshold: 1000, min_count: 3 }),
    archived: await policy({ title: 'Checkout count steady', period: 'hour', aggregate: 'count', condition: 'lte', threshold: 100, compare_to: 'previous_1d' }),
  };
  const quiet = await policy({ title: 'Checkout p99 flat', period: 'minute', aggregate: 'p99_est', condition: 'eq', threshold: 0, enabled: false });
  await call('POST', '/v1.0/destinations', {
    channel: 'slack',
    url: 'https://hooks.slack.com/services/T000/B000/XXXX',
    scope: 'policies',
    policy_ids: [quiet],
  });
  await call('POST', '/v1.0/destinations', { channel: 'email', url: 'oncall@example.com', scope: 'policies', policy_ids: [quiet], enabled: false });
  const escalation = await call('POST', '/v1.0/escalation-policies', {
    name: 'Night shift',
    steps: [
      { after_minutes: 5, destination_ids: [webhook.destination_id] },
      { after_minutes: 15, destination_ids: [webhook.destination_id] },
    ],
    repeat: 1,
  });
  await call('PUT', `/v1.0/policies/${policies.acknowledged}`, { escalation_policy_id: escalation.escalation_policy_id, renotify_minutes: 60 });

  // An alert for each policy: the last closed bucket of each breaches (the worker may have raised it first).
  const alertIds: Record<string, string> = {};
  for (const [status, id] of Object.entries(policies)) {
    await call('POST', `/v1.0/policies/${id}/evaluate`, {});
    const alerts: { alert_id: string; policy_id: string }[] = await call('GET', '/v1.0/alerts?status=triggered');
    const alert = alerts.find((a) => a.policy_id === id);
    expect(alert, `an alert of the policy to leave ${status}`).to.not.equal(undefined);
    alertIds[status] = alert!.alert_id;
  }
  await call('POST', `/v1.0/alerts/${alertIds.acknowledged}/acknowledge`);
  await call('POST', `/v1.0/alerts/${alertIds.resolved}/resolve`);
  await call('POST', `/v1.0/alerts/${alertIds.archived}/resolve`);
  await call('POST', `/v1.0/alerts/${alertIds.archived}/archive`);
  await call('POST', `/v1.0/destinations/${webhook.destination_id}/test`);
  // Each alert's notifications delivered (raised, and resolved for two) before silences could hold them.
  await waitFor('the notifications at the webhook', async () => (sink.requests.length >= 7 ? true : null));

  await call('POST', '/v1.0/silences', {
    policy_ids: [quiet],
    starts_at: new Date(now).toISOString(),
    ends_at: new Date(now + 2 * 3_600_000).toISOString(),
    comment: 'Deploying the new checkout',
  });
  await call('POST', '/v1.0/silences', {
    policy_ids: null,
    starts_at: new Date(now).toISOString(),
    ends_at: new Date(now + 30 * DAY).toISOString(),
    comment: 'Nightly maintenance',
    recurrence: { timezone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '02:00', end: '03:00' },
  });
  return {
    token,
    latencyEventId: latency.event_id,
    sparseEventId: sparse.event_id,
    alertTitles: {
      triggered: 'Checkout slow',
      acknowledged: 'Checkout p95 high',
      resolved: 'Checkout average under a second',
      archived: 'Checkout count steady',
    },
  };
}
