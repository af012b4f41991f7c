import type { ParameterizedContext } from 'koa';
import type { Workspace } from '../auth/tokens.js';

export interface AppState {
  requestId: string;
  /** Set by `authenticate` on every route that needs a workspace token. */
  workspace?: Workspace;
}

export type AppContext = ParameterizedContext<AppState>;

/** The workspace every query of this request is scoped to; only after `authenticate`. */
export function workspaceOf(ctx: AppContext): Workspace {
  const { workspace } = ctx.state;
  if (!workspace) throw new Error('workspaceOf() called on a route without authenticate()');
  return workspace;
}
