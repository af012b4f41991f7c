// Every API route is declared once, as a RouteSpec: method, path, the JSON Schemas of its
// query and body, and its responses. The same spec object validates the request (ajv),
// types the handler's input (json-schema-to-ts) and documents the route (openapi.ts), so
// the three cannot drift apart.
//
// A resource declares its router in src/http/<resource>/routes.ts, with its schemas
// (written `as const`) in schemas.ts beside it, and calls its domain (src/<domain>/):
//
//   export function policyRoutes(deps: PoliciesDeps): ApiRouter {
//     return new ApiRouter('policies', '/v1.0/policies', ['policyID'])
//       .add(
//         { method: 'post', path: '/', summary: 'Create a policy', body: createPolicySchema,
//           responses: { 201: { description: 'The policy', schema: policySchema }, 400: { description: 'Invalid' } } },
//         async (ctx, { body }) => {            // body: FromSchema<typeof createPolicySchema>
//           ctx.status = 201;
//           ctx.body = policyJson(await createPolicy(deps, workspaceOf(ctx), body));
//         },
//       );
//   }
//
// and src/app.ts lists it in apiRouters() with the plane that serves it.
import Router from '@koa/router';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { AppContext, AppState } from './context.js';
import { requireUuidParams } from './params.js';
import { refuseUnreadableQuery } from './rawText.js';
import { bodyValidator, queryValidator } from './validation.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

/** Who may call a route: a workspace token (default), the admin token, or anyone. */
export type RouteAuth = 'workspace' | 'admin' | 'none';

export interface ResponseSpec {
  readonly description: string;
  /** JSON Schema of the body; absent for an empty body. */
  readonly schema?: JSONSchema;
  /** Media type of the body when it is not JSON. */
  readonly contentType?: string;
}

export interface RouteSpec<Q extends JSONSchema = JSONSchema, B extends JSONSchema = JSONSchema> {
  readonly method: Method;
  /** Relative to the router's prefix, in koa-router syntax: '/:eventID/logs'. `…ID` params are UUIDs. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth?: RouteAuth;
  readonly query?: Q;
  readonly body?: B;
  /**
   * A body schema that is documented but not checked by the router: the handler validates
   * ctx.request.body itself, with this very schema (e.g. a log batch, record by record).
   */
  readonly handlerValidatedBody?: JSONSchema;
  /**
   * A query schema that is documented but not checked by the router: the handler reads
   * ctx.query itself (e.g. a share link, which answers every bad query with the same 404).
   */
  readonly handlerValidatedQuery?: JSONSchema;
  /** Keyed by status; error statuses use the common error body unless a schema is given. */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

/**
 * Whether a route creates a resource: a POST behind a workspace token that answers 201. Every
 * such route takes an Idempotency-Key (a retry with the same key gets the first answer again;
 * middleware/idempotentCreates.ts), so a new create cannot be left out. The admin API's token
 * issue is not one: its answer holds a token, which is never stored.
 */
export const createsResource = (spec: RouteSpec): boolean => spec.method === 'post' && (spec.auth ?? 'workspace') === 'workspace' && 201 in spec.responses;

/** What a handler receives: the validated (and, for queries, coerced) inputs. */
export interface RouteInput<Q, B> {
  readonly query: Q;
  readonly body: B;
}

// A `default` in a schema documents what the service assumes; the validator fills nothing in,
// so a defaulted property stays optional in the handler's input.
type Input<S extends JSONSchema | undefined> = S extends JSONSchema ? FromSchema<S, { keepDefaultedPropertiesOptional: true }> : undefined;

export interface DocumentedRoute {
  readonly spec: RouteSpec;
  /** The full path, prefix included, in koa-router syntax. */
  readonly fullPath: string;
  readonly tag: string;
}

/** A koa Router that remembers the spec of each route it serves. */
export class ApiRouter {
  readonly router: Router<AppState>;
  readonly routes: DocumentedRoute[] = [];
  /** Full paths of the routes that create (createsResource), as the router matches them. */
  private readonly creatingPaths = new Set<string>();

  /**
   * @param tag     the OpenAPI tag (the resource's name)
   * @param prefix  e.g. '/v1.0/events'
   * @param idParams path parameters that must be UUIDs (400 invalid_id otherwise)
   */
  constructor(
    readonly tag: string,
    readonly prefix: string,
    idParams: readonly string[] = [],
  ) {
    this.router = new Router<AppState>(prefix === '' ? {} : { prefix });
    requireUuidParams(this.router, idParams);
  }

  add<const Q extends JSONSchema | undefined = undefined, const B extends JSONSchema | undefined = undefined>(
    spec: RouteSpec<Q & JSONSchema, B & JSONSchema> & { readonly query?: Q; readonly body?: B },
    handler: (ctx: AppContext, input: RouteInput<Input<Q>, Input<B>>) => unknown,
  ): this {
    const validateQuery = spec.query === undefined ? null : queryValidator<Input<Q>>(spec.query as object);
    const validateBody = spec.body === undefined ? null : bodyValidator<Input<B>>(spec.body as object);
    const fullPath = this.prefix + (spec.path === '/' && this.prefix !== '' ? '' : spec.path);
    this.routes.push({ spec: spec as RouteSpec, fullPath, tag: this.tag });
    if (createsResource(spec as RouteSpec)) this.creatingPaths.add(fullPath);
    // A query that is not percent-encoded UTF-8, or holds NUL, would be read as what nobody sent
    // (rawText.ts). Behind a token it is refused; a route open to anyone answers it itself.
    const checksRawQuery = (spec.auth ?? 'workspace') !== 'none';
    this.router[spec.method](spec.path, async (ctx) => {
      if (checksRawQuery) refuseUnreadableQuery(ctx);
      const query = (validateQuery ? validateQuery({ ...ctx.query }) : undefined) as Input<Q>;
      const body = (validateBody ? validateBody(ctx.request.body) : undefined) as Input<B>;
      await handler(ctx, { query, body });
    });
    return this;
  }

  /** Whether a POST to `path` creates a resource (createsResource). */
  createsAt(path: string): boolean {
    return this.router
      .match(path, 'POST')
      .pathAndMethod.some((layer) => layer.methods.includes('POST') && typeof layer.path === 'string' && this.creatingPaths.has(layer.path));
  }

  /** The methods this router serves at `path` (HEAD with GET); empty when no route of it has that path. */
  methodsAt(path: string): string[] {
    const layers = this.router.match(path, 'GET').path;
    return [...new Set(layers.flatMap((layer) => layer.methods))];
  }
}
