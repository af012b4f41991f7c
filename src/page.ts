// A slice of a list that is sorted newest first: what list operations take, whoever calls them.

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

/** The page a list request asks for, with the defaults (the first 100) filled in. */
export function pageOf(request: { readonly limit?: number; readonly offset?: number }): Page {
  return { limit: request.limit ?? DEFAULT_PAGE_LIMIT, offset: request.offset ?? 0 };
}
