// Builds the Koa app from its dependencies; it does not listen. Which parts of the
// interface an app serves depends on the process role (see service.ts).
import Koa from 'koa';
import type Router from '@koa/router';
import type { TokenAuthenticator } from './auth/tokens.js';
import type { Config } from './config.js';
import type { TimezoneCatalog } from './events/timezones.js';
import type { EventDirectory } from './ingest/eventDirectory.js';
import type { LogIngestor } from './ingest/logIngestor.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { Stores } from './stores/index.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import { adminRoutes } from './http/admin/routes.js';
import { alertRoutes } from './http/alerts/routes.js';
import { analyticsRoutes } from './http/analytics/routes.js';
import type { AppState } from './http/context.js';
import { eventRoutes } from './http/events/routes.js';
import { healthRoutes } from './http/health/routes.js';
import { logRoutes } from './http/logs/routes.js';
import { policyRoutes } from './http/policies/routes.js';
import { authenticate } from './http/middleware/authenticate.js';
import { errorHandler } from './http/middleware/errorHandler.js';
import { jsonBody } from './http/middleware/jsonBody.js';
import { requestContext } from './http/middleware/requestContext.js';

export interface AppDeps {
  readonly config: Config;
  readonly stores: Stores;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tokens: TokenAuthenticator;
  readonly directory: EventDirectory;
  readonly timezones: TimezoneCatalog;
  /** Present in processes that ingest logs. */
  readonly ingestor: LogIngestor | null;
}

/** control: the REST API and admin API; logs: POST /v1.0/logs. */
export type Plane = 'control' | 'logs';

export function buildApp(deps: AppDeps, planes: ReadonlySet<Plane>): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errorHandler logs what matters

  app.use(requestContext(deps.logger, deps.metrics));
  app.use(errorHandler(deps.logger));

  const health = healthRoutes(deps.stores, deps.metrics);
  app.use(health.routes());
  // The admin router answers only its own routes; anything else falls through to auth.
  if (planes.has('control')) app.use(adminRoutes(deps.config.adminToken, deps.stores).routes());

  // Everything below needs a workspace token, including routes that do not exist.
  app.use(authenticate(deps.tokens));
  app.use(jsonBody());

  const routers: Router<AppState>[] = [];
  if (planes.has('logs') && deps.ingestor) routers.push(logRoutes(deps.ingestor, deps.metrics));
  if (planes.has('control')) {
    const { ingestor } = deps;
    const betweenInserts = <R>(fn: () => Promise<R>) => (ingestor ? ingestor.runExclusive(fn) : fn());
    routers.push(eventRoutes({ stores: deps.stores, directory: deps.directory, timezones: deps.timezones, betweenInserts }));
    routers.push(analyticsRoutes(deps.stores).router);
    const { postgres, clickhouse } = deps.stores;
    const evaluator = new PolicyEvaluator({ postgres, clickhouse, graceMs: deps.config.evalGraceMs });
    routers.push(policyRoutes({ postgres, evaluator }).router, alertRoutes({ postgres }).router);
  }
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods({ throw: true }));
  return app;
}
