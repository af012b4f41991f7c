// Builds the Koa app from its dependencies; it does not listen. Which parts of the
// interface an app serves depends on the process role (see service.ts); the OpenAPI
// document describes all of them, whatever this process serves.
import Koa from 'koa';
import { packageVersion } from './paths.js';
import type { Services } from './services.js';
import { adminRoutes } from './http/admin/routes.js';
import { alertSourceRoutes } from './http/alert-sources/routes.js';
import { alertmanagerRoutes } from './http/alertmanager/routes.js';
import { resolveAlertsOfSource } from './alertsources/receive.js';
import { alertRoutes } from './http/alerts/routes.js';
import { rankedAnalyticsRoutes } from './http/analytics/rankedRoutes.js';
import { analyticsRoutes } from './http/analytics/routes.js';
import { ApiRouter, type DocumentedRoute } from './http/apiRouter.js';
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
import { dimensionRoutes } from './http/dimensions/routes.js';
import { seriesRoutes } from './http/series/routes.js';
import { calendarRoutes } from './http/ical/routes.js';
import { configRoutes } from './http/config/routes.js';
import { isConfigDocumentRequest } from './http/config/documentBody.js';
import { peopleRoutes } from './http/people/routes.js';
import { scheduleRoutes } from './http/schedules/routes.js';
import { authenticate } from './http/middleware/authenticate.js';
import { errorHandler } from './http/middleware/errorHandler.js';
import { idempotentCreates } from './http/middleware/idempotentCreates.js';
import { jsonBody } from './http/middleware/jsonBody.js';
import { admitLogs } from './http/logs/admission.js';
import { isLogBatchRequest } from './http/logs/request.js';
import { requestContext } from './http/middleware/requestContext.js';
import { routeGuard } from './http/middleware/routeGuard.js';
import { settleUnreadBody } from './http/requestBody.js';
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
  /** No token, on the control plane: schedules' calendar feeds. */
  readonly calendars: ApiRouter;
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
    { plane: 'logs', router: logRoutes(services.intake, config.ingest.maxBatchRecords) },
    { plane: 'logs', router: metricRoutes(services.intake) },
    { plane: 'control', router: eventRoutes(services.events, services.links) },
    { plane: 'control', router: analyticsRoutes(stores) },
    { plane: 'control', router: policyRoutes({ postgres, evaluator, maxPerWorkspace: config.policies.maxPerWorkspace, timezones: services.timezones }) },
    { plane: 'control', router: alertRoutes({ postgres }) },
    { plane: 'control', router: destinationRoutes({ channels: config.channels, delivery, maxPerWorkspace: config.destinations.maxPerWorkspace }) },
    { plane: 'control', router: deliveryHistoryRoutes(postgres) },
    { plane: 'control', router: silenceRoutes(services.silences) },
    { plane: 'control', router: dimensionRoutes(services.dimensions) },
    { plane: 'control', router: seriesRoutes(stores) },
    { plane: 'control', router: rankedAnalyticsRoutes(stores, services.timezones) },
    { plane: 'control', router: escalationPolicyRoutes({ postgres, maxPerWorkspace: ESCALATION_LIMITS.perWorkspace }) },
    { plane: 'control', router: alertSourceRoutes({ postgres, onDelete: (tx, source) => resolveAlertsOfSource(tx, source, new Date()) }) },
    { plane: 'control', router: alertmanagerRoutes({ postgres, silences: services.silences, leases: services.receivedLeases }) },
    { plane: 'control', router: peopleRoutes(services.oncall) },
    { plane: 'control', router: scheduleRoutes(services.oncall, services.links) },
    {
      plane: 'control',
      router: configRoutes({
        postgres,
        timezones: services.timezones,
        channels: config.channels,
        maxPolicies: config.policies.maxPerWorkspace,
        maxDestinations: config.destinations.maxPerWorkspace,
        maxEscalationPolicies: ESCALATION_LIMITS.perWorkspace,
        oncall: services.oncall,
        silences: services.silences,
        dimensions: services.dimensions,
      }),
    },
  ] as const;
  const health = healthRoutes(
    stores,
    metrics,
    ingestor instanceof StreamIngestor ? ingestor : null,
    ingestor ? { probe: ingestor, stallMs: config.ingest.writerStallS * 1000 } : null,
  );
  const publicLimiter = new AddressRateLimiter(config.http.publicRequestsPerMinute);
  const sharing = publicRoutes(stores, publicLimiter);
  const acknowledging = ackRoutes(postgres, publicLimiter);
  const calendars = calendarRoutes(postgres, publicLimiter);
  const admin = adminRoutes(config.http.adminToken, stores);
  const openApi = openApiRouter([health, sharing, acknowledging, calendars, admin, ...workspace.map((w) => w.router)], packageVersion);
  return { open: [health, openApi], sharing, acknowledging, calendars, admin, workspace };
}

/** Every route of every router, whatever its kind or plane (the tests that must cover every route list them so). */
export function everyRoute(routers: ApiRouters): DocumentedRoute[] {
  return Object.values(routers)
    .flat()
    .flatMap((entry: ApiRouter | { readonly router: ApiRouter }) => (entry instanceof ApiRouter ? entry : entry.router).routes);
}

export function buildApp(services: Services, planes: ReadonlySet<Plane>): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true; // errorHandler logs what matters

  app.use(requestContext(services.logger, services.metrics));
  // Outside the error handler: once the answer is decided, a body left unread is drained or the connection closed.
  app.use(settleUnreadBody());
  app.use(errorHandler(services.logger));
  app.use(securityHeaders());

  const routers = apiRouters(services);
  const workspaceRouters = routers.workspace.filter(({ plane }) => planes.has(plane)).map(({ router }) => router);
  // Unknown paths (404) and methods a path does not serve (405), before authentication would ask for a token.
  const controlRouters = planes.has('control')
    ? [routers.sharing, routers.acknowledging, routers.calendars, ...(services.config.http.adminToken === null ? [] : [routers.admin])]
    : [];
  app.use(routeGuard([...routers.open, ...(planes.has('control') ? [consolePaths] : []), ...controlRouters, ...workspaceRouters]));
  for (const open of routers.open) app.use(open.router.routes());
  if (planes.has('control')) {
    app.use(webConsole());
    app.use(routers.sharing.router.routes());
    app.use(routers.acknowledging.router.routes());
    app.use(routers.calendars.router.routes());
    // The admin router answers only its own routes; anything else falls through to auth.
    app.use(routers.admin.router.routes());
  }

  // Everything below needs a workspace token.
  app.use(authenticate(services.tokens));
  // Before the body is read: refusing an overloading client must cost next to nothing.
  if (planes.has('logs') && services.admission) app.use(admitLogs(services.admission));
  // A log batch's body is read by its route, and parsed in worker threads (src/ingest/intake/batchParsers.ts);
  // a configuration document's by its route too (JSON or YAML, http/config/documentBody.ts).
  app.use(jsonBody((ctx) => isLogBatchRequest(ctx) || isConfigDocumentRequest(ctx)));
  // After the body is parsed: a POST that creates, with an Idempotency-Key, runs once.
  app.use(idempotentCreates(services.stores.postgres, workspaceRouters, services.logger));
  for (const router of workspaceRouters) app.use(router.router.routes());
  return app;
}
