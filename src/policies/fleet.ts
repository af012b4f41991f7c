// What a fleet policy watches (docs/api.md, Fleet policies): a records' event name across its
// agents, narrowed by agent patterns and a filter, told apart into groups by `group_by`. The
// checks here look at several fields together, so a PUT is checked on the policy it leaves.
import { pointerSegment, type ErrorDetail } from '../errors.js';
import type { TimezoneCatalog } from '../events/timezones.js';
import { findDimension } from '../dimensions/store.js';
import type { Queryable } from '../stores/postgres.js';
import { AGENT_KEY, POLICY_DEFAULTS, type GroupFilter, type PolicyFields } from './model.js';

export type SubjectFields = Pick<PolicyFields, 'event_id' | 'event' | 'agents' | 'filter' | 'group_by' | 'timezone'>;

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Exactly one of event_id and event; the fleet fields only with event; a known timezone. */
export function subjectProblems(s: SubjectFields, timezones: TimezoneCatalog): ErrorDetail[] {
  if (s.event_id === null && s.event === null) return [{ path: '/event_id', message: 'is required (or event, for a fleet policy)' }];
  if (s.event_id !== null && s.event !== null)
    return [{ path: '/event', message: 'must not be given with event_id: a policy watches one event definition or one event name' }];
  const problems: ErrorDetail[] = [];
  if (s.event_id !== null) {
    // A policy on one definition has the fleet fields' defaults (a client may send them back as read).
    if (!sameList(s.agents, POLICY_DEFAULTS.agents)) problems.push({ path: '/agents', message: 'applies only with event (a fleet policy)' });
    if (Object.keys(s.filter).length > 0) problems.push({ path: '/filter', message: 'applies only with event (a fleet policy)' });
    if (s.group_by.length > 0) problems.push({ path: '/group_by', message: 'applies only with event (a fleet policy)' });
    if (s.timezone !== null)
      problems.push({ path: '/timezone', message: "applies only with event (a policy on one definition follows the definition's timezone)" });
    return problems;
  }
  if (s.timezone === null || !timezones.has(s.timezone))
    problems.push({ path: '/timezone', message: 'must be an IANA timezone name such as Europe/Berlin or UTC' });
  if (new Set(s.group_by).size !== s.group_by.length) problems.push({ path: '/group_by', message: 'must not name a key twice' });
  return problems;
}

/**
 * The keys of the event name's declared dimensions (docs/fleets.md), which a fleet policy may
 * filter and group by beside `agent`; none when nothing is declared.
 */
export async function declaredDimensionKeys(db: Queryable, workspaceId: string, event: string): Promise<ReadonlySet<string>> {
  return new Set((await findDimension(db, workspaceId, event))?.keys ?? []);
}

/** 400 details for each key of `filter` and `group_by` that is neither `agent` nor declared. */
export function undeclaredKeyProblems(s: Pick<SubjectFields, 'filter' | 'group_by'>, declared: ReadonlySet<string>): ErrorDetail[] {
  const known = (key: string) => key === AGENT_KEY || declared.has(key);
  return [
    ...Object.keys(s.filter)
      .filter((key) => !known(key))
      .map((key) => ({ path: `/filter/${pointerSegment(key)}`, message: `${JSON.stringify(key)} is not a declared dimension of this event (nor agent)` })),
    ...s.group_by.flatMap((key, i) =>
      known(key) ? [] : [{ path: `/group_by/${i}`, message: `${JSON.stringify(key)} is not a declared dimension of this event (nor agent)` }],
    ),
  ];
}

/** A filter's accepted values of each key, as lists. */
export function filterValues(filter: GroupFilter): ReadonlyMap<string, readonly string[]> {
  return new Map(Object.entries(filter).map(([key, v]) => [key, typeof v === 'string' ? [v] : v]));
}

/**
 * An agent pattern as a LIKE pattern: `*` matches any run of characters, everything else
 * itself (LIKE's own `%`, `_` and `\` escaped). Runs of `*` are one `%`, so `***…` costs no
 * more than `*`.
 */
export function likePatternOf(pattern: string): string {
  return pattern
    .replace(/\*+/g, '*')
    .split('*')
    .map((part) => part.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join('%');
}
