import type Router from '@koa/router';
import { invalid } from '../errors.js';
import { isUuid } from '../ids.js';
import type { AppState } from './context.js';
import { queryValidator } from './validation.js';

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

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export const MAX_PAGE_LIMIT = 1000;

export const pageQueryProperties = {
  limit: { type: 'integer', minimum: 0, maximum: MAX_PAGE_LIMIT },
  offset: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
} as const;

const validatePage = queryValidator<Partial<Page>>({
  type: 'object',
  properties: pageQueryProperties,
});

/** limit (default 100, at most 1000) and offset (default 0) of a list request. */
export function pageOf(query: unknown): Page {
  const { limit = 100, offset = 0 } = validatePage({ ...(query as object) });
  return { limit, offset };
}
