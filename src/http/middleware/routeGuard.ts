// Answers, before authentication, every request that no route serves: an unknown path is 404
// (token or not: the routes are no secret, the OpenAPI document lists them), a method the
// path does not serve is 405 with Allow, OPTIONS is answered with Allow. So no method a
// client or a scanner sends (TRACE, PROPFIND, QUERY, M-SEARCH…) reaches a router that would
// answer it 501, or a 500.
import type { Middleware } from 'koa';
import type { AppState } from '../context.js';
import { HttpError } from '../httpError.js';

/** Something that serves routes: an ApiRouter, or the web console's pages. */
export interface ServedPaths {
  /** The methods served at `path`; empty when none. */
  methodsAt(path: string): readonly string[];
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const rank = (method: string) => (METHOD_ORDER.includes(method) ? METHOD_ORDER.indexOf(method) : METHOD_ORDER.length);
const byMethodOrder = (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);

/** @param served everything this process serves */
export function routeGuard(served: readonly ServedPaths[]): Middleware<AppState> {
  return async (ctx, next) => {
    const allowed = [...new Set(served.flatMap((r) => r.methodsAt(ctx.path)))].sort(byMethodOrder);
    if (allowed.length === 0) throw new HttpError(404, 'not_found', 'No such route.');
    if (allowed.includes(ctx.method)) return next();
    const allow = allowed.join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not served here; use ${allow}.`, [], { Allow: allow });
  };
}
