// A workspace holding one object of every kind with every field set (two policies: one on an
// event definition, one on a fleet), made through the API. The as-code tests export it,
// plan it and apply it; a kind or a field the document does not carry fails them.
import { expect } from 'chai';
import type { TestService } from '../../helpers/service.js';

const DAY = 86_400_000;

export interface Fixture {
  readonly slackUrl: string;
  readonly ids: Record<string, string>;
}

export async function makeEvents(svc: TestService, token: string): Promise<void> {
  for (const body of [
    { event: 'checkout.latency_ms', agent: 'web' },
    { event: 'jobs.duration_ms', agent: 'worker-1' },
  ]) {
    const res = await svc.request('POST', '/v1.0/events', { token, body });
    expect(res.status, res.text).to.be.oneOf([200, 201]);
  }
}

export async function makeFixture(svc: TestService, token: string): Promise<Fixture> {
  await makeEvents(svc, token);
  const events = (await svc.request('GET', '/v1.0/events', { token })).body as { event_id: string; event: string }[];
  const eventId = events.find((e) => e.event === 'checkout.latency_ms')!.event_id;
  const post = async (path: string, body: object) => {
    const res = await svc.request('POST', path, { token, body });
    expect(res.status, `${path}: ${res.text}`).to.equal(201);
    return res.body;
  };
  const slackUrl = 'https://hooks.slack.com/services/T0000/B0000/abcdefghijklmnopqrstuvwx';
  const slack = await post('/v1.0/destinations', { key: 'ops-slack', channel: 'slack', url: slackUrl, group_window_seconds: 60 });
  const hook = await post('/v1.0/destinations', {
    key: 'ops-hook',
    channel: 'webhook',
    url: 'https://example.com/alertmon-hook',
    credentials: { authorization: 'Bearer fixture-secret-token-0123456789' },
    enabled: false,
    group_window_seconds: 30,
    title_template: '{{alert.title}}',
    message_template: 'Value {{alert.value}}',
    body_template: '{"title": "{{alert.title}}"}',
  });
  const person = await post('/v1.0/people', { key: 'ada', name: 'Ada Lovelace', timezone: 'Europe/London', destination_ids: [hook.destination_id] });
  const start = new Date(Math.floor(Date.now() / DAY) * DAY - 7 * DAY).toISOString();
  const schedule = await post('/v1.0/schedules', {
    key: 'payments',
    name: 'Payments',
    timezone: 'Europe/Berlin',
    notify_handoffs: true,
    layers: [
      {
        name: 'primary',
        start,
        rotation: { type: 'weekly', length: 1, handoff: '09:00' },
        members: [person.person_id],
        restrict_to: { days: ['mon', 'tue'], start: '08:00', end: '18:00' },
      },
    ],
  });
  const escalation = await post('/v1.0/escalation-policies', {
    key: 'page-ops',
    name: 'Page ops',
    repeat: 2,
    steps: [
      { after_minutes: 5, destination_ids: [slack.destination_id] },
      { after_minutes: 15, destination_ids: [hook.destination_id, slack.destination_id], schedule_ids: [schedule.schedule_id], person_ids: [person.person_id] },
    ],
  });
  const source = await post('/v1.0/alert-sources', {
    key: 'prometheus',
    name: 'Prometheus',
    severity_label: 'level',
    default_severity: 'warning',
    escalation_policy_id: escalation.escalation_policy_id,
    renotify_minutes: 60,
    resolve_timeout_minutes: 10,
    inhibit_rules: [{ source_matchers: ['alertname="Down"'], target_matchers: ['severity=~"warn.*"'], equal: ['instance'] }],
  });
  const policy = await post('/v1.0/policies', {
    key: 'checkout-slow',
    event_id: eventId,
    title: 'Checkout slow',
    description: 'p95 over a second',
    channel: 'payments',
    period: 'hour',
    aggregate: 'average',
    condition: 'gt',
    threshold: 20,
    severity: 'critical',
    enabled: false,
    pending_buckets: 3,
    recovery_threshold: 10,
    no_data: 'breach',
    compare_to: 'previous_1d',
    min_count: 5,
    renotify_minutes: 30,
    escalation_policy_id: escalation.escalation_policy_id,
  });
  const fleet = await post('/v1.0/policies', {
    key: 'jobs-slow',
    event: 'jobs.duration_ms',
    agents: ['worker-*', 'batch'],
    filter: { agent: ['worker-1', 'worker-2'] },
    group_by: ['agent'],
    timezone: 'America/New_York',
    title: 'Jobs slow',
    period: 'minute',
    aggregate: 'max',
    condition: 'gte',
    threshold: 1000,
    severity: 'warning',
  });
  // Routed to the policies and the source: references that go round (destination → policy → escalation policy → destination).
  const routed = await svc.request('PUT', `/v1.0/destinations/${hook.destination_id}`, {
    token,
    body: { scope: 'policies', policy_ids: [policy.policy_id, source.alert_source_id] },
  });
  expect(routed.status, routed.text).to.equal(200);
  const silence = await post('/v1.0/silences', {
    key: 'weekly-maintenance',
    policy_ids: [policy.policy_id, fleet.policy_id],
    starts_at: new Date(Date.now() - DAY).toISOString(),
    ends_at: new Date(Date.now() + 30 * DAY).toISOString(),
    comment: 'Sunday maintenance',
    recurrence: { timezone: 'Europe/Berlin', days: ['sun'], start: '01:00', end: '03:30' },
  });
  const declared = await svc.request('PUT', '/v1.0/dimensions/checkout.latency_ms', { token, body: { keys: ['route', 'code'] } });
  expect(declared.status, declared.text).to.equal(200);
  return {
    slackUrl,
    ids: {
      slack: slack.destination_id,
      hook: hook.destination_id,
      person: person.person_id,
      schedule: schedule.schedule_id,
      escalation: escalation.escalation_policy_id,
      source: source.alert_source_id,
      policy: policy.policy_id,
      fleet: fleet.policy_id,
      silence: silence.silence_id,
    },
  };
}
