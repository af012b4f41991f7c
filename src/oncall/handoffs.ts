// Handoff notices (docs/oncall.md): with notify_handoffs, the person whose shift starts gets
// a schedule.handoff notification through their destinations, written into the outbox
// (src/notifications/) so that delivery sends and retries it as any other.
//
// Exactly once per shift start, across restarts and several workers: one cursor row says up
// to when shift starts have been looked at. A cycle locks it (SKIP LOCKED: another worker
// skips its turn), finds the shift starts between it and now, records each handoff (its
// unique key refuses a second notice of the same start) with its notice, and moves the
// cursor, all in one transaction: a crash before the commit writes none of it, and the next
// cycle covers the same stretch again. The cursor is written only when the cycle found shift
// starts or it lags by CURSOR_STEP_MS: a cycle that found none leaves it, and the next one
// looks at the same stretch and a little more (a worker polling every few seconds would
// otherwise rewrite the row at every poll).
import { newId } from '../ids.js';
import { insertHandoffNotices } from '../notifications/outbox.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { shiftStartsIn } from './onCall.js';
import { findPeopleOfWorkspaces } from './peopleStore.js';
import { findSchedulesByIds } from './scheduleStore.js';

/** A start older than this when first looked at (the workers were all down) is not announced late. */
export const HANDOFF_LATE_LIMIT_MS = 60 * 60_000;

/** The cursor moves past a stretch without shift starts once it lags by this much. */
export const CURSOR_STEP_MS = 60_000;

export interface HandoffCycle {
  /** false: another worker held the cursor. */
  readonly ran: boolean;
  readonly noticed: number;
}

/** Locks the cursor; null when another worker holds it. The first cycle ever starts it at `now` (no notices of the past). */
async function lockCursor(tx: Queryable, now: Date): Promise<Date | null> {
  await tx.query('INSERT INTO handoff_cursor (id, covered_to) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [now]);
  const rows = await tx.query<{ covered_to: Date }>('SELECT covered_to FROM handoff_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED');
  return rows[0]?.covered_to ?? null;
}

/** Records the handoffs not recorded yet; returns the ids of those it recorded, by "schedule|start|person". */
async function recordHandoffs(
  tx: Queryable,
  handoffs: readonly { workspace_id: string; schedule_id: string; person_id: string; starts_at: number }[],
): Promise<Map<string, string>> {
  if (handoffs.length === 0) return new Map();
  const rows = await tx.query<{ handoff_id: string; schedule_id: string; person_id: string; starts_ms: number }>(
    `INSERT INTO schedule_handoffs (handoff_id, workspace_id, schedule_id, person_id, starts_at)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::timestamptz[])
     ON CONFLICT (schedule_id, starts_at, person_id) DO NOTHING
     RETURNING handoff_id, schedule_id, person_id, (extract(epoch FROM starts_at) * 1000)::float8 AS starts_ms`,
    [
      handoffs.map(() => newId()),
      handoffs.map((h) => h.workspace_id),
      handoffs.map((h) => h.schedule_id),
      handoffs.map((h) => h.person_id),
      handoffs.map((h) => new Date(h.starts_at)),
    ],
  );
  return new Map(rows.map((r) => [`${r.schedule_id}|${r.starts_ms}|${r.person_id}`, r.handoff_id]));
}

/** One cycle at `now`: the notices of every shift start since the cursor, then the cursor moved to `now`. */
export async function runDueHandoffs(postgres: PostgresStore, now: Date): Promise<HandoffCycle> {
  return postgres.transaction(async (tx) => {
    const coveredTo = await lockCursor(tx, now);
    if (coveredTo === null) return { ran: false, noticed: 0 };
    const from = Math.max(coveredTo.getTime(), now.getTime() - HANDOFF_LATE_LIMIT_MS);
    if (from >= now.getTime()) return { ran: true, noticed: 0 };
    const starts = await shiftStartsIn(tx, { from, to: now.getTime() });
    const recorded = await recordHandoffs(tx, starts);
    const fresh = starts.flatMap((s) => {
      const id = recorded.get(`${s.schedule_id}|${s.starts_at}|${s.person_id}`);
      return id === undefined ? [] : [{ ...s, handoff_id: id }];
    });
    const schedules = new Map((await findSchedulesByIds(tx, [...new Set(fresh.map((s) => s.schedule_id))])).map((s) => [s.schedule_id, s]));
    const people = new Map((await findPeopleOfWorkspaces(tx, [...new Set(fresh.map((s) => s.person_id))])).map((p) => [p.person_id, p]));
    const notices = fresh.flatMap((s) => {
      const schedule = schedules.get(s.schedule_id);
      const person = people.get(s.person_id);
      if (!schedule || !person) return [];
      return [
        {
          workspaceId: s.workspace_id,
          destinationIds: person.destination_ids,
          handoff: {
            handoff_id: s.handoff_id,
            schedule_id: s.schedule_id,
            schedule_name: schedule.name,
            timezone: schedule.timezone,
            person_id: person.person_id,
            person_name: person.name,
            layer: s.layer,
            starts_at: new Date(s.starts_at).toISOString(),
            ends_at: new Date(s.ends_at).toISOString(),
          },
        },
      ];
    });
    await insertHandoffNotices(tx, notices, now);
    if (starts.length > 0 || now.getTime() - coveredTo.getTime() >= CURSOR_STEP_MS) {
      await tx.query('UPDATE handoff_cursor SET covered_to = $1 WHERE id = 1', [now]);
    }
    return { ran: true, noticed: notices.length };
  });
}
