// The admin API: issues workspace tokens and runs analysts' read-only SQL on ClickHouse
// (the embedded engine lives inside this process). Guarded by ADMIN_TOKEN; absent without it.
import type { Middleware } from 'koa';
import { issueToken, secretsEqual } from '../../auth/tokens.js';
import { runAnalystQuery } from '../../analytics/analystSql.js';
import { notFound, unauthorized } from '../../errors.js';
import type { Stores } from '../../stores/index.js';
import { ApiRouter } from '../apiRouter.js';
import type { AppState } from '../context.js';
import { bearerToken } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/jsonBody.js';
import { analystQuerySchema, analystRowsSchema, issuedTokenSchema, issueTokenSchema } from './schemas.js';

export const ADMIN_PREFIX = '/v1.0/admin';

function requireAdmin(adminToken: string | null): Middleware<AppState> {
  return async (ctx, next) => {
    if (adminToken === null) throw notFound('route');
    const token = bearerToken(ctx.get('Authorization'));
    if (token === null || !secretsEqual(token, adminToken)) throw unauthorized('The admin token is not valid.');
    await next();
  };
}

const adminErrors = {
  400: { description: 'Invalid input; nothing was changed.' },
  401: { description: 'The admin token is missing or wrong.' },
  404: { description: 'ADMIN_TOKEN is not set: there is no admin API.' },
};

export function adminRoutes(adminToken: string | null, stores: Stores): ApiRouter {
  const api = new ApiRouter('admin', ADMIN_PREFIX);
  api.router.use(requireAdmin(adminToken), jsonBody());
  return api
    .add(
      {
        method: 'post',
        path: '/tokens',
        auth: 'admin',
        summary: 'Issue a workspace token',
        description: 'Creates the workspace on first use; each call issues one more token. Only its hash is stored.',
        body: issueTokenSchema,
        responses: { 201: { description: 'The new token, shown this once.', schema: issuedTokenSchema }, ...adminErrors },
      },
      async (ctx, { body }) => {
        const issued = await stores.postgres.transaction((tx) => issueToken(tx, body.user_id, body.email));
        ctx.status = 201;
        ctx.body = { token: issued.token, user_id: issued.workspaceId };
      },
    )
    .add(
      {
        method: 'post',
        path: '/sql',
        auth: 'admin',
        summary: 'Run one read-only SELECT on ClickHouse',
        description:
          'Exactly one SELECT (or an EXPLAIN of one) over the service database: no table functions, other databases, ' +
          'or functions that read files or dictionaries (400 sql_not_allowed). readonly=1, at most 10,000 rows, 30 s (400 sql_timeout) ' +
          'and ANALYST_MAX_MEMORY_BYTES per query (400 sql_memory_limit); ANALYST_MAX_CONCURRENT_QUERIES run at once, as many again wait their turn, and beyond that ' +
          '429 analyst_busy with Retry-After.',
        body: analystQuerySchema,
        responses: {
          200: { description: 'The rows.', schema: analystRowsSchema },
          ...adminErrors,
          429: { description: 'analyst_busy: every analyst turn runs and the queue is full; nothing was run. Retry-After says when to retry.' },
        },
      },
      async (ctx, { body }) => {
        ctx.body = await runAnalystQuery(stores.clickhouse, body.query);
      },
    );
}
