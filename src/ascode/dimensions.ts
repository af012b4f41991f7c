// Dimensions in an alerting-as-code document (docs/as-code.md, docs/fleets.md): `{event, keys}`,
// identified by the event name (no key of their own). Checked by the rules of
// PUT /v1.0/dimensions/:event, planned field by field, written in the apply's transaction;
// the backfill of each declaration created or changed starts only once that transaction has
// committed (a failed apply starts none).
import { conflict, validationFailed, type ErrorDetail } from '../errors.js';
import type { Dimension } from '../dimensions/model.js';
import { eventNameProblems, keysProblems, type DimensionsDeps } from '../dimensions/operations.js';
import { countDimensions, deleteDimensionRow, upsertDimension } from '../dimensions/store.js';
import type { Queryable } from '../stores/postgres.js';

/** A declaration as a document holds it. */
export interface DimensionDoc {
  readonly event: string;
  readonly keys: readonly string[];
}

export interface DimensionChange {
  readonly kind: 'dimensions';
  readonly key: string;
  readonly action: 'create' | 'update' | 'delete';
  readonly fields: readonly string[];
}

/** The declarations of a workspace as a document holds them, by event name. */
export function exportDimensions(stored: readonly Dimension[]): DimensionDoc[] {
  return stored.map((d) => ({ event: d.event, keys: [...d.keys] })).sort((a, b) => (a.event < b.event ? -1 : a.event > b.event ? 1 : 0));
}

/** The document's declarations by event name, with where each is; 400 for an invalid one or an event name given twice. */
export function wantedDimensions(list: readonly DimensionDoc[] | undefined): Map<string, { object: DimensionDoc; at: string }> {
  const problems: ErrorDetail[] = [];
  const out = new Map<string, { object: DimensionDoc; at: string }>();
  (list ?? []).forEach((object, i) => {
    const at = `/dimensions/${i}`;
    // The rules of PUT /v1.0/dimensions/:event, their paths (/event, /keys/N) under the object's.
    const own = [...eventNameProblems(object.event), ...keysProblems(object.keys)];
    problems.push(...own.map((p) => ({ path: at + p.path, message: p.message })));
    const first = out.get(object.event);
    if (first) problems.push({ path: `${at}/event`, message: `is the event name of ${first.at} too; an event name is declared once` });
    else out.set(object.event, { object, at });
  });
  if (problems.length > 0) throw validationFailed(problems, `${problems[0]!.path}: the document's dimensions are invalid; see details.`);
  return out;
}

/** The changes to the declarations (only `keys` can change), and those left unmanaged (without prune). */
export function planDimensions(
  stored: readonly Dimension[],
  wanted: ReadonlyMap<string, { object: DimensionDoc }>,
  prune: boolean,
): { changes: DimensionChange[]; unmanaged: { kind: 'dimensions'; key: string }[] } {
  const changes: DimensionChange[] = [];
  const unmanaged: { kind: 'dimensions'; key: string }[] = [];
  const byEvent = new Map(stored.map((d) => [d.event, d]));
  for (const [event, { object }] of wanted) {
    const now = byEvent.get(event);
    if (!now) changes.push({ kind: 'dimensions', key: event, action: 'create', fields: ['keys'] });
    else if (now.keys.length !== object.keys.length || now.keys.some((k, i) => k !== object.keys[i]))
      changes.push({ kind: 'dimensions', key: event, action: 'update', fields: ['keys'] });
  }
  for (const d of exportDimensions(stored)) {
    if (wanted.has(d.event)) continue;
    if (prune) changes.push({ kind: 'dimensions', key: d.event, action: 'delete', fields: [] });
    else unmanaged.push({ kind: 'dimensions', key: d.event });
  }
  return { changes, unmanaged };
}

/** What an apply's dimension changes leave to do once its transaction has committed. */
export interface DimensionsWritten {
  readonly declared: readonly Dimension[];
  readonly deleted: readonly string[];
}

/** Writes the changes inside the apply's transaction (deletes first, then the workspace's limit checked). */
export async function writeDimensions(
  tx: Queryable,
  deps: DimensionsDeps,
  workspaceId: string,
  changes: readonly DimensionChange[],
  wanted: ReadonlyMap<string, { object: DimensionDoc }>,
  tick: () => void,
): Promise<DimensionsWritten> {
  const deleted: string[] = [];
  for (const c of changes.filter((x) => x.action === 'delete')) {
    await deleteDimensionRow(tx, workspaceId, c.key);
    deleted.push(c.key);
    tick();
  }
  const declared: Dimension[] = [];
  const now = (deps.now ?? Date.now)();
  const range = deps.backfill === undefined ? null : { from: new Date(now - deps.backfill.reachMs), to: new Date(now) };
  for (const c of changes.filter((x) => x.action !== 'delete')) {
    declared.push(await upsertDimension(tx, workspaceId, c.key, wanted.get(c.key)!.object.keys, range));
    tick();
  }
  if (declared.length > 0 && (await countDimensions(tx, workspaceId)) > deps.maxPerWorkspace) {
    throw conflict('dimension_limit_reached', `/dimensions: the workspace may declare dimensions of at most ${deps.maxPerWorkspace} event names.`);
  }
  return { declared, deleted };
}

/** After the commit: the writers read the declarations again, each declaration's backfill starts, a removed one's series go. */
export async function afterDimensionsCommitted(deps: DimensionsDeps, workspaceId: string, written: DimensionsWritten): Promise<void> {
  if (written.declared.length === 0 && written.deleted.length === 0) return;
  deps.declared?.();
  for (const dimension of written.declared) deps.backfill?.start(dimension);
  for (const event of written.deleted) {
    deps.forgotten?.(workspaceId, event);
    await deps.backfill?.forget(workspaceId, event);
  }
}
