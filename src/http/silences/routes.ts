// Silences and recurring maintenance windows (docs/api.md, Silences).
import { writeWithKey } from '../../ascode/keys.js';
import { parseSilenceMatchers } from '../../silences/matchers.js';
import type { SilenceFields } from '../../silences/model.js';
import { createSilence, deleteSilence, getSilence, listSilences, updateSilence, type SilencesDeps } from '../../silences/operations.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { silenceJson } from './representation.js';
import { createSilenceSchema, listSilencesQuerySchema, silenceResponseSchema, updateSilenceSchema } from './schemas.js';

const errors = {
  400: {
    description:
      'Invalid input (invalid_id, validation_failed: a bad time, window, timezone, a policy or alert source not of this workspace, or matchers that all match an empty label; invalid_matcher, invalid_matcher_regex: a matcher that does not parse or compile, with its path).',
  },
  404: { description: 'No such silence in this workspace.' },
} as const;

type WritableBody = {
  policy_ids?: string[] | null;
  matchers?: string[] | null;
  starts_at?: string;
  ends_at?: string;
  comment?: string;
  recurrence?: SilenceFields['recurrence'];
};

/** The fields a body sets, instants parsed (the schema has checked their format). */
function fieldsOf(body: WritableBody): Partial<SilenceFields> {
  return {
    policy_ids: body.policy_ids,
    matchers: body.matchers === undefined ? undefined : parseSilenceMatchers(body.matchers),
    starts_at: body.starts_at === undefined ? undefined : new Date(body.starts_at),
    ends_at: body.ends_at === undefined ? undefined : new Date(body.ends_at),
    comment: body.comment,
    recurrence: body.recurrence,
  };
}

export function silenceRoutes(deps: SilencesDeps): ApiRouter {
  const db = deps.postgres;
  return new ApiRouter('silences', '/v1.0/silences', ['silenceID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create a silence',
        description:
          'Required: ends_at. While the silence covers an alert’s policy, its notifications are recorded as silenced attempts and not sent; an alert still open at the end whose alert.triggered was silenced is notified then, once.',
        body: createSilenceSchema,
        responses: {
          201: { description: 'The created silence.', schema: silenceResponseSchema },
          400: errors[400],
          409: { description: 'The workspace has reached its limit of silences (silence_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        const workspaceId = workspaceOf(ctx);
        const created = await writeWithKey(db, 'silences', workspaceId, body.key, (postgres) =>
          createSilence({ ...deps, postgres }, workspaceId, { ...fieldsOf(body), ends_at: new Date(body.ends_at) }),
        );
        ctx.body = silenceJson(created);
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List silences, newest first',
        description: 'Without limit, every silence of the workspace (ended ones included).',
        query: listSilencesQuerySchema,
        responses: { 200: { description: 'Silences.', schema: { type: 'array', items: silenceResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        const silences = await listSilences(db, workspaceOf(ctx), { limit: query.limit ?? null, offset: query.offset ?? 0 });
        const now = Date.now();
        ctx.body = silences.map((s) => silenceJson(s, now));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:silenceID',
        summary: 'Read a silence',
        responses: { 200: { description: 'The silence.', schema: silenceResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = silenceJson(await getSilence(db, workspaceOf(ctx), ctx.params.silenceID!));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:silenceID',
        summary: 'Update a silence',
        description: 'Any subset of the fields, checked together with the others; read-only fields are ignored. An ends_at of now or earlier ends it.',
        body: updateSilenceSchema,
        responses: { 200: { description: 'The updated silence.', schema: silenceResponseSchema }, ...errors },
      },
      async (ctx, { body }) => {
        const workspaceId = workspaceOf(ctx);
        const updated = await writeWithKey(db, 'silences', workspaceId, body.key, (postgres) =>
          updateSilence({ ...deps, postgres }, workspaceId, ctx.params.silenceID!, fieldsOf(body)),
        );
        ctx.body = silenceJson(updated);
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:silenceID',
        summary: 'Delete (end) a silence',
        description: 'Ends the silence at once: alerts still open whose alert.triggered it silenced are notified.',
        responses: { 204: { description: 'Deleted.' }, ...errors },
      },
      async (ctx) => {
        await deleteSilence(db, workspaceOf(ctx), ctx.params.silenceID!);
        ctx.status = 204;
      },
    );
}
