// People (docs/oncall.md): who can be on call, and the destinations that reach them.
import { writeWithKey } from '../../ascode/keys.js';
import { createPerson, deletePerson, getPerson, listPeople, type OnCallDeps, updatePerson } from '../../oncall/people.js';
import { pageOrAll } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { personJson } from './representation.js';
import { createPersonSchema, listPeopleQuerySchema, personResponseSchema, updatePersonSchema } from './schemas.js';

const errors = {
  400: { description: 'Invalid input (invalid_id, validation_failed: a bad field, an unknown timezone, or a destination not of this workspace).' },
  404: { description: 'No such person in this workspace.' },
} as const;

export function peopleRoutes(deps: OnCallDeps): ApiRouter {
  const db = deps.postgres;
  return new ApiRouter('people', '/v1.0/people', ['personID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create a person',
        description: 'Required: name and destination_ids (1–10 of the workspace’s destinations). Schedules name people in their layers and overrides.',
        body: createPersonSchema,
        responses: {
          201: { description: 'The created person.', schema: personResponseSchema },
          400: errors[400],
          409: { description: 'The workspace has reached its limit of people (person_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        ctx.status = 201;
        const { key, ...fields } = body;
        const workspaceId = workspaceOf(ctx);
        ctx.body = personJson(await writeWithKey(db, 'people', workspaceId, key, (postgres) => createPerson({ ...deps, postgres }, workspaceId, fields)));
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List people, newest first',
        description: 'Without limit, every person of the workspace.',
        query: listPeopleQuerySchema,
        responses: { 200: { description: 'People.', schema: { type: 'array', items: personResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        ctx.body = (await listPeople(db, workspaceOf(ctx), pageOrAll(query))).map(personJson);
      },
    )
    .add(
      {
        method: 'get',
        path: '/:personID',
        summary: 'Read a person',
        responses: { 200: { description: 'The person.', schema: personResponseSchema }, ...errors },
      },
      async (ctx) => {
        ctx.body = personJson(await getPerson(db, workspaceOf(ctx), ctx.params.personID!));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:personID',
        summary: 'Change a person',
        description: 'Any subset of the fields; read-only fields are ignored.',
        body: updatePersonSchema,
        responses: { 200: { description: 'The updated person.', schema: personResponseSchema }, ...errors },
      },
      async (ctx, { body }) => {
        const { name, timezone, destination_ids } = body;
        const workspaceId = workspaceOf(ctx);
        ctx.body = personJson(
          await writeWithKey(db, 'people', workspaceId, body.key, (postgres) =>
            updatePerson({ ...deps, postgres }, workspaceId, ctx.params.personID!, { name, timezone, destination_ids }),
          ),
        );
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:personID',
        summary: 'Delete a person',
        responses: {
          204: { description: 'Deleted (with their overrides that have ended).' },
          ...errors,
          409: { description: 'A schedule names them in a layer or in an override that has not ended, or an escalation step pages them (person_in_use).' },
        },
      },
      async (ctx) => {
        await deletePerson(deps, workspaceOf(ctx), ctx.params.personID!);
        ctx.status = 204;
      },
    );
}
