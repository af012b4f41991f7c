// Errors of the HTTP protocol itself (a body too large, a wrong content type, a method the
// route does not allow): they have no meaning outside HTTP, so they carry their status.
import type { ErrorDetail } from '../errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    /** Extra headers for the response, e.g. Allow. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra top-level fields for the error body, beside `error`. */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The one Retry-After rule: whole seconds, at least 1, and an answer that says "later" is never cached. */
export function retryAfterHeaders(seconds: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil(seconds))), 'Cache-Control': 'no-store' };
}
