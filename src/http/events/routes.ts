// Event definitions (INTERFACE §4.5, DECISIONS E) and the rollup read of one event.
import Router from '@koa/router';
import { readRollupBuckets } from '../../analytics/rollups.js';
import { conflict, invalid, notFound, validationFailed } from '../../errors.js';
import {
  createEventDefinition,
  getEventDefinition,
  listEventDefinitions,
  PairTakenError,
  updateEventDefinition,
  type EventDefinition,
} from '../../events/definitions.js';
import type { TimezoneCatalog } from '../../events/timezones.js';
import { rebucketDayRollups } from '../../ingest/dayRollups.js';
import type { EventDirectory } from '../../ingest/eventDirectory.js';
import type { Stores } from '../../stores/index.js';
import { workspaceOf, type AppContext, type AppState } from '../context.js';
import { DEFAULT_AGENT } from '../logs/validateLogBatch.js';
import { pageOf, requireUuidParams } from '../params.js';
import { bodyValidator, queryValidator } from '../validation.js';
import { eventDefinitionJson, rollupItemJson } from './representation.js';
import {
  createEventSchema,
  rollupQuerySchema,
  updateEventSchema,
  type CreateEventBody,
  type RollupQuery,
  type UpdateEventBody,
} from './schemas.js';

const validateCreate = bodyValidator<CreateEventBody>(createEventSchema);
const validateUpdate = bodyValidator<UpdateEventBody>(updateEventSchema);
const validateRollupQuery = queryValidator<RollupQuery>(rollupQuerySchema);

export interface EventRoutesDeps {
  readonly stores: Stores;
  readonly directory: EventDirectory;
  readonly timezones: TimezoneCatalog;
  /** Runs work between two ingest inserts (or at once where this process does not ingest). */
  readonly betweenInserts: <R>(fn: () => Promise<R>) => Promise<R>;
}

const agentOrDefault = (agent: string | null | undefined) => (agent ?? '').trim() || DEFAULT_AGENT;

export function eventRoutes({ stores, directory, timezones, betweenInserts }: EventRoutesDeps): Router<AppState> {
  const { postgres, clickhouse } = stores;

  const timezoneOrFail = (name: string): string => {
    if (!timezones.has(name)) {
      throw validationFailed([{ path: '/timezone', message: 'must be an IANA timezone name such as Europe/Berlin or UTC' }]);
    }
    return name;
  };
  const router = new Router<AppState>({ prefix: '/v1.0/events' });
  requireUuidParams(router, ['eventID']);

  const load = async (ctx: AppContext): Promise<EventDefinition> => {
    const definition = await getEventDefinition(postgres, workspaceOf(ctx), ctx.params.eventID!);
    if (!definition) throw notFound('event definition');
    return definition;
  };

  router.post('/', async (ctx) => {
    const body = validateCreate(ctx.request.body);
    try {
      const created = await createEventDefinition(postgres, workspaceOf(ctx), {
        event: body.event.trim(),
        agent: agentOrDefault(body.agent),
        title: body.title ?? null,
        description: body.description ?? '',
        unit: body.unit ?? '',
        timezone: timezoneOrFail(body.timezone ?? 'UTC'),
        public: body.public ?? false,
      });
      ctx.status = 201;
      ctx.body = eventDefinitionJson(created);
    } catch (err) {
      if (err instanceof PairTakenError) throw conflict('event_exists', err.message);
      throw err;
    }
  });

  router.get('/', async (ctx) => {
    const definitions = await listEventDefinitions(postgres, workspaceOf(ctx), pageOf(ctx.query));
    ctx.body = definitions.map(eventDefinitionJson);
  });

  router.get('/:eventID', async (ctx) => {
    ctx.body = eventDefinitionJson(await load(ctx));
  });

  router.put('/:eventID', async (ctx) => {
    const workspaceId = workspaceOf(ctx);
    const body = validateUpdate(ctx.request.body);
    const current = await load(ctx);
    if (body.event !== undefined && body.event.trim() !== current.event) {
      throw validationFailed([{ path: '/event', message: `cannot be changed; it is "${current.event}"` }]);
    }
    const changes = {
      agent: body.agent === undefined ? undefined : agentOrDefault(body.agent),
      title: body.title,
      description: body.description,
      unit: body.unit,
      timezone: body.timezone === undefined ? undefined : timezoneOrFail(body.timezone),
      public: body.public,
    };
    const newTimezone = changes.timezone !== undefined && changes.timezone !== current.timezone ? changes.timezone : null;
    const apply = async () => {
      if (newTimezone !== null) {
        // Rebuild first: if the update then fails, a retried PUT still sees the change to make.
        await rebucketDayRollups(clickhouse, workspaceId, current.event_id, current.created_at, newTimezone);
      }
      const updated = await updateEventDefinition(postgres, workspaceId, current, changes);
      if (!updated) throw notFound('event definition');
      directory.definitionChanged(workspaceId, updated.event_id, updated.timezone);
      return updated;
    };
    try {
      const updated = newTimezone !== null ? await betweenInserts(apply) : await apply();
      ctx.body = eventDefinitionJson(updated);
    } catch (err) {
      if (err instanceof PairTakenError) throw conflict('event_exists', err.message);
      throw err;
    }
  });

  router.get('/:eventID/logs', async (ctx) => {
    const query = validateRollupQuery({ ...ctx.query });
    const definition = await load(ctx);
    const range = {
      ...(query.from === undefined ? {} : { from: Date.parse(query.from) }),
      ...(query.to === undefined ? {} : { to: Date.parse(query.to) }),
    };
    if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
      throw invalid('invalid_range', 'from must not be after to.', [{ path: '/from', message: 'must not be after to' }]);
    }
    const page = { limit: query.limit ?? 100, offset: query.offset ?? 0 };
    const buckets = await readRollupBuckets(clickhouse, workspaceOf(ctx), definition.event_id, query.period, page, range);
    ctx.body = buckets.map((b) => rollupItemJson(definition, query.period, b));
  });

  return router;
}
