// What other domains may name of on-call: people and schedules by id (an escalation step
// pages them). The ids that are the workspace's are locked (shared) until the transaction
// ends, so a delete running beside it waits, then sees the reference and refuses (409).
import type { Queryable } from '../stores/postgres.js';
import { unknownPeople } from './peopleStore.js';
import { unknownSchedules } from './scheduleStore.js';

export interface UnknownReferences {
  readonly people: ReadonlySet<string>;
  readonly schedules: ReadonlySet<string>;
}

/** The ids (lower-case) among those given that are not people, or not schedules, of the workspace. */
export async function unknownReferences(
  db: Queryable,
  workspaceId: string,
  ids: { readonly personIds: readonly string[]; readonly scheduleIds: readonly string[] },
): Promise<UnknownReferences> {
  return {
    people: ids.personIds.length === 0 ? new Set() : await unknownPeople(db, workspaceId, ids.personIds),
    schedules: await unknownSchedules(db, workspaceId, ids.scheduleIds),
  };
}

/** Who or what names a person or a schedule elsewhere (escalation policies, wired by the composition root): their ids. */
export type ReferencesTo = (db: Queryable, workspaceId: string, target: { readonly kind: 'person' | 'schedule'; readonly id: string }) => Promise<string[]>;
