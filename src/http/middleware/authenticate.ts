import type { Middleware } from 'koa';
import type { TokenAuthenticator } from '../../auth/tokens.js';
import { unauthorized } from '../../errors.js';
import type { AppState } from '../context.js';

/**
 * The token of `Authorization: Bearer <token>`, or null when the header is missing or malformed.
 * The scheme is matched in any letter case (HTTP auth schemes are case-insensitive; some
 * clients send `bearer`).
 */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** Admits only requests with a workspace token; scopes the request to that workspace. */
export function authenticate(tokens: TokenAuthenticator): Middleware<AppState> {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('Authorization'));
    if (token === null) throw unauthorized('Send the header Authorization: Bearer <token>.');
    const workspaceId = await tokens.authenticate(token);
    if (workspaceId === null) throw unauthorized('The bearer token is not valid.');
    ctx.state.workspaceId = workspaceId;
    await next();
  };
}
