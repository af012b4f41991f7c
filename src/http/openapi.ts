// The OpenAPI 3.1 document of the API, built from the RouteSpecs the routers serve (see
// apiRouter.ts), and served without a token at GET /v1.0/openapi.json.
import { ApiRouter, createsResource, type DocumentedRoute } from './apiRouter.js';
import { emptyBodySchema } from './validation.js';

export const OPENAPI_PATH = '/v1.0/openapi.json';

const errorBodySchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    message: { type: 'string', description: 'The same text as error.message (the JavaScript SDK shows only this).' },
    error: {
      type: 'object',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'string', description: 'Stable snake_case code.' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: { path: { type: 'string', description: 'JSON Pointer into the request.' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

/** Every path answers another method with 405 and the methods it serves. */
const methodNotAllowed = {
  description: 'The path does not serve this method; Allow lists the ones it does.',
  headers: { Allow: { description: 'The methods this path serves, e.g. "GET, HEAD, PUT, DELETE".', schema: { type: 'string' } } },
};

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key from the same workspace within 24 hours gets the first (successful) answer again, same status and body, ' +
    'and creates nothing (header Idempotent-Replayed: true); the same key with another body is 422 idempotency_key_reused. 1–255 printable ASCII characters.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

const idempotencyResponses = {
  409: { description: 'Conflict; code idempotency_key_in_use: the first request with this Idempotency-Key is still being answered (Retry-After).' },
  422: { description: 'idempotency_key_reused: this Idempotency-Key was used for another request in the last 24 hours.' },
};

/** koa-router's '/events/:eventID/logs' as OpenAPI's '/events/{eventID}/logs'. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operation(route: DocumentedRoute) {
  const { spec } = route;
  const pathParams = [...route.fullPath.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  const query = (spec.query ?? spec.handlerValidatedQuery) as { properties?: Record<string, object>; required?: readonly string[] } | undefined;
  // A parameter's description is shown beside it by API tooling (its schema keeps it too).
  const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    ...('description' in schema && typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
  // A create takes an Idempotency-Key (middleware/idempotentCreates.ts).
  const idempotencyParams = createsResource(spec) ? [idempotencyKeyParameter] : [];
  const auth = spec.auth ?? 'workspace';
  // Every route behind a token can answer 401, whatever else it declares.
  const unauthorized = auth === 'none' ? {} : { 401: { description: 'The bearer token is missing or not valid.' } };
  const idempotency = createsResource(spec) ? idempotencyResponses : {};
  const responses = Object.fromEntries(
    Object.entries({ ...unauthorized, ...idempotency, ...spec.responses, 405: methodNotAllowed }).map(([status, response]) => {
      const schema = response.schema ?? (Number(status) >= 400 ? { $ref: '#/components/schemas/Error' } : undefined);
      const content = schema ? { content: { [response.contentType ?? 'application/json']: { schema } } } : {};
      const headers = 'headers' in response ? { headers: response.headers } : {};
      return [status, { description: response.description, ...headers, ...content }];
    }),
  );
  const body = spec.body ?? spec.handlerValidatedBody;
  return {
    tags: [route.tag],
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    operationId: `${spec.method}${openApiPath(route.fullPath).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(pathParams.length + queryParams.length + idempotencyParams.length > 0 ? { parameters: [...pathParams, ...queryParams, ...idempotencyParams] } : {}),
    // A route that takes no body (emptyBodySchema) may be called without one.
    ...(body ? { requestBody: { required: body !== emptyBodySchema, content: { 'application/json': { schema: body } } } } : {}),
    responses,
    security: auth === 'none' ? [] : [{ [auth === 'admin' ? 'adminToken' : 'workspaceToken']: [] }],
  };
}

export function buildOpenApiDocument(routers: readonly ApiRouter[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routers.flatMap((r) => r.routes)) {
    const key = openApiPath(route.fullPath);
    paths[key] = { ...paths[key], [route.spec.method]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'alertmon',
      version,
      description: 'Agents send numeric logs; alertmon keeps rollups, compares windows, evaluates policies and delivers alerts.',
      license: { name: 'UNLICENSED', identifier: 'LicenseRef-UNLICENSED' },
    },
    // Relative: the paths are served by the very service this document comes from.
    servers: [{ url: '/', description: 'This service (the origin this document was read from).' }],
    paths,
    components: {
      schemas: { Error: errorBodySchema },
      securitySchemes: {
        workspaceToken: { type: 'http', scheme: 'bearer', description: 'A workspace token (chp_…), from POST /v1.0/admin/tokens.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the deployment.' },
      },
    },
  };
}

/** GET /v1.0/openapi.json: the document of the given routers and of itself, built at once. */
export function openApiRouter(routers: readonly ApiRouter[], version: string): ApiRouter {
  const self = new ApiRouter('meta', '');
  let document: object = {};
  self.add(
    {
      method: 'get',
      path: OPENAPI_PATH,
      auth: 'none',
      summary: 'This document',
      description: 'The OpenAPI 3.1 document of the whole API, whichever parts this process serves.',
      responses: { 200: { description: 'OpenAPI 3.1', schema: { type: 'object' } } },
    },
    (ctx) => {
      ctx.body = document;
    },
  );
  document = buildOpenApiDocument([...routers, self], version);
  return self;
}
