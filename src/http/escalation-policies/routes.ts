// Escalation policies (docs/api.md, Escalation): who is paged next while an alert stays triggered.
import { writeWithKey } from '../../ascode/keys.js';
import {
  createEscalationPolicy,
  deleteEscalationPolicy,
  escalationPolicyUsers,
  getEscalationPolicy,
  listEscalationPolicies,
  updateEscalationPolicy,
} from '../../escalation/operations.js';
import { pageOrAll } from '../../page.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { escalationPolicyJson } from './representation.js';
import { createEscalationPolicySchema, escalationPolicyResponseSchema, listEscalationPoliciesQuerySchema, updateEscalationPolicySchema } from './schemas.js';

export interface EscalationRoutesDeps {
  readonly postgres: PostgresStore;
  readonly maxPerWorkspace: number;
}

const errors = {
  400: {
    description:
      'Invalid input (invalid_id, validation_failed: a bad field, a step with no target, or a destination, schedule or person not of this workspace).',
  },
  404: { description: 'No such escalation policy in this workspace.' },
} as const;

export function escalationPolicyRoutes({ postgres, maxPerWorkspace }: EscalationRoutesDeps): ApiRouter {
  const usersOf = (workspaceId: string) => escalationPolicyUsers(postgres, workspaceId);
  return new ApiRouter('escalation policies', '/v1.0/escalation-policies', ['escalationPolicyID'])
    .add(
      {
        method: 'post',
        path: '/',
        summary: 'Create an escalation policy',
        description:
          'Required: name and steps (1–10). A policy that names it pages, while its alert stays triggered, each step’s destinations, people and the people on call in its schedules with alert.escalated: step 1 after_minutes after the alert triggered, each next step after_minutes after the one before, the whole chain repeat more times. Acknowledging, resolving or archiving the alert stops it.',
        body: createEscalationPolicySchema,
        responses: {
          201: { description: 'The created escalation policy.', schema: escalationPolicyResponseSchema },
          400: errors[400],
          409: { description: 'The workspace has reached its limit of escalation policies (escalation_policy_limit_reached).' },
        },
      },
      async (ctx, { body }) => {
        const workspaceId = workspaceOf(ctx);
        const created = await writeWithKey(postgres, 'escalation_policies', workspaceId, body.key, (db) =>
          createEscalationPolicy(db, workspaceId, { name: body.name, steps: body.steps, repeat: body.repeat ?? 0 }, maxPerWorkspace),
        );
        ctx.status = 201;
        ctx.body = escalationPolicyJson(created, new Map());
      },
    )
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'List escalation policies, newest first',
        description: 'Without limit, every escalation policy of the workspace.',
        query: listEscalationPoliciesQuerySchema,
        responses: { 200: { description: 'Escalation policies.', schema: { type: 'array', items: escalationPolicyResponseSchema } }, 400: errors[400] },
      },
      async (ctx, { query }) => {
        const workspaceId = workspaceOf(ctx);
        const [list, users] = [await listEscalationPolicies(postgres, workspaceId, pageOrAll(query)), await usersOf(workspaceId)];
        ctx.body = list.map((p) => escalationPolicyJson(p, users));
      },
    )
    .add(
      {
        method: 'get',
        path: '/:escalationPolicyID',
        summary: 'Read an escalation policy',
        responses: { 200: { description: 'The escalation policy.', schema: escalationPolicyResponseSchema }, ...errors },
      },
      async (ctx) => {
        const workspaceId = workspaceOf(ctx);
        ctx.body = escalationPolicyJson(await getEscalationPolicy(postgres, workspaceId, ctx.params.escalationPolicyID!), await usersOf(workspaceId));
      },
    )
    .add(
      {
        method: 'put',
        path: '/:escalationPolicyID',
        summary: 'Change an escalation policy',
        description: 'Any subset of the fields; read-only fields are ignored. Chains under way follow the new steps from their next step on.',
        body: updateEscalationPolicySchema,
        responses: { 200: { description: 'The updated escalation policy.', schema: escalationPolicyResponseSchema }, ...errors },
      },
      async (ctx, { body }) => {
        const workspaceId = workspaceOf(ctx);
        const updated = await writeWithKey(postgres, 'escalation_policies', workspaceId, body.key, (db) =>
          updateEscalationPolicy(db, workspaceId, ctx.params.escalationPolicyID!, { name: body.name, steps: body.steps, repeat: body.repeat }),
        );
        ctx.body = escalationPolicyJson(updated, await usersOf(workspaceId));
      },
    )
    .add(
      {
        method: 'delete',
        path: '/:escalationPolicyID',
        summary: 'Delete an escalation policy',
        responses: {
          204: { description: 'Deleted.' },
          ...errors,
          409: { description: 'A policy still names it (escalation_policy_in_use): set its escalation_policy_id to null or another one first.' },
        },
      },
      async (ctx) => {
        await deleteEscalationPolicy(postgres, workspaceOf(ctx), ctx.params.escalationPolicyID!);
        ctx.status = 204;
      },
    );
}
