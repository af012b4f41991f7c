// Schedules (docs/oncall.md): layers of rotating people, who is on call, and the shifts.
import { writeWithKey } from '../../ascode/keys.js';
import { shiftsOf, timelineOf, whoIsOnCall } from '../../oncall/onCall.js';
import type { OnCallDeps } from '../../oncall/people.js';
import { createSchedule, deleteSchedule, getSchedule, listSchedules, replaceIcalToken, requireShiftRange, updateSchedule } from '../../oncall/schedules.js';
import { pageOrAll } from '../../page.js';
import type { PublicLinks } from '../../publicLinks.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { emptyBodySchema } from '../validation.js';
import { overrideRoutes } from './overrideRoutes.js';
import { onCallJson, scheduleJson, shiftJson, timelineJson } from './representation.js';
import {
  createScheduleSchema,
  listSchedulesQuerySchema,
  onCallQuerySchema,
  onCallResponseSchema,
  scheduleResponseSchema,
  shiftSchema,
  shiftsQuerySchema,
  timelineResponseSchema,
  updateScheduleSchema,
} from './schemas.js';

const errors = {
  400: {
    description:
      'Invalid input (invalid_id, validation_failed: a bad field, an unknown timezone, a handoff like 24:00, a member not a person of this workspace).',
  },
  404: { description: 'No such schedule in this workspace.' },
} as const;

/** The layers of a body, instants parsed (the schema has checked their format). */
const layersOf = <L extends { readonly start: string }>(layers: readonly L[] | undefined) => layers?.map((l) => ({ ...l, start: new Date(l.start) }));

export function scheduleRoutes(deps: OnCallDeps, links: PublicLinks): ApiRouter {
  const db = deps.postgres;
  const now = () => new Date(deps.now?.() ?? Date.now());
  const router = new ApiRouter('schedules', '/v1.0/schedules', ['scheduleID', 'overrideID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create a schedule',
        description:
          'Required: name, timezone and layers (1–5). Each layer rotates its members from start; where several layers have someone the later one wins, and an override wins over all.',
        body: createScheduleSchema,
        responses: {
          201: { description: 'The created schedule.', schema: scheduleResponseSchema },
          400: errors[400],
          409: { description: 'The workspace has reached its limit of schedules (schedule_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        const { key, ...fields } = body;
        const workspaceId = workspaceOf(ctx);
        const created = await writeWithKey(db, 'schedules', workspaceId, key, (postgres) =>
          createSchedule({ ...deps, postgres }, workspaceId, { ...fields, layers: layersOf(fields.layers)! }),
        );
        ctx.body = scheduleJson(created, links);
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List schedules, newest first',
        description: 'Without limit, every schedule of the workspace.',
        query: listSchedulesQuerySchema,
        responses: { 200: { description: 'Schedules.', schema: { type: 'array', items: scheduleResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        ctx.body = (await listSchedules(db, workspaceOf(ctx), pageOrAll(query))).map((s) => scheduleJson(s, links));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID',
        summary: 'Read a schedule',
        responses: { 200: { description: 'The schedule.', schema: scheduleResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = scheduleJson(await getSchedule(db, workspaceOf(ctx), ctx.params.scheduleID!), links);
      },
    )
    .add(
      {
        method: 'put',
        path: '/:scheduleID',
        summary: 'Change a schedule',
        description: 'Any subset of the fields; layers are replaced whole; read-only fields are ignored.',
        body: updateScheduleSchema,
        responses: { 200: { description: 'The updated schedule.', schema: scheduleResponseSchema }, ...errors },
      },
      async (ctx, { body }) => {
        const { name, timezone, notify_handoffs } = body;
        const changes = { name, timezone, notify_handoffs, layers: layersOf(body.layers) };
        const workspaceId = workspaceOf(ctx);
        const updated = await writeWithKey(db, 'schedules', workspaceId, body.key, (postgres) =>
          updateSchedule({ ...deps, postgres }, workspaceId, ctx.params.scheduleID!, changes),
        );
        ctx.body = scheduleJson(updated, links);
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:scheduleID',
        summary: 'Delete a schedule',
        responses: {
          204: { description: 'Deleted, with its overrides; its calendar feed stops working.' },
          ...errors,
          409: { description: 'An escalation step pages it (schedule_in_use; the message names the escalation policies).' },
        },
      },
      async (ctx) => {
        await deleteSchedule(deps, workspaceOf(ctx), ctx.params.scheduleID!);
        ctx.status = 204;
      },
    )
    .add(
      {
        method: 'post',
        path: '/:scheduleID/ical-token',
        summary: 'Replace the calendar feed’s token',
        description: 'Gives the schedule a new random ical_token: calendar subscriptions made with the old one stop working at once. Takes no body.',
        body: emptyBodySchema,
        responses: { 200: { description: 'The schedule with its new ical_token.', schema: scheduleResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = scheduleJson(await replaceIcalToken(db, workspaceOf(ctx), ctx.params.scheduleID!), links);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID/on-call',
        summary: 'Who is on call',
        description: 'Who is on call at `at` (default now), by which layer (or "override"), and until when.',
        query: onCallQuerySchema,
        responses: { 200: { description: 'Who is on call.', schema: onCallResponseSchema }, ...errors },
      },
      async (ctx, { query }) => {
        const at = query.at === undefined ? now() : new Date(query.at);
        const id = ctx.params.scheduleID!;
        await getSchedule(db, workspaceOf(ctx), id);
        ctx.body = onCallJson(at, (await whoIsOnCall(db, workspaceOf(ctx), [id], at)).get(id));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID/shifts',
        summary: 'The final shifts',
        description:
          'Who is on call from `from` to `to` (at most 90 days), oldest first: the final line after layers and overrides. A shift that began before from or ends after to is shown whole; where no one is on call there is no shift.',
        query: shiftsQuerySchema,
        responses: {
          200: { description: 'The shifts.', schema: { type: 'array', items: shiftSchema } },
          400: { description: `${errors[400].description} invalid_range: to not after from, or more than 90 days after it.` },
          404: errors[404],
        },
      },
      async (ctx, { query }) => {
        const [from, to] = [new Date(query.from), new Date(query.to)];
        requireShiftRange(from, to);
        const schedule = await getSchedule(db, workspaceOf(ctx), ctx.params.scheduleID!);
        ctx.body = (await shiftsOf(db, schedule, { from: from.getTime(), to: to.getTime() })).map(shiftJson);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:scheduleID/timeline',
        summary: 'A timeline of the schedule',
        description:
          'What the console draws: each layer’s shifts as if it were alone, the overrides, and the final line, from `from` to `to` (at most 90 days).',
        query: shiftsQuerySchema,
        responses: { 200: { description: 'The timeline.', schema: timelineResponseSchema }, 400: errors[400], 404: errors[404] },
      },
      async (ctx, { query }) => {
        const [from, to] = [new Date(query.from), new Date(query.to)];
        requireShiftRange(from, to);
        const schedule = await getSchedule(db, workspaceOf(ctx), ctx.params.scheduleID!);
        ctx.body = timelineJson(schedule.timezone, await timelineOf(db, schedule, { from: from.getTime(), to: to.getTime() }));
      },
    );
  return overrideRoutes(router, deps);
}
