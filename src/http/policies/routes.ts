// Policies (docs/api.md, Policies and evaluation) and the on-demand evaluation of one policy.
import { writeWithKey } from '../../ascode/keys.js';
import { validationFailed } from '../../errors.js';
import type { PolicyEvaluator } from '../../evaluation/evaluator.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy, withEventId } from '../../policies/operations.js';
import type { TimezoneCatalog } from '../../events/timezones.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { alertResponseSchema } from '../alerts/schemas.js';
import { pageOrAll } from '../../page.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import { manualEvaluationJson, policyJson } from './representation.js';
import { MAX_AGE_MS, MAX_AHEAD_MS } from '../../ingest/intake/recordRules.js';
import {
  backtestBodySchema,
  backtestDraftBodySchema,
  backtestResponseSchema,
  createPolicySchema,
  evaluateBodySchema,
  listPoliciesQuerySchema,
  policyResponseSchema,
  updatePolicySchema,
  unitTestBodySchema,
  unitTestResponseSchema,
} from './schemas.js';

export interface PolicyRoutesDeps {
  readonly postgres: PostgresStore;
  readonly evaluator: PolicyEvaluator;
  /** Policies one workspace may have (WORKSPACE_MAX_POLICIES). */
  readonly maxPerWorkspace: number;
  readonly timezones: TimezoneCatalog;
}

const errors = {
  400: { description: 'Invalid input (invalid_id, validation_failed).' },
  404: { description: 'No such policy, or event, in this workspace.' },
} as const;

const verdictProperties = {
  value: { type: ['number', 'null'], description: 'The aggregate (or its percentage change, with compare_to); null when the bucket has no data for it.' },
  count: { type: 'integer' },
  min: { type: ['number', 'null'] },
  max: { type: ['number', 'null'] },
  breached: { type: 'boolean' },
  alert: { anyOf: [alertResponseSchema, { type: 'null' }], description: 'The alert created or changed, or null.' },
} as const;

const bucketProperties = {
  policy_id: { type: 'string', format: 'uuid' },
  bucket_start: { type: 'string', format: 'date-time' },
  bucket_end: { type: 'string', format: 'date-time' },
} as const;

const evaluationResponseSchema = {
  anyOf: [
    {
      type: 'object',
      description: 'A policy on one event definition.',
      required: ['policy_id', 'bucket_start', 'bucket_end', 'value', 'count', 'min', 'max', 'breached', 'alert'],
      properties: { ...bucketProperties, ...verdictProperties },
    },
    {
      type: 'object',
      description: 'A fleet policy: every group with records in the bucket or an open alert, the largest by count first.',
      required: ['policy_id', 'bucket_start', 'bucket_end', 'groups', 'groups_truncated'],
      properties: {
        ...bucketProperties,
        groups: {
          type: 'array',
          items: {
            type: 'object',
            required: ['labels', 'value', 'count', 'min', 'max', 'breached', 'alert'],
            properties: {
              labels: { type: 'object', additionalProperties: { type: 'string' }, description: "The group's values ({} ungrouped)." },
              ...verdictProperties,
            },
          },
        },
        groups_truncated: { type: 'integer', description: 'Groups the bucket had beyond POLICY_MAX_GROUPS (the largest by count are judged).' },
      },
    },
  ],
} as const;

const DAY_MS = 86_400_000;
const DEFAULT_BACKTEST_MS = 7 * DAY_MS;

/** An instant where logs can be (30 days back to 1 day ahead, like a log's occurred_at): there is no data anywhere else. */
function inDataRange(path: string, iso: string, now: number): number {
  const at = Date.parse(iso);
  if (at < now - MAX_AGE_MS || at > now + MAX_AHEAD_MS) {
    throw validationFailed([{ path, message: `must lie between ${MAX_AGE_MS / DAY_MS} days before and ${MAX_AHEAD_MS / DAY_MS} day after now` }]);
  }
  return at;
}

/** A backtest's range: by default the last 7 days; `from` before `to`, both where logs can be. */
function backtestRange(body: { from?: string; to?: string }): { from: number; to: number } {
  const now = Date.now();
  const to = body.to === undefined ? now : inDataRange('/to', body.to, now);
  const from = body.from === undefined ? Math.max(to - DEFAULT_BACKTEST_MS, now - MAX_AGE_MS) : inDataRange('/from', body.from, now);
  if (from >= to) throw validationFailed([{ path: '/from', message: 'must be before to' }]);
  return { from, to };
}

const backtestDescription =
  'The alerts the policy would have raised over the stored rollups, with every rule applied (pending runs, recovery threshold, no data, comparison), oldest first. Nothing is stored, nothing is sent. The range defaults to the last 7 days; from is at most 30 days back.';

export function policyRoutes({ postgres, evaluator, maxPerWorkspace, timezones }: PolicyRoutesDeps): ApiRouter {
  const api = new ApiRouter('policies', '/v1.0/policies', ['policyID']);

  api.add(
    {
      method: 'post',
      path: '/',
      summary: 'Create a policy',
      description:
        'Required: event_id (one event definition) or event (a records\' event name across its agents: a fleet policy, judged per group), title, period, aggregate, condition, threshold, severity. Defaults: description "", channel "default", enabled true; for a fleet policy agents ["*"], filter {}, group_by [], timezone "UTC". A fleet policy counts once against the workspace\'s limit.',
      body: createPolicySchema,
      responses: {
        201: { description: 'The created policy.', schema: policyResponseSchema },
        ...errors,
        409: { description: 'The workspace has reached its limit of policies (policy_limit_reached).' },
      },
    },
    async (ctx, { body }) => {
      ctx.status = 201;
      const { key, ...fields } = body;
      const workspaceId = workspaceOf(ctx);
      const created = await writeWithKey(postgres, 'policies', workspaceId, key, (db) => createPolicy(db, workspaceId, fields, { maxPerWorkspace, timezones }));
      ctx.body = policyJson(created);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/',
      summary: 'List policies, newest first',
      query: listPoliciesQuerySchema,
      responses: { 200: { description: 'Policies.', schema: { type: 'array', items: policyResponseSchema } }, 400: errors[400] },
    },
    async (ctx, { query }) => {
      const policies = await listPolicies(postgres, workspaceOf(ctx), pageOrAll(query));
      ctx.body = policies.map(policyJson);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/:policyID',
      summary: 'Read a policy',
      responses: { 200: { description: 'The policy.', schema: policyResponseSchema }, ...errors },
    },
    async (ctx) => {
      ctx.body = policyJson(await getPolicy(postgres, workspaceOf(ctx), ctx.params.policyID!));
    },
  );

  api.add(
    {
      method: 'put',
      path: '/:policyID',
      summary: 'Change a policy',
      description:
        'Any subset of the fields. Read-only fields (policy_id, created_at, updated_at) are ignored. A policy that changes event or period, or is enabled again, restarts evaluation from the last closed bucket.',
      body: updatePolicySchema,
      responses: { 200: { description: 'The updated policy.', schema: policyResponseSchema }, ...errors },
    },
    async (ctx, { body }) => {
      const { policy_id: _p, user_id: _u, workspace_id: _w, created_at: _c, updated_at: _up, key, ...changes } = body;
      const workspaceId = workspaceOf(ctx);
      const updated = await writeWithKey(postgres, 'policies', workspaceId, key, (db) =>
        updatePolicy(db, workspaceId, ctx.params.policyID!, changes, timezones),
      );
      ctx.body = policyJson(updated);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/:policyID',
      summary: 'Delete a policy',
      description: 'It is no longer evaluated. Its alerts stay readable and can still be resolved or archived.',
      responses: { 204: { description: 'Deleted.' }, ...errors },
    },
    async (ctx) => {
      await deletePolicy(postgres, workspaceOf(ctx), ctx.params.policyID!);
      ctx.status = 204;
    },
  );

  api.add(
    {
      method: 'post',
      path: '/:policyID/evaluate',
      summary: 'Evaluate a policy now',
      description:
        "Evaluates the last bucket closed before `at` (default now; at most 30 days back and 1 day ahead, a later `at` than now read as now) and applies the verdict with every rule of the policy: a breach that completes the pending run raises or updates the open alert, a bucket that no longer breaches (past the recovery threshold, if any) resolves it. Works on disabled policies too; the worker's own progress is not moved.",
      body: evaluateBodySchema,
      responses: { 200: { description: 'The verdict.', schema: evaluationResponseSchema }, ...errors },
    },
    async (ctx, { body }) => {
      const at = body.at === undefined ? undefined : inDataRange('/at', body.at, Date.now());
      ctx.body = manualEvaluationJson(await evaluator.evaluateLastClosedBucket(workspaceOf(ctx), ctx.params.policyID!, at));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/backtest',
      summary: 'Backtest a policy before creating it',
      description: `${backtestDescription} The policy is checked as a create would check it.`,
      body: backtestDraftBodySchema,
      responses: { 200: { description: 'What the policy would have raised.', schema: backtestResponseSchema }, ...errors },
    },
    async (ctx, { body }) => {
      ctx.body = await evaluator.backtest(workspaceOf(ctx), { draft: body.policy }, backtestRange(body));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/test',
      summary: 'Unit-test a policy on given series',
      description:
        "As promtool test rules: the policy (checked as a create would check it) judged on exactly the records the series give, with every rule applied (pending runs, recovery threshold, no data, comparison; a fleet policy per group), the buckets' numbers aggregated by the engine from those records alone. At each expect[].at, the alerts open once every bucket closed by then has been judged are compared with those expected. Nothing is stored, nothing is sent.",
      body: unitTestBodySchema,
      responses: { 200: { description: 'Each expectation, passed or not, with what was got.', schema: unitTestResponseSchema }, ...errors },
    },
    async (ctx, { body }) => {
      const workspaceId = workspaceOf(ctx);
      const policy = await withEventId(postgres, workspaceId, body.policy, '/policy');
      ctx.body = await evaluator.unitTest(workspaceId, policy, body.series, body.expect);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/:policyID/backtest',
      summary: 'Backtest a policy',
      description: `${backtestDescription} A disabled policy can be backtested too.`,
      body: backtestBodySchema,
      responses: { 200: { description: 'What the policy would have raised.', schema: backtestResponseSchema }, ...errors },
    },
    async (ctx, { body }) => {
      ctx.body = await evaluator.backtest(workspaceOf(ctx), { policyId: ctx.params.policyID! }, backtestRange(body));
    },
  );

  return api;
}
