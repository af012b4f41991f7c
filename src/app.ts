// Builds the Koa app from its dependencies; it does not listen. Which parts of the
// interface an app serves depends on the process role (see service.ts); the OpenAPI
// document describes all of them, whatever this process serves.
import Koa from 'koa';
import type { TokenAuthenticator } from './auth/tokens.js';
import type { Config } from './config.js';
import { deliverySettings } from './delivery/settings.js';
import type { EventDirectory } from './events/eventDirectory.js';
import type { EventsDeps } from './events/operations.js';
import type { TimezoneCatalog } from './events/timezones.js';
import type { LogIngestor } from './ingest/logIngestor.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { packageVersion } from './paths.js';
import type { Stores } from './stores/index.js';
import { PolicyEvaluator } from './evaluation/evaluator.js';
import { adminRoutes } from './http/admin/routes.js';
import { alertRoutes } from './http/alerts/routes.js';
import { analyticsRoutes } from './http/analytics/routes.js';
import type { ApiRouter } from './http/apiRouter.js';
import type { AppState } from './http/context.js';
import { deliveryHistoryRoutes } from './http/deliveries/routes.js';
import { destinationRoutes } from './http/destinations/routes.js';
import { eventRoutes } from './http/events/routes.js';
import { healthRoutes } from './http/health/routes.js';
import { logRoutes } from './http/logs/routes.js';
import { policyRoutes } from './http/policies/routes.js';
import { authenticate } from './http/middleware/authenticate.js';
import { errorHandler } from './http/middleware/errorHandler.js';
import { jsonBody } from './http/middleware/jsonBody.js';
import { requestContext } from './http/middleware/requestContext.js';
import { openApiRouter } from './http/openapi.js';

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

export interface ApiRouters {
  /** No token: probes, scrapers and the OpenAPI document, on every plane. */
  readonly open: readonly ApiRouter[];
  /** Behind ADMIN_TOKEN, on the control plane. */
  readonly admin: ApiRouter;
  /** Behind a workspace token, each on its plane. */
  readonly workspace: readonly { readonly plane: Plane; readonly router: ApiRouter }[];
}

/** Every router of the API. Building one has no side effects: unserved ones are only documented. */
export function apiRouters(deps: AppDeps): ApiRouters {
  const events: EventsDeps = {
    postgres: deps.stores.postgres,
    clickhouse: deps.stores.clickhouse,
    directory: deps.directory,
    timezones: deps.timezones,
    inserts: deps.ingestor,
  };
  const { config, stores, metrics, logger } = deps;
  const delivery = { postgres: stores.postgres, settings: deliverySettings(config), retryScheduleMs: config.delivery.retryScheduleMs, metrics, logger };
  const { postgres, clickhouse } = stores;
  const evaluator = new PolicyEvaluator({ postgres, clickhouse, graceMs: config.evalGraceMs });
  const workspace = [
    { plane: 'logs', router: logRoutes(deps.ingestor, deps.metrics) },
    { plane: 'control', router: eventRoutes(events) },
    { plane: 'control', router: analyticsRoutes(deps.stores) },
    { plane: 'control', router: policyRoutes({ postgres, evaluator }) },
    { plane: 'control', router: alertRoutes({ postgres }) },
    { plane: 'control', router: destinationRoutes({ providers: deps.config, delivery }) },
    { plane: 'control', router: deliveryHistoryRoutes(deps.stores.postgres) },
  ] as const;
  const health = healthRoutes(deps.stores, deps.metrics);
  const admin = adminRoutes(deps.config.adminToken, deps.stores);
  const openApi = openApiRouter([health, admin, ...workspace.map((w) => w.router)], packageVersion);
  return { open: [health, openApi], admin, workspace };
}

export function buildApp(deps: AppDeps, planes: ReadonlySet<Plane>): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errorHandler logs what matters

  app.use(requestContext(deps.logger, deps.metrics));
  app.use(errorHandler(deps.logger));

  const routers = apiRouters(deps);
  // Another method on an open path answers 405 here, before authentication would ask for a token.
  for (const open of routers.open) app.use(open.refuseOtherMethods()).use(open.router.routes());
  // The admin router answers only its own routes; anything else falls through to auth.
  if (planes.has('control')) app.use(routers.admin.router.routes());

  // Everything below needs a workspace token, including routes that do not exist.
  app.use(authenticate(deps.tokens));
  app.use(jsonBody());
  for (const { plane, router } of routers.workspace) {
    if (planes.has(plane)) app.use(router.router.routes()).use(router.router.allowedMethods({ throw: true }));
  }
  return app;
}
