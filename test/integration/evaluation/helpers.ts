// Shared set-up of the evaluation tests: a service whose own worker stays idle, logs written
// at chosen instants straight through the ingest pipeline (the HTTP API would stamp them
// relative to the real clock), and evaluators running on a clock the test sets.
import type { AlertJson } from '../../../src/alerts/model.js';
import { PolicyEvaluator } from '../../../src/evaluation/evaluator.js';
import { newId } from '../../../src/ids.js';
import type { Stores } from '../../../src/stores/index.js';
import { ingestVisible, openTestIngestor } from '../../helpers/ingest.js';
import type { TestService } from '../../helpers/service.js';

export const MINUTE = 60_000;
export const GRACE_MS = 5_000;
/** The service's own worker would evaluate on the real clock; these tests drive evaluation themselves. */
export const IDLE_WORKER_ENV = { EVAL_INTERVAL_MS: '86400000', EVAL_GRACE_MS: String(GRACE_MS) };

/** Minute policies with each rule option that keeps state between buckets: a pending run, hysteresis, no_data, a comparison. */
export const RULE_OPTION_POLICIES: readonly Record<string, unknown>[] = [
  { aggregate: 'count', condition: 'gt', threshold: 2, pending_buckets: 2 },
  { aggregate: 'max', condition: 'gt', threshold: 90, recovery_threshold: 70 },
  { aggregate: 'average', condition: 'gt', threshold: 60, no_data: 'breach' },
  { aggregate: 'sum', condition: 'gt', threshold: 50, compare_to: 'previous_bucket', min_count: 1 },
];

/** A minute boundary two days back: inside every retention window, away from "now". */
export function baseMinute(): number {
  return Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000 + 12 * 3_600_000;
}

export async function ingestAt(
  stores: Stores,
  workspaceId: string,
  event: string,
  points: readonly (readonly [number, number])[],
  agent = 'test',
): Promise<void> {
  await ingestFromAgents(
    stores,
    workspaceId,
    event,
    points.map(([value, at]) => [value, at, agent]),
  );
}

/** Records of several agents, [value, occurred at, agent] each, in one go. */
export async function ingestFromAgents(
  stores: Stores,
  workspaceId: string,
  event: string,
  points: readonly (readonly [number, number, string])[],
): Promise<void> {
  const { ingestor } = await openTestIngestor(stores);
  await ingestVisible(
    ingestor,
    workspaceId,
    points.map(([value, at, agent]) => ({ logId: newId(), clientLogId: false, agent, event, value, occurredAt: at, meta: '' })),
  );
  await ingestor.close(0);
}

/** An evaluator whose clock reads `clock.now`. */
export function evaluatorAt(stores: Stores, clock: { now: number }): PolicyEvaluator {
  return new PolicyEvaluator({ postgres: stores.postgres, clickhouse: stores.clickhouse, graceMs: GRACE_MS, now: () => clock.now });
}

export async function createEvent(svc: TestService, token: string, event: string, timezone = 'UTC', agent = 'test'): Promise<string> {
  const res = await svc.request('POST', '/v1.0/events', { token, body: { event, agent, timezone } });
  if (res.status !== 201) throw new Error(`event: ${res.status} ${res.text}`);
  return res.body.event_id;
}

export async function createPolicy(svc: TestService, token: string, body: Record<string, unknown>): Promise<string> {
  const res = await svc.request('POST', '/v1.0/policies', { token, body: { title: 'p', severity: 'warning', period: 'minute', ...body } });
  if (res.status !== 201) throw new Error(`policy: ${res.status} ${res.text}`);
  return res.body.policy_id;
}

export async function alertsOf(svc: TestService, token: string, policyId: string): Promise<AlertJson[]> {
  const res = await svc.request<AlertJson[]>('GET', '/v1.0/alerts?limit=1000', { token });
  return res.body.filter((a) => a.policy_id === policyId);
}

export interface OutboxRow {
  type: string;
  alert_id: string;
  policy_id: string;
  alert: AlertJson;
}

export async function outboxOf(stores: Stores, policyId: string): Promise<OutboxRow[]> {
  return stores.postgres.query<OutboxRow>(
    'SELECT type, alert_id, policy_id, alert FROM alert_notifications WHERE policy_id = $1 ORDER BY created_at, notification_id',
    [policyId],
  );
}
