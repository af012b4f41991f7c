// What can be done with dimensions, by an HTTP route or a worker alike. Every function takes
// the workspace: another workspace's declaration is simply not found, and an event name is
// only ever one workspace's (the same name in two workspaces is two declarations).
import { conflict, notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { PostgresStore } from '../stores/postgres.js';
import { type Dimension, keyProblem, MAX_DIMENSION_KEYS, MAX_EVENT_NAME_LENGTH, SERIES_WINDOW_MS } from './model.js';
import { countDimensions, deleteDimensionRow, findDimension, listDimensionRows, upsertDimension } from './store.js';

/** Rebuilds a declaration's series rollups from the raw logs kept (backfill.ts). */
export interface SeriesBackfill {
  /** How far back raw logs are kept: a backfill covers [now − this, its start). */
  readonly reachMs: number;
  /** Starts the declaration's backfill in the background. */
  start(dimension: Dimension): void;
  /**
   * Removes every series rollup row of the event name (a DELETE), after the declaration's
   * removal is committed: it never throws (a failure is logged; the rows left are never read,
   * and the next declaration's backfill removes them).
   */
  forget(workspaceId: string, event: string): Promise<void>;
}

export interface DimensionsDeps {
  readonly postgres: PostgresStore;
  /** Event names one workspace may declare dimensions of. */
  readonly maxPerWorkspace: number;
  /** Absent where no ClickHouse is at hand: declarations then start with nothing to backfill. */
  readonly backfill?: SeriesBackfill;
  /** Told after each declaration is stored: this process's writer reads the declarations again before its next block. */
  readonly declared?: () => void;
  /** Told after a declaration is removed: OTLP and remote-write may declare the name again on its next points. */
  readonly forgotten?: (workspaceId: string, event: string) => void;
  readonly now?: () => number;
}

/** The resource as the API shows it. */
export interface DimensionView {
  readonly dimension: Dimension;
  readonly overflowing: boolean;
}

const viewOf = (dimension: Dimension, now: number): DimensionView => ({
  dimension,
  overflowing: dimension.overflowed_at !== null && now - dimension.overflowed_at.getTime() < SERIES_WINDOW_MS,
});

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The problems of an event name as a path segment gives it. */
export function eventNameProblems(event: string): ErrorDetail[] {
  if (event.length === 0 || event.trim() !== event) return [{ path: '/event', message: 'must be a non-empty event name without surrounding spaces' }];
  if (event.length > MAX_EVENT_NAME_LENGTH) return [{ path: '/event', message: `must be at most ${MAX_EVENT_NAME_LENGTH} characters` }];
  if (event.includes('\u0000') || LONE_SURROGATE.test(event)) return [{ path: '/event', message: 'must be well-formed Unicode without NUL characters' }];
  return [];
}

/** The problems of a list of keys: count, names, duplicates. */
export function keysProblems(keys: readonly string[]): ErrorDetail[] {
  if (keys.length > MAX_DIMENSION_KEYS) return [{ path: '/keys', message: `must hold at most ${MAX_DIMENSION_KEYS} keys` }];
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const [i, key] of keys.entries()) {
    const problem = keyProblem(key);
    if (problem !== null) problems.push({ path: `/keys/${i}`, message: problem });
    else if (seen.has(key)) problems.push({ path: `/keys/${i}`, message: 'names a key given before' });
    seen.add(key);
  }
  return problems;
}

function requireEventName(event: string): void {
  const problems = eventNameProblems(event);
  if (problems.length > 0) throw validationFailed(problems);
}

export async function getDimension(deps: DimensionsDeps, workspaceId: string, event: string): Promise<DimensionView> {
  requireEventName(event);
  const found = await findDimension(deps.postgres, workspaceId, event);
  if (found === null) throw notFound('dimensions of this event name');
  return viewOf(found, (deps.now ?? Date.now)());
}

export async function listDimensions(deps: DimensionsDeps, workspaceId: string, page: { limit: number | null; offset: number }): Promise<DimensionView[]> {
  const now = (deps.now ?? Date.now)();
  return (await listDimensionRows(deps.postgres, workspaceId, page)).map((d) => viewOf(d, now));
}

/**
 * Declares the event name's keys (replacing any before). Records acknowledged after the
 * answer are broken down by them as they land; the raw logs kept are broken down by the
 * backfill, in the background.
 */
export async function putDimension(deps: DimensionsDeps, workspaceId: string, event: string, keys: readonly string[]): Promise<DimensionView> {
  const problems = [...eventNameProblems(event), ...keysProblems(keys)];
  if (problems.length > 0) throw validationFailed(problems);
  const now = (deps.now ?? Date.now)();
  const backfill = deps.backfill;
  const dimension = await deps.postgres.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM workspaces WHERE user_id = $1 FOR UPDATE', [workspaceId]);
    if ((await findDimension(tx, workspaceId, event)) === null && (await countDimensions(tx, workspaceId)) >= deps.maxPerWorkspace) {
      throw conflict('dimension_limit_reached', `The workspace declares dimensions of ${deps.maxPerWorkspace} event names already.`);
    }
    const range = backfill === undefined ? null : { from: new Date(now - backfill.reachMs), to: new Date(now) };
    return upsertDimension(tx, workspaceId, event, keys, range);
  });
  deps.declared?.();
  backfill?.start(dimension);
  return viewOf(dimension, now);
}

/** Removes the declaration; its series rollups go with it. */
export async function deleteDimension(deps: DimensionsDeps, workspaceId: string, event: string): Promise<void> {
  requireEventName(event);
  if (!(await deleteDimensionRow(deps.postgres, workspaceId, event))) throw notFound('dimensions of this event name');
  deps.declared?.();
  deps.forgotten?.(workspaceId, event);
  await deps.backfill?.forget(workspaceId, event);
}
