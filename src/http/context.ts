import type { ParameterizedContext } from 'koa';

export interface AppState {
  requestId: string;
  /** Set by `authenticate` on every route that needs a workspace token. */
  workspaceId?: string;
}

export type AppContext = ParameterizedContext<AppState>;

/** The workspace every query of this request is scoped to; only after `authenticate`. */
export function workspaceOf(ctx: AppContext): string {
  const { workspaceId } = ctx.state;
  if (workspaceId === undefined) throw new Error('workspaceOf() called on a route without authenticate()');
  return workspaceId;
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (middleware/jsonBody.ts); {} when the request has none. */
    body?: unknown;
  }
}
