// Reading series (docs/fleets.md): an event name's groups by agent and declared keys, checked
// here (keys must be agent or declared, else 400 naming them), read in src/rollups/. The
// ranked window comparison (src/analytics/rankedComparison.ts) selects its groups the same way.
import { validationFailed, type ErrorDetail } from '../errors.js';
import { PERIOD_MS, type Period } from '../rollups/model.js';
import { readSeries, type SeriesGroup } from '../rollups/seriesRead.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Queryable } from '../stores/postgres.js';
import { eventNameProblems } from './operations.js';
import { findDimension } from './store.js';

/** Which of an event name's records a read takes, and how it groups them, as the client wrote it. */
export interface FleetSelectionQuery {
  readonly event: string;
  readonly agents: readonly string[];
  /** `key:value` each. */
  readonly filters: readonly string[];
  readonly groupBy: readonly string[];
}

export interface SeriesQuery extends FleetSelectionQuery {
  readonly period: Period;
  readonly from: number | null;
  readonly to: number | null;
  readonly limit: number;
}

/** A selection checked against the declared keys, as src/rollups/ reads it. */
export interface FleetSelection {
  /** LIKE patterns an agent must match one of. */
  readonly agentLikes: readonly string[];
  /** key → accepted values. */
  readonly filter: ReadonlyMap<string, readonly string[]>;
  readonly groupBy: readonly string[];
  /** The declaration's version when the read names a declared key; null: the event rollups. */
  readonly version: number | null;
}

/** The default span read back from `to` (or now): 60 minutes, 48 hours, 31 days. */
const DEFAULT_SPAN: Readonly<Record<Period, number>> = { minute: 60 * PERIOD_MS.minute, hour: 48 * PERIOD_MS.hour, day: 31 * PERIOD_MS.day };
/** At most this many agent patterns and filters in one read. */
export const MAX_SERIES_TERMS = 100;

/** An agent pattern as a LIKE pattern (as fleet policies take them): `*` any run, the rest itself. */
const likeOf = (pattern: string) =>
  pattern
    .replace(/\*+/g, '*')
    .split('*')
    .map((part) => part.replace(/[\\%_]/g, (c) => `\\${c}`))
    .join('%');

/**
 * The selection, checked: the event name, the counts of patterns and filters, each filter's
 * `key:value`, no key twice in group_by, then every key agent or declared (400 naming each
 * problem, with `problems` found by the caller beside them).
 */
export async function resolveSelection(
  postgres: Queryable,
  workspaceId: string,
  q: FleetSelectionQuery,
  problems: ErrorDetail[] = [],
): Promise<FleetSelection> {
  problems.push(...eventNameProblems(q.event).map((p) => ({ ...p, path: '/event' })));
  if (q.agents.length > MAX_SERIES_TERMS) problems.push({ path: '/agent', message: `must be given at most ${MAX_SERIES_TERMS} times` });
  if (q.filters.length > MAX_SERIES_TERMS) problems.push({ path: '/filter', message: `must be given at most ${MAX_SERIES_TERMS} times` });
  const filter = new Map<string, string[]>();
  for (const [i, text] of q.filters.entries()) {
    const colon = text.indexOf(':');
    if (colon <= 0) {
      problems.push({ path: `/filter/${i}`, message: 'must be key:value' });
      continue;
    }
    const key = text.slice(0, colon);
    filter.set(key, [...(filter.get(key) ?? []), text.slice(colon + 1)]);
  }
  if (new Set(q.groupBy).size !== q.groupBy.length) problems.push({ path: '/group_by', message: 'must not name a key twice' });
  if (problems.length > 0) throw validationFailed(problems);
  const dimension = await findDimension(postgres, workspaceId, q.event);
  const declared = new Set(dimension?.keys ?? []);
  const unknown = [
    ...[...filter.keys()]
      .filter((k) => k !== 'agent' && !declared.has(k))
      .map((k) => ({ path: '/filter', message: `${JSON.stringify(k)} is not a declared dimension of this event (nor agent)` })),
    ...q.groupBy
      .filter((k) => k !== 'agent' && !declared.has(k))
      .map((k) => ({ path: '/group_by', message: `${JSON.stringify(k)} is not a declared dimension of this event (nor agent)` })),
  ];
  if (unknown.length > 0) throw validationFailed(unknown);
  const namesKey = [...filter.keys(), ...q.groupBy].some((k) => k !== 'agent');
  return {
    agentLikes: (q.agents.length === 0 ? ['*'] : q.agents).map(likeOf),
    filter,
    groupBy: q.groupBy,
    version: namesKey ? (dimension?.version ?? null) : null,
  };
}

export async function seriesOf(
  stores: { postgres: Queryable; clickhouse: ClickHouseStore },
  workspaceId: string,
  q: SeriesQuery,
  now = Date.now(),
): Promise<{ series: SeriesGroup[]; truncated: boolean }> {
  const to = q.to ?? now;
  const from = q.from ?? to - DEFAULT_SPAN[q.period];
  const problems: ErrorDetail[] = from >= to ? [{ path: '/from', message: 'must be before to' }] : [];
  const selection = await resolveSelection(stores.postgres, workspaceId, q, problems);
  return readSeries(stores.clickhouse, { ...selection, workspaceId, event: q.event, period: q.period, from, to, limit: q.limit });
}
