// A slice of a list that is sorted newest first: what list operations take, whoever calls them.

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

/** A slice of a list that a client may ask for whole: `limit` null is every item from `offset` on. */
export interface PageOrAll {
  readonly limit: number | null;
  readonly offset: number;
}

interface PageRequest {
  readonly limit?: number;
  readonly offset?: number;
}

/** The page a list request asks for, with the defaults (the first 100) filled in. */
export function pageOf(request: PageRequest): Page {
  return { limit: request.limit ?? DEFAULT_PAGE_LIMIT, offset: request.offset ?? 0 };
}

/**
 * The slice a request for a list that is whole by default asks for: without `limit`, every
 * item (docs/api.md, Lists and paging). Events, policies and destinations are such lists:
 * the SDKs read them without `limit` and cannot page, and each is bounded per workspace.
 */
export function pageOrAll(request: PageRequest): PageOrAll {
  return { limit: request.limit ?? null, offset: request.offset ?? 0 };
}

/** Alerts a list without `limit` returns at most: every match, newest first. */
export const MAX_WHOLE_ALERT_LIST = 10_000;

/** The page of a list whole by default but capped: without `limit`, up to `cap` items from `offset` on. */
export function pageUpTo(request: PageRequest, cap: number): Page {
  return { limit: request.limit ?? cap, offset: request.offset ?? 0 };
}
