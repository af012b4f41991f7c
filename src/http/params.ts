import type Router from '@koa/router';
import { invalid } from '../errors.js';
import { isUuid } from '../ids.js';
import { MAX_PAGE_LIMIT } from '../page.js';
import type { AppState } from './context.js';

/** Every `…ID` path segment must be a UUID (400 invalid_id); it is passed on lower-cased. */
export function requireUuidParams(router: Router<AppState>, names: readonly string[]): void {
  for (const name of names) {
    router.param(name, async (value, ctx, next) => {
      if (!isUuid(value)) throw invalid('invalid_id', `${name} must be a UUID.`, [{ path: `/${name}`, message: 'must be a UUID' }]);
      ctx.params[name] = value.toLowerCase();
      return next();
    });
  }
}

const offsetProperty = { type: 'integer', minimum: 0, maximum: 2_147_483_647, description: 'Skip this many items first (default 0).' } as const;

/** `limit` (default 100) and `offset` (default 0) of a list request; see pageOf in src/page.ts. */
export const pageQueryProperties = {
  limit: { type: 'integer', minimum: 0, maximum: MAX_PAGE_LIMIT, description: 'At most this many items (default 100).' },
  offset: offsetProperty,
} as const;

/** `limit` (default: every item) and `offset` of a list that is whole by default; see pageOrAll in src/page.ts. */
export const wholeListQueryProperties = {
  limit: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_PAGE_LIMIT,
    description: 'At most this many items (default: every item of the workspace, from offset on).',
  },
  offset: offsetProperty,
} as const;
