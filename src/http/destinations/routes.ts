// Destinations and their test send (docs/api.md, Destinations and deliveries).
import { writeWithKey } from '../../ascode/keys.js';
import {
  createDestination,
  getDestination,
  listDestinations,
  rotateSigningSecret,
  updateDestination,
  type ChannelRules,
} from '../../destinations/operations.js';
import type { DeliveryDeps } from '../../delivery/deliver.js';
import { sendTestNotification } from '../../delivery/testSend.js';
import { pageOrAll } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { emptyBodySchema } from '../validation.js';
import { destinationJson } from './representation.js';
import { createDestinationSchema, destinationResponseSchema, listDestinationsQuerySchema, testSendResponseSchema, updateDestinationSchema } from './schemas.js';

export interface DestinationRoutesDeps {
  readonly channels: ChannelRules;
  readonly delivery: DeliveryDeps;
  /** Destinations one workspace may have (WORKSPACE_MAX_DESTINATIONS). */
  readonly maxPerWorkspace: number;
}

const notFound = { description: 'No such destination in this workspace.' };
const invalid = { description: 'The configuration is invalid for the channel (every problem in details).' };

export function destinationRoutes({ channels, delivery, maxPerWorkspace }: DestinationRoutesDeps): ApiRouter {
  const db = delivery.postgres;
  return new ApiRouter('destinations', '/v1.0/destinations', ['destinationID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create a destination',
        body: createDestinationSchema,
        responses: {
          201: {
            description: 'The created destination, secrets abbreviated except a webhook’s signing_secret, shown in full this once.',
            schema: destinationResponseSchema,
          },
          400: invalid,
          409: { description: 'The workspace has reached its limit of destinations (destination_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        const { key, ...fields } = body;
        const workspaceId = workspaceOf(ctx);
        const created = await writeWithKey(db, 'destinations', workspaceId, key, (tx) => createDestination(tx, workspaceId, fields, channels, maxPerWorkspace));
        ctx.body = destinationJson(created, { revealSigningSecret: true });
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List destinations, newest first',
        query: listDestinationsQuerySchema,
        responses: { 200: { description: 'Destinations of the workspace.', schema: { type: 'array', items: destinationResponseSchema } } },
      },
      async (ctx, { query }) => {
        const rows = await listDestinations(db, workspaceOf(ctx), pageOrAll(query));
        ctx.body = rows.map((row) => destinationJson(row));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:destinationID',
        summary: 'Read a destination',
        responses: { 200: { description: 'The destination, secrets abbreviated.', schema: destinationResponseSchema }, 404: notFound },
      },
      async (ctx) => {
        ctx.body = destinationJson(await getDestination(db, workspaceOf(ctx), ctx.params.destinationID!));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:destinationID',
        summary: 'Update a destination',
        description:
          'Any subset of the fields. Omitting credentials, or sending back the abbreviated values as read, keeps the stored secrets; read-only fields are ignored.',
        body: updateDestinationSchema,
        responses: { 200: { description: 'The updated destination.', schema: destinationResponseSchema }, 400: invalid, 404: notFound },
      },
      async (ctx, { body }) => {
        const { key, ...fields } = body;
        const workspaceId = workspaceOf(ctx);
        const updated = await writeWithKey(db, 'destinations', workspaceId, key, (tx) =>
          updateDestination(tx, workspaceId, ctx.params.destinationID!, fields, channels),
        );
        ctx.body = destinationJson(updated);
      },
    )
    .add(
      {
        method: 'post',
        path: '/:destinationID/rotate-secret',
        summary: 'Rotate a webhook’s signing secret',
        description:
          'Makes a new signing secret, shown in full in this answer only. The previous secret keeps signing beside it (two signatures) until previous_signing_secret_expires_at, 24 hours later.',
        body: emptyBodySchema,
        responses: {
          200: { description: 'The destination with its new signing_secret in full.', schema: destinationResponseSchema },
          400: { description: 'Not a webhook destination (code not_signed), or a body other than none or {}.' },
          404: notFound,
        },
      },
      async (ctx) => {
        ctx.body = destinationJson(await rotateSigningSecret(db, workspaceOf(ctx), ctx.params.destinationID!), { revealSigningSecret: true });
      },
    )
    .add(
      {
        method: 'post',
        path: '/:destinationID/test',
        summary: 'Send a test notification',
        description: 'Sends a synthetic alert once (disabled destinations too) and records the attempt with kind test under the returned alert_id.',
        body: emptyBodySchema,
        responses: {
          200: { description: 'The provider accepted the test.', schema: testSendResponseSchema },
          400: { description: 'A body other than none or {}.' },
          404: notFound,
          502: { description: 'The provider refused or failed; its status and answer are in details, with alert_id and destination_id beside error.' },
        },
      },
      async (ctx) => {
        ctx.body = await sendTestNotification(delivery, workspaceOf(ctx), ctx.params.destinationID!);
      },
    );
}
