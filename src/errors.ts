// Every error a client can see is an HttpError: a status, a stable snake_case code,
// a readable message and, where they apply, the problems one by one with their JSON paths.

export interface ErrorDetail {
  /** JSON Pointer into the request (body, query or path), e.g. "/3/value". */
  readonly path: string;
  readonly message: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    /** Extra headers for the response, e.g. Retry-After. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Extra top-level fields for the error body, beside `error`. */
    readonly extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (code: string, message: string, details: readonly ErrorDetail[] = []) =>
  new HttpError(400, code, message, details);

export const validationFailed = (details: readonly ErrorDetail[], message = 'The request is invalid; see details.') =>
  new HttpError(400, 'validation_failed', message, details);

export const unauthorized = (message = 'A valid bearer token is required.') => new HttpError(401, 'unauthorized', message);

export const notFound = (what = 'resource') => new HttpError(404, 'not_found', `No such ${what}.`);

export const conflict = (code: string, message: string) => new HttpError(409, code, message);

export const serviceUnavailable = (code: string, message: string, retryAfterSeconds: number) =>
  new HttpError(503, code, message, [], { 'Retry-After': String(retryAfterSeconds) });
