// Event definitions (docs/api.md, Event definitions) and the rollup read of one event. The
// rules live in src/events/operations.ts; this file validates, calls it and presents.
import {
  createEventDefinition,
  listEventDefinitions,
  readEventRollups,
  requireEventDefinition,
  rotateShareToken,
  updateEventDefinition,
  type EventsDeps,
} from '../../events/operations.js';
import type { EventDefinition } from '../../events/model.js';
import { pageOf, pageOrAll } from '../../page.js';
import type { PublicLinks } from '../../publicLinks.js';
import { emptyBodySchema } from '../validation.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { eventDefinitionJson, rollupItemJson } from './representation.js';
import { createEventSchema, eventDefinitionSchema, listEventsQuerySchema, rollupItemSchema, rollupQuerySchema, updateEventSchema } from './schemas.js';

const invalidInput = { description: 'Invalid input; nothing was changed.' };
const noSuchEvent = { description: 'No such event definition in this workspace.' };
const definitionResponse = { description: 'The event definition.', schema: eventDefinitionSchema };

/** `links`: where share links point (PUBLIC_URL). */
export function eventRoutes(deps: EventsDeps, links: PublicLinks): ApiRouter {
  const present = (d: EventDefinition) => eventDefinitionJson(d, links);
  return new ApiRouter('events', '/v1.0/events', ['eventID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create an event definition',
        body: createEventSchema,
        responses: { 201: definitionResponse, 400: invalidInput, 409: { description: 'The (agent, event) pair exists (event_exists).' } },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        ctx.body = present(await createEventDefinition(deps, workspaceOf(ctx), body));
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List event definitions, newest first',
        query: listEventsQuerySchema,
        responses: { 200: { description: 'Event definitions.', schema: { type: 'array', items: eventDefinitionSchema } }, 400: invalidInput },
      },
      async (ctx, { query }) => {
        const definitions = await listEventDefinitions(deps.postgres, workspaceOf(ctx), pageOrAll(query));
        ctx.body = definitions.map(present);
      },
    )
    .add(
      { method: 'get', path: '/:eventID', summary: 'Read an event definition', responses: { 200: definitionResponse, 400: invalidInput, 404: noSuchEvent } },
      async (ctx) => {
        ctx.body = present(await requireEventDefinition(deps.postgres, workspaceOf(ctx), ctx.params.eventID!));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:eventID',
        summary: 'Change an event definition',
        description: 'Changes only the fields sent. A new timezone rebuilds the day rollup in the new local days.',
        body: updateEventSchema,
        responses: {
          200: definitionResponse,
          400: invalidInput,
          404: noSuchEvent,
          409: { description: 'The new agent makes a pair that exists (event_exists).' },
        },
      },
      async (ctx, { body }) => {
        ctx.body = present(await updateEventDefinition(deps, workspaceOf(ctx), ctx.params.eventID!, body));
      },
    )
    .add(
      {
        method: 'post',
        path: '/:eventID/share-token',
        summary: 'Replace the share token',
        description: 'Gives the event a new random share_token: share links made with the old one stop working at once.',
        body: emptyBodySchema,
        responses: { 200: definitionResponse, 400: invalidInput, 404: noSuchEvent },
      },
      async (ctx) => {
        ctx.body = present(await rotateShareToken(deps.postgres, workspaceOf(ctx), ctx.params.eventID!));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:eventID/logs',
        summary: "Read an event's rollup, newest first",
        query: rollupQuerySchema,
        responses: { 200: { description: 'Rollup items.', schema: { type: 'array', items: rollupItemSchema } }, 400: invalidInput, 404: noSuchEvent },
      },
      async (ctx, { query }) => {
        const range = {
          ...(query.from === undefined ? {} : { from: Date.parse(query.from) }),
          ...(query.to === undefined ? {} : { to: Date.parse(query.to) }),
        };
        const period = query.period ?? 'minute';
        const { definition, buckets } = await readEventRollups(deps, workspaceOf(ctx), ctx.params.eventID!, period, pageOf(query), range);
        ctx.body = buckets.map((b) => rollupItemJson(definition, period, b));
      },
    );
}
