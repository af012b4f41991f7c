// What the evaluator needs to know of a fleet policy (docs/api.md, Fleet policies): its rule,
// what it watches, its progress, and the state of its groups that is not the fresh one
// (policy_groups), with which of its groups have an open alert, read together.
import { OPEN_STATUSES } from '../../alerts/model.js';
import { labelsFingerprint, type Labels } from '../../labels/labels.js';
import { AGENT_KEY, type Policy } from '../../policies/model.js';
import { seriesGroupValue, seriesGroupValues } from '../../rollups/groupStats.js';
import type { Queryable } from '../../stores/postgres.js';
import { FRESH_RUN, type RunState } from '../alertChanges.js';
import { runStateOf, type RunStateColumns } from '../progress.js';
import type { TargetPolicy } from '../targets.js';

/** A group's state as kept (policy_groups), by group key (its labels' fingerprint). */
export interface GroupState {
  readonly key: string;
  readonly labels: Labels;
  readonly eventId: string | null;
  readonly state: RunState;
}

export type FleetTarget = TargetPolicy &
  Pick<Policy, 'agents' | 'filter' | 'group_by'> & {
    readonly event: string;
    readonly timezone: string;
    /** The version of the event name's declared dimensions (null: none), whose series rollups a group_by or filter on declared keys reads. */
    readonly dims_version: number | null;
    /** The policy row's xmin as read: its progress is written without a lock only if it is still this. */
    readonly rowVersion: string;
    /** Groups whose state is not fresh. */
    readonly groups: ReadonlyMap<string, GroupState>;
    /** The groups with an open alert (triggered or acknowledged), by key: their labels and definition as the alert has them. */
    readonly openGroups: ReadonlyMap<string, Pick<GroupState, 'labels' | 'eventId'>>;
  };

const SELECT_FLEET = `
  SELECT p.policy_id, p.workspace_id, p.title, p.channel, p.severity, p.period, p.aggregate, p.condition, p.threshold,
         p.pending_buckets, p.recovery_threshold, p.no_data, p.compare_to, p.min_count, p.updated_at, p.evaluated_until,
         p.event, p.agents, p.filter, p.group_by, p.timezone, p.xmin::text AS row_version,
         (SELECT d.version::int FROM dimensions AS d WHERE d.workspace_id = p.workspace_id AND d.event = p.event) AS dims_version
  FROM policies AS p`;

type FleetRow = Omit<FleetTarget, 'groups' | 'openGroups' | 'rowVersion'> & { row_version: string };
type GroupRow = RunStateColumns & { policy_id: string; group_key: string; labels: Labels; event_id: string | null };

/** Each policy's kept groups and its open alerts' groups, two reads for them all. */
async function withGroups(db: Queryable, rows: readonly FleetRow[]): Promise<FleetTarget[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.policy_id);
  const groups = await db.query<GroupRow>(
    `SELECT policy_id, group_key, labels, event_id, breach_run, breach_started_at, breach_peak, silent_since, alerted_until
     FROM policy_groups WHERE policy_id = ANY($1::uuid[])`,
    [ids],
  );
  const open = await db.query<{ policy_id: string; labels: Labels; event_id: string | null }>(
    `SELECT policy_id, labels, event_id FROM alerts WHERE policy_id = ANY($1::uuid[]) AND status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})`,
    [ids],
  );
  const byPolicy = new Map(ids.map((id) => [id, { groups: new Map<string, GroupState>(), open: new Map<string, Pick<GroupState, 'labels' | 'eventId'>>() }]));
  for (const g of groups) {
    byPolicy.get(g.policy_id)!.groups.set(g.group_key, { key: g.group_key, labels: g.labels, eventId: g.event_id, state: runStateOf(g) });
  }
  for (const a of open) byPolicy.get(a.policy_id)?.open.set(labelsFingerprint(a.labels), { labels: a.labels, eventId: a.event_id });
  return rows.map(({ row_version, ...row }) => {
    const kept = byPolicy.get(row.policy_id)!;
    return { ...row, rowVersion: row_version, groups: kept.groups, openGroups: kept.open };
  });
}

/** Every enabled fleet policy, or those watching the event names of these event definitions. */
export async function loadEnabledFleetTargets(db: Queryable, eventIds?: readonly string[]): Promise<FleetTarget[]> {
  const rows =
    eventIds === undefined
      ? await db.query<FleetRow>(`${SELECT_FLEET} WHERE p.enabled AND p.event IS NOT NULL`)
      : await db.query<FleetRow>(
          `${SELECT_FLEET} WHERE p.enabled AND p.event IS NOT NULL
             AND EXISTS (SELECT 1 FROM event_definitions AS e WHERE e.event_id = ANY($1::uuid[]) AND e.user_id = p.workspace_id AND e.event = p.event)`,
          [eventIds],
        );
  return withGroups(db, rows);
}

/** One fleet policy of the workspace, enabled or not; null when there is none (or it watches one definition). */
export async function loadFleetTarget(db: Queryable, workspaceId: string, policyId: string): Promise<FleetTarget | null> {
  const rows = await db.query<FleetRow>(`${SELECT_FLEET} WHERE p.workspace_id = $1 AND p.policy_id = $2 AND p.event IS NOT NULL`, [workspaceId, policyId]);
  return rows[0] ? (await withGroups(db, rows))[0]! : null;
}

/** These fleet policies, where they are still enabled (their groups re-read). */
export async function loadEnabledFleetTargetsById(db: Queryable, policyIds: readonly string[]): Promise<FleetTarget[]> {
  if (policyIds.length === 0) return [];
  return withGroups(db, await db.query<FleetRow>(`${SELECT_FLEET} WHERE p.enabled AND p.event IS NOT NULL AND p.policy_id = ANY($1::uuid[])`, [policyIds]));
}

/**
 * The labels of a group of the policy, from its value in the read (groupStats.ts): its agent
 * when grouped by agent alone, none for the fleet as one group, else each group_by key's value.
 */
export function groupLabels(target: Pick<FleetTarget, 'group_by' | 'filter'>, group: string): Labels {
  if (!readsSeries(target)) return target.group_by.includes('agent') ? { agent: group } : {};
  const values = seriesGroupValues(target.group_by, group);
  return Object.fromEntries(target.group_by.map((key, i) => [key, values[i] ?? '']));
}

/** groupLabels' inverse: the value a group of these labels stands under in the read. */
export function groupValue(target: Pick<FleetTarget, 'group_by' | 'filter'>, labels: Labels): string {
  if (!readsSeries(target)) return target.group_by.includes('agent') ? (labels.agent ?? '') : '';
  return seriesGroupValue(
    target.group_by,
    target.group_by.map((key) => labels[key] ?? ''),
  );
}

/** Whether the policy groups or filters by a declared key (beside agent): it reads the series rollups. */
export const readsSeries = (target: Pick<FleetTarget, 'group_by' | 'filter'>): boolean =>
  target.group_by.some((k) => k !== AGENT_KEY) || Object.keys(target.filter).some((k) => k !== AGENT_KEY);

/** A group not kept: the fresh state. */
export const freshGroup = (labels: Labels, eventId: string | null): GroupState => ({ key: labelsFingerprint(labels), labels, eventId, state: FRESH_RUN });
