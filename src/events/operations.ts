// What can be done with event definitions, by an HTTP route or a worker alike: create, read
// and edit them, read an event's rollups, and share them through a link (a public event read
// with its share token, and the token's rotation). A timezone change re-buckets the event's day
// rollup in ClickHouse between two ingest inserts, then updates Postgres and the directory.
import { invalid, notFound, validationFailed } from '../errors.js';
import type { Page, PageOrAll } from '../page.js';
import { readRollupBuckets, type BucketRange } from '../rollups/bucketRead.js';
import { rebucketDayRollups } from '../rollups/dayRebuild.js';
import type { Period, RollupBucket } from '../rollups/model.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import type { Queryable } from '../stores/postgres.js';
import { DEFAULT_AGENT, DefinitionLimitError, type EventDefinition } from './model.js';
import { linkTokenMatches } from '../linkTokens.js';
import {
  findSharedEventDefinition,
  getEventDefinition,
  insertEventDefinition,
  listEventDefinitionRows,
  writeEventDefinitionChanges,
  writeNewShareToken,
} from './store.js';
import type { EventDirectory } from './eventDirectory.js';
import type { TimezoneCatalog } from './timezones.js';

/** Holds ingest inserts back while some work runs (LogIngestor.runExclusive). */
export interface InsertPause {
  runExclusive<R>(work: () => Promise<R>): Promise<R>;
}

export interface EventsDeps {
  readonly postgres: Queryable;
  readonly clickhouse: ClickHouseStore;
  readonly directory: EventDirectory;
  readonly timezones: TimezoneCatalog;
  /** The ingest pipeline of this process; null where this process does not ingest. */
  readonly inserts: InsertPause | null;
}

/** The fields a client edits; on create, absent ones take their defaults, on update they keep their value. */
export interface EventDefinitionEdit {
  /** Blank or null: the default agent. */
  readonly agent?: string | null;
  readonly title?: string | null;
  readonly description?: string;
  readonly unit?: string;
  /** An IANA name both ClickHouse and Intl know (TimezoneCatalog). */
  readonly timezone?: string;
  readonly public?: boolean;
  /** On update, only the current name: an event is never renamed. */
  readonly event?: string;
}

const agentOrDefault = (agent: string | null | undefined) => (agent ?? '').trim() || DEFAULT_AGENT;

function knownTimezone(timezones: TimezoneCatalog, name: string): string {
  if (!timezones.has(name)) {
    throw validationFailed([{ path: '/timezone', message: 'must be an IANA timezone name such as Europe/Berlin or UTC' }]);
  }
  return name;
}

/**
 * Throws event_exists (conflict) when the workspace has the (agent, event) pair already, and
 * event_definition_limit (invalid) when it has WORKSPACE_MAX_EVENT_DEFINITIONS definitions.
 */
export async function createEventDefinition(
  deps: EventsDeps,
  workspaceId: string,
  input: EventDefinitionEdit & { readonly event: string },
): Promise<EventDefinition> {
  const fields = {
    event: input.event.trim(),
    agent: agentOrDefault(input.agent),
    title: input.title ?? null,
    description: input.description ?? '',
    unit: input.unit ?? '',
    timezone: knownTimezone(deps.timezones, input.timezone ?? 'UTC'),
    public: input.public ?? false,
  };
  try {
    return await insertEventDefinition(deps.postgres, workspaceId, fields, deps.directory.maxDefinitionsPerWorkspace);
  } catch (err) {
    if (err instanceof DefinitionLimitError) {
      throw invalid('event_definition_limit', `The workspace has reached its limit of ${err.limit} event definitions.`);
    }
    throw err;
  }
}

/** Every definition of the workspace, newest first, paged. */
export function listEventDefinitions(postgres: Queryable, workspaceId: string, page: PageOrAll): Promise<EventDefinition[]> {
  return listEventDefinitionRows(postgres, workspaceId, page);
}

/** The definition, or not_found. */
export async function requireEventDefinition(postgres: Queryable, workspaceId: string, eventId: string): Promise<EventDefinition> {
  const definition = await getEventDefinition(postgres, workspaceId, eventId);
  if (!definition) throw notFound('event definition');
  return definition;
}

/** Applies the fields the edit carries; a new timezone re-buckets the day rollup first. */
export async function updateEventDefinition(deps: EventsDeps, workspaceId: string, eventId: string, edit: EventDefinitionEdit): Promise<EventDefinition> {
  const current = await requireEventDefinition(deps.postgres, workspaceId, eventId);
  if (edit.event !== undefined && edit.event.trim() !== current.event) {
    throw validationFailed([{ path: '/event', message: `cannot be changed; it is "${current.event}"` }]);
  }
  const changes = {
    agent: edit.agent === undefined ? undefined : agentOrDefault(edit.agent),
    title: edit.title,
    description: edit.description,
    unit: edit.unit,
    timezone: edit.timezone === undefined ? undefined : knownTimezone(deps.timezones, edit.timezone),
    public: edit.public,
  };
  const newTimezone = changes.timezone !== undefined && changes.timezone !== current.timezone ? changes.timezone : null;
  const apply = async () => {
    if (newTimezone !== null) {
      // Rebuild first: if the update then fails, a retried edit still sees the change to make.
      await rebucketDayRollups(deps.clickhouse, workspaceId, current.event_id, current.created_at, newTimezone);
    }
    const updated = await writeEventDefinitionChanges(deps.postgres, workspaceId, current, changes);
    if (!updated) throw notFound('event definition');
    deps.directory.definitionChanged(workspaceId, updated.event_id, updated.timezone);
    return updated;
  };
  // No insert may run while the day rows are rebuilt, or its rows would be counted twice.
  return newTimezone !== null && deps.inserts ? deps.inserts.runExclusive(apply) : apply();
}

export interface EventRollups {
  readonly definition: EventDefinition;
  /** Newest first. */
  readonly buckets: readonly RollupBucket[];
}

/** The event's rollup buckets of one period, within [range.from, range.to). */
export async function readEventRollups(
  deps: Pick<EventsDeps, 'postgres' | 'clickhouse'>,
  workspaceId: string,
  eventId: string,
  period: Period,
  page: Page,
  range: BucketRange,
): Promise<EventRollups> {
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw invalid('invalid_range', 'from must not be after to.', [{ path: '/from', message: 'must not be after to' }]);
  }
  const definition = await requireEventDefinition(deps.postgres, workspaceId, eventId);
  const buckets = await readRollupBuckets(deps.clickhouse, workspaceId, definition.event_id, period, page, range);
  return { definition, buckets };
}

/** How many of the newest rollup items of each period a share link shows. */
export const SHARED_ROLLUP_ITEMS: Readonly<Record<Period, number>> = { minute: 60, hour: 48, day: 31 };

export interface SharedEvent {
  readonly definition: EventDefinition;
  /** Newest first, SHARED_ROLLUP_ITEMS of each period at most. */
  readonly buckets: Readonly<Record<Period, readonly RollupBucket[]>>;
}

/**
 * A public event read through its share link. An unknown id, a wrong token and an event that
 * is not public all give the same not_found, after the same work, so the answer tells nothing
 * about which it was.
 */
export async function readSharedEvent(deps: Pick<EventsDeps, 'postgres' | 'clickhouse'>, eventId: string, token: string): Promise<SharedEvent> {
  const found = await findSharedEventDefinition(deps.postgres, eventId);
  const tokenMatches = linkTokenMatches(found?.share_token ?? null, token);
  if (!found || !tokenMatches || !found.public) throw notFound('shared event');
  const read = (period: Period) => readRollupBuckets(deps.clickhouse, found.user_id, found.event_id, period, { limit: SHARED_ROLLUP_ITEMS[period], offset: 0 });
  const [minute, hour, day] = await Promise.all([read('minute'), read('hour'), read('day')]);
  return { definition: found, buckets: { minute, hour, day } };
}

/** Replaces the event's share token: links with the old one stop working at once. */
export async function rotateShareToken(postgres: Queryable, workspaceId: string, eventId: string): Promise<EventDefinition> {
  const updated = await writeNewShareToken(postgres, workspaceId, eventId);
  if (!updated) throw notFound('event definition');
  return updated;
}
