// The admin API: issues workspace tokens and runs analysts' read-only SQL on ClickHouse
// (the embedded engine lives inside this process). Guarded by ADMIN_TOKEN; absent without it.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { issueToken, secretsEqual } from '../../auth/tokens.js';
import { runAnalystQuery } from '../../analytics/analystSql.js';
import { notFound, unauthorized } from '../../errors.js';
import type { Stores } from '../../stores/index.js';
import type { AppState } from '../context.js';
import { bearerToken } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/jsonBody.js';
import { bodyValidator } from '../validation.js';
import { analystQuerySchema, issueTokenSchema, type AnalystQueryBody, type IssueTokenBody } from './schemas.js';

export const ADMIN_PREFIX = '/v1.0/admin';

const validateIssueToken = bodyValidator<IssueTokenBody>(issueTokenSchema);
const validateAnalystQuery = bodyValidator<AnalystQueryBody>(analystQuerySchema);

function requireAdmin(adminToken: string | null): Middleware<AppState> {
  return async (ctx, next) => {
    if (adminToken === null) throw notFound('route');
    const token = bearerToken(ctx.get('Authorization'));
    if (token === null || !secretsEqual(token, adminToken)) throw unauthorized('The admin token is not valid.');
    await next();
  };
}

export function adminRoutes(adminToken: string | null, stores: Stores): Router<AppState> {
  const router = new Router<AppState>({ prefix: ADMIN_PREFIX });
  router.use(requireAdmin(adminToken), jsonBody());

  router.post('/tokens', async (ctx) => {
    const body = validateIssueToken(ctx.request.body);
    const issued = await stores.postgres.transaction((tx) => issueToken(tx, body.user_id, body.email));
    ctx.status = 201;
    ctx.body = { token: issued.token, user_id: issued.workspaceId };
  });

  // Rows as a JSON array; one checked SELECT on a readonly=1 session with bounded result size and time.
  router.post('/sql', async (ctx) => {
    const { query } = validateAnalystQuery(ctx.request.body);
    ctx.body = await runAnalystQuery(stores.clickhouse, query);
  });

  return router;
}
