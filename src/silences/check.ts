// Which notifications a silence covers, at the moment each was written (the transition that
// notifies, or the reminder due): read when the delivery worker dispatches them.
import type { Labels } from '../labels/labels.js';
import type { Queryable } from '../stores/postgres.js';
import { anySilenceCovers } from './coverage.js';
import { silencesOverlapping } from './store.js';

export interface NotificationToCheck {
  readonly notificationId: string;
  readonly workspaceId: string;
  /** The alert's policy_id, or its alert_source_id. */
  readonly policyId: string;
  /** The labels silences match on (src/matchers/alertLabels.ts). */
  readonly labels: Labels;
  readonly at: Date;
}

/** The ids of the notifications that a silence of their workspace covers. */
export async function silencedNotificationIds(db: Queryable, notifications: readonly NotificationToCheck[]): Promise<Set<string>> {
  if (notifications.length === 0) return new Set();
  const times = notifications.map((n) => n.at.getTime());
  const workspaces = [...new Set(notifications.map((n) => n.workspaceId))];
  const silences = await silencesOverlapping(db, workspaces, new Date(Math.min(...times)), new Date(Math.max(...times)));
  if (silences.length === 0) return new Set();
  return new Set(
    notifications
      .filter((n) =>
        anySilenceCovers(
          silences.filter((s) => s.workspace_id === n.workspaceId),
          { id: n.policyId, labels: n.labels },
          n.at.getTime(),
        ),
      )
      .map((n) => n.notificationId),
  );
}
