// Whom a step pages, resolved at the moment it fires: its own destinations, the destinations
// of the people it names, and of whoever is on call then in each schedule it names
// (src/oncall/). Each person's destinations are read as they are now, so an override or a
// person's new address made before the step fires is what counts.
import type { OnCallPaged } from '../notifications/model.js';
import { whoIsOnCall } from '../oncall/onCall.js';
import { peopleAmong } from '../oncall/people.js';
import type { Queryable } from '../stores/postgres.js';
import type { EscalationStep } from './model.js';

export interface StepTargets {
  /** Every destination to send to, each once. */
  readonly destinationIds: readonly string[];
  /** Who was paged from which schedule (null: named by the step); person_id null: no one on call there. Absent for a step of destinations only. */
  readonly onCall?: readonly OnCallPaged[];
}

export async function resolveStepTargets(db: Queryable, workspaceId: string, step: EscalationStep, at: Date): Promise<StepTargets> {
  if (step.schedule_ids.length === 0 && step.person_ids.length === 0) return { destinationIds: step.destination_ids };
  const onCall = await whoIsOnCall(db, workspaceId, step.schedule_ids, at);
  const named = await peopleAmong(db, workspaceId, step.person_ids);
  const destinations = new Set(step.destination_ids);
  const paged: OnCallPaged[] = [];
  // In the step's order: its schedules (a schedule deleted since is no one on call), then its people.
  for (const scheduleId of step.schedule_ids) {
    const person = onCall.get(scheduleId)?.person ?? null;
    paged.push({ schedule_id: scheduleId, person_id: person?.person_id ?? null });
    for (const d of person?.destination_ids ?? []) destinations.add(d);
  }
  const byId = new Map(named.map((p) => [p.person_id, p]));
  for (const personId of step.person_ids) {
    const person = byId.get(personId);
    if (!person) continue;
    paged.push({ schedule_id: null, person_id: person.person_id });
    for (const d of person.destination_ids) destinations.add(d);
  }
  return { destinationIds: [...destinations], onCall: paged };
}
