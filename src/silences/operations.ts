// What can be done with silences, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's silence is simply not found, and a silence may name
// only the workspace's own policies.
import { conflict, notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { TimezoneCatalog } from '../events/timezones.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { matchesEmpty } from '../matchers/match.js';
import { SILENCE_MATCHERS, type Silence, type SilenceFields, type SilencePage } from './model.js';
import {
  deleteSilenceRow,
  expireSilenceRow,
  findSilence,
  insertSilence,
  listSilenceRows,
  lockAndCountSilences,
  unknownPolicyIds,
  updateSilenceRow,
} from './store.js';

export interface SilencesDeps {
  readonly postgres: PostgresStore;
  /** The IANA names a recurrence may use (the same ones events may). */
  readonly timezones: Pick<TimezoneCatalog, 'has'>;
  /** Silences one workspace may keep; a creation past it is refused. */
  readonly maxPerWorkspace: number;
  /** The clock (tests); defaults to Date.now. */
  readonly now?: () => number;
}

/** A create request: ends_at required, the rest defaulted (starts_at now, every policy, no matchers, no comment, no recurrence). */
export type NewSilence = Partial<SilenceFields> & Pick<SilenceFields, 'ends_at'>;

// Instants a silence may name: far enough apart to mean "for good", within what every store keeps.
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Every problem of a silence's fields, each with its JSON path. */
function problemsOf(fields: SilenceFields, timezones: SilencesDeps['timezones']): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const name of ['starts_at', 'ends_at'] as const) {
    const at = fields[name].getTime();
    if (!(at >= EARLIEST && at <= LATEST)) problems.push({ path: `/${name}`, message: 'must lie between 2000-01-01 and 9999-12-31' });
  }
  if (fields.ends_at.getTime() <= fields.starts_at.getTime()) problems.push({ path: '/ends_at', message: 'must be after starts_at' });
  if (fields.policy_ids !== null && fields.policy_ids.length === 0) {
    problems.push({ path: '/policy_ids', message: 'must not be empty (null silences every policy of the workspace)' });
  }
  if (fields.matchers !== null) {
    const { min, max } = SILENCE_MATCHERS;
    if (fields.matchers.length < min || fields.matchers.length > max) {
      problems.push({ path: '/matchers', message: `must hold ${min} to ${max} matchers (it holds ${fields.matchers.length}); null for none` });
    } else if (fields.matchers.every(matchesEmpty)) {
      // As Alertmanager: a silence whose every matcher matches a missing label would silence nearly everything.
      problems.push({ path: '/matchers', message: 'at least one matcher must not match the empty string (e.g. alertname="…")' });
    }
  }
  const recurrence = fields.recurrence;
  if (recurrence !== null) {
    if (!timezones.has(recurrence.timezone)) {
      problems.push({ path: '/recurrence/timezone', message: 'must be an IANA timezone name, e.g. Europe/Berlin (exact spelling)' });
    }
    if (recurrence.start === recurrence.end) {
      problems.push({ path: '/recurrence/end', message: 'must differ from start (a whole day is 00:00 to 24:00)' });
    }
  }
  return problems;
}

/** 400 for each id that is neither a policy nor an alert source of the workspace, with its index. */
async function requireOwnPolicies(db: Queryable, workspaceId: string, policyIds: readonly string[]): Promise<void> {
  const unknown = new Set(await unknownPolicyIds(db, workspaceId, policyIds));
  if (unknown.size === 0) return;
  throw validationFailed(
    policyIds.flatMap((id, i) => (unknown.has(id) ? [{ path: `/policy_ids/${i}`, message: 'is not a policy or an alert source of this workspace' }] : [])),
  );
}

/** Ids lower-cased and each named once, in the order given. */
const normalizedIds = (ids: readonly string[] | null): string[] | null => (ids === null ? null : [...new Set(ids.map((id) => id.toLowerCase()))]);

export async function createSilence(deps: SilencesDeps, workspaceId: string, input: NewSilence): Promise<Silence> {
  const now = deps.now?.() ?? Date.now();
  const fields: SilenceFields = {
    policy_ids: normalizedIds(input.policy_ids ?? null),
    matchers: input.matchers ?? null,
    created_by: input.created_by ?? '',
    starts_at: input.starts_at ?? new Date(now),
    ends_at: input.ends_at,
    comment: input.comment ?? '',
    recurrence: input.recurrence ?? null,
  };
  const problems = problemsOf(fields, deps.timezones);
  if (fields.ends_at.getTime() <= now) problems.push({ path: '/ends_at', message: 'must be in the future' });
  if (problems.length > 0) throw validationFailed(problems);
  return deps.postgres.transaction(async (tx) => {
    if (fields.policy_ids !== null) await requireOwnPolicies(tx, workspaceId, fields.policy_ids);
    if ((await lockAndCountSilences(tx, workspaceId)) >= deps.maxPerWorkspace) {
      throw conflict('silence_limit_reached', `The workspace has reached its limit of ${deps.maxPerWorkspace} silences; delete silences that have ended.`);
    }
    return insertSilence(tx, workspaceId, fields);
  });
}

export async function getSilence(db: Queryable, workspaceId: string, silenceId: string): Promise<Silence> {
  const silence = await findSilence(db, workspaceId, silenceId);
  if (!silence) throw notFound('silence');
  return silence;
}

/** Newest first: without a limit, every silence of the workspace (from the offset on). */
export function listSilences(db: Queryable, workspaceId: string, page: SilencePage): Promise<Silence[]> {
  return listSilenceRows(db, workspaceId, page);
}

/** Applies any subset of the fields, checked together with those it leaves unchanged. Ending a silence early is allowed. */
export async function updateSilence(deps: SilencesDeps, workspaceId: string, silenceId: string, changes: Partial<SilenceFields>): Promise<Silence> {
  return deps.postgres.transaction(async (tx) => {
    const current = await findSilence(tx, workspaceId, silenceId, true);
    if (!current) throw notFound('silence');
    const fields: SilenceFields = {
      policy_ids: changes.policy_ids === undefined ? current.policy_ids : normalizedIds(changes.policy_ids),
      matchers: changes.matchers === undefined ? current.matchers : changes.matchers,
      created_by: changes.created_by ?? current.created_by,
      starts_at: changes.starts_at ?? current.starts_at,
      ends_at: changes.ends_at ?? current.ends_at,
      comment: changes.comment ?? current.comment,
      recurrence: changes.recurrence === undefined ? current.recurrence : changes.recurrence,
    };
    const problems = problemsOf(fields, deps.timezones);
    if (problems.length > 0) throw validationFailed(problems);
    if (changes.policy_ids !== undefined && fields.policy_ids !== null) await requireOwnPolicies(tx, workspaceId, fields.policy_ids);
    return updateSilenceRow(tx, workspaceId, silenceId, fields);
  });
}

/**
 * Expires the silence (Alertmanager's DELETE …/silence/{id}): it ends now and stays, expired;
 * notifications it held go out at the next release (src/silences/release.ts).
 */
export async function expireSilence(db: Queryable, workspaceId: string, silenceId: string, now: Date): Promise<Silence> {
  const silence = await expireSilenceRow(db, workspaceId, silenceId, now);
  if (!silence) throw notFound('silence');
  return silence;
}

/** Deletes the silence, which ends it: notifications it held go out at the next release (src/silences/release.ts). */
export async function deleteSilence(db: Queryable, workspaceId: string, silenceId: string): Promise<void> {
  if (!(await deleteSilenceRow(db, workspaceId, silenceId))) throw notFound('silence');
}
