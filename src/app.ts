// Builds the Koa app from its dependencies; it does not listen. Which parts of the
// interface an app serves depends on the process role (see service.ts); the OpenAPI
// document describes all of them, whatever this process serves.
import Koa from 'koa';
import { packageVersion } from './paths.js';
import type { Services } from './services.js';
import { adminRoutes } from './http/admin/routes.js';
import { alertRoutes } from './http/alerts/routes.js';
import { analyticsRoutes } from './http/analytics/routes.js';
import type { ApiRouter } from './http/apiRouter.js';
import type { AppState } from './http/context.js';
import { deliveryHistoryRoutes } from './http/deliveries/routes.js';
import { destinationRoutes } from './http/destinations/routes.js';
import { eventRoutes } from './http/events/routes.js';
import { healthRoutes } from './http/health/routes.js';
import { StreamIngestor } from './ingest/stream/streamIngestor.js';
import { logRoutes } from './http/logs/routes.js';
import { metricRoutes } from './http/metrics/routes.js';
import { policyRoutes } from './http/policies/routes.js';
import { publicRoutes } from './http/public/routes.js';
import { AddressRateLimiter } from './http/public/addressRateLimit.js';
import { ackRoutes } from './http/ack/routes.js';
import { escalationPolicyRoutes } from './http/escalation-policies/routes.js';
import { ESCALATION_LIMITS } from './escalation/model.js';
import { silenceRoutes } from './http/silences/routes.js';
import { authenticate } from './http/middleware/authenticate.js';
import { errorHandler } from './http/middleware/errorHandler.js';
import { idempotentCreates } from './http/middleware/idempotentCreates.js';
import { jsonBody } from './http/middleware/jsonBody.js';
import { admitLogs } from './http/logs/admission.js';
import { isLogBatchRequest } from './http/logs/request.js';
import { requestContext } from './http/middleware/requestContext.js';
import { routeGuard } from './http/middleware/routeGuard.js';
import { securityHeaders } from './http/middleware/securityHeaders.js';
import { openApiRouter } from './http/openapi.js';
import { consolePaths, webConsole } from './http/web/webConsole.js';

/** control: the REST API, the admin API, share links and the web console; logs: POST /v1.0/logs. */
export type Plane = 'control' | 'logs';

export interface ApiRouters {
  /** No token: probes, scrapers and the OpenAPI document, on every plane. */
  readonly open: readonly ApiRouter[];
  /** No token, on the control plane: share links. */
  readonly sharing: ApiRouter;
  /** No token, on the control plane: acknowledge links. */
  readonly acknowledging: ApiRouter;
  /** Behind ADMIN_TOKEN, on the control plane. */
  readonly admin: ApiRouter;
  /** Behind a workspace token, each on its plane. */
  readonly workspace: readonly { readonly plane: Plane; readonly router: ApiRouter }[];
}

/** Every router of the API. Building one has no side effects: unserved ones are only documented. */
export function apiRouters(services: Services): ApiRouters {
  const { config, stores, metrics, ingestor, evaluator, delivery } = services;
  const { postgres } = stores;
  const workspace = [
    { plane: 'logs', router: logRoutes(ingestor, metrics, config.ingest.maxBatchRecords) },
    { plane: 'logs', router: metricRoutes(ingestor, metrics) },
    { plane: 'control', router: eventRoutes(services.events, services.links) },
    { plane: 'control', router: analyticsRoutes(stores) },
    { plane: 'control', router: policyRoutes({ postgres, evaluator, maxPerWorkspace: config.policies.maxPerWorkspace }) },
    { plane: 'control', router: alertRoutes({ postgres }) },
    { plane: 'control', router: destinationRoutes({ channels: config.channels, delivery, maxPerWorkspace: config.destinations.maxPerWorkspace }) },
    { plane: 'control', router: deliveryHistoryRoutes(postgres) },
    { plane: 'control', router: silenceRoutes(services.silences) },
    { plane: 'control', router: escalationPolicyRoutes({ postgres, maxPerWorkspace: ESCALATION_LIMITS.perWorkspace }) },
  ] as const;
  const health = healthRoutes(stores, metrics, ingestor instanceof StreamIngestor ? ingestor : null);
  const publicLimiter = new AddressRateLimiter(config.http.publicRequestsPerMinute);
  const sharing = publicRoutes(stores, publicLimiter);
  const acknowledging = ackRoutes(postgres, publicLimiter);
  const admin = adminRoutes(config.http.adminToken, stores);
  const openApi = openApiRouter([health, sharing, acknowledging, admin, ...workspace.map((w) => w.router)], packageVersion);
  return { open: [health, openApi], sharing, acknowledging, admin, workspace };
}

export function buildApp(services: Services, planes: ReadonlySet<Plane>): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errorHandler logs what matters

  app.use(requestContext(services.logger, services.metrics));
  app.use(errorHandler(services.logger));
  app.use(securityHeaders());

  const routers = apiRouters(services);
  const workspaceRouters = routers.workspace.filter(({ plane }) => planes.has(plane)).map(({ router }) => router);
  // Unknown paths (404) and methods a path does not serve (405), before authentication would ask for a token.
  const controlRouters = planes.has('control')
    ? [routers.sharing, routers.acknowledging, ...(services.config.http.adminToken === null ? [] : [routers.admin])]
    : [];
  app.use(routeGuard([...routers.open, ...(planes.has('control') ? [consolePaths] : []), ...controlRouters, ...workspaceRouters]));
  for (const open of routers.open) app.use(open.router.routes());
  if (planes.has('control')) {
    app.use(webConsole());
    app.use(routers.sharing.router.routes());
    app.use(routers.acknowledging.router.routes());
    // The admin router answers only its own routes; anything else falls through to auth.
    app.use(routers.admin.router.routes());
  }

  // Everything below needs a workspace token.
  app.use(authenticate(services.tokens));
  // Before the body is read: refusing an overloading client must cost next to nothing.
  if (planes.has('logs') && services.admission) app.use(admitLogs(services.admission));
  // A log batch's body is read by its route, and parsed in worker threads (http/logs/batchParsers.ts).
  app.use(jsonBody(isLogBatchRequest));
  // After the body is parsed: a POST that creates, with an Idempotency-Key, runs once.
  app.use(idempotentCreates(services.stores.postgres, workspaceRouters, services.logger));
  for (const router of workspaceRouters) app.use(router.router.routes());
  return app;
}
