// Errors that a client or a worker can act on. Domain modules (src/<domain>/) throw an
// AppError: a kind (what went wrong, in the domain's terms), a stable snake_case code, a
// readable message and, where they apply, the problems one by one with their JSON paths.
// Only the HTTP layer turns a kind into a status (src/http/middleware/errorHandler.ts), so
// workers and scripts call the same operations and read the same codes without HTTP.

export interface ErrorDetail {
  /** JSON Pointer into the input (body, query or path), e.g. "/3/value". */
  readonly path: string;
  readonly message: string;
}

/** A key as one segment of an ErrorDetail's path (JSON Pointer, RFC 6901): `~` as `~0`, `/` as `~1`. */
export const pointerSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

export type ErrorKind =
  /** The input breaks a rule; nothing was changed. */
  | 'invalid'
  /** No valid credentials. */
  | 'unauthorized'
  /** The resource does not exist in this workspace. */
  | 'not_found'
  /** The input is valid but clashes with the current state. */
  | 'conflict'
  /** Temporarily unable; retrying later may succeed. */
  | 'unavailable'
  /** Too much of this work runs or waits already; retry after the given delay. */
  | 'busy'
  /** The input is larger than a bound this service holds to; nothing was changed. */
  | 'too_large'
  /** A downstream provider refused or failed. */
  | 'upstream_failed';

export interface AppErrorOptions {
  /** Seconds a client should wait before retrying (kind `unavailable`). */
  readonly retryAfterSeconds?: number;
  /** Extra top-level fields for the error body, beside `error`. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
    readonly options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalid = (code: string, message: string, details: readonly ErrorDetail[] = []) => new AppError('invalid', code, message, details);

export const validationFailed = (details: readonly ErrorDetail[], message = 'The request is invalid; see details.') =>
  new AppError('invalid', 'validation_failed', message, details);

export const unauthorized = (message = 'A valid bearer token is required.') => new AppError('unauthorized', 'unauthorized', message);

export const notFound = (what = 'resource') => new AppError('not_found', 'not_found', `No such ${what}.`);

export const conflict = (code: string, message: string) => new AppError('conflict', code, message);

export const unavailable = (code: string, message: string, retryAfterSeconds: number) => new AppError('unavailable', code, message, [], { retryAfterSeconds });

export const tooLarge = (code: string, message: string) => new AppError('too_large', code, message);

export const busy = (code: string, message: string, retryAfterSeconds: number) => new AppError('busy', code, message, [], { retryAfterSeconds });

export const upstreamFailed = (code: string, message: string, details: readonly ErrorDetail[] = [], extra: Record<string, unknown> = {}) =>
  new AppError('upstream_failed', code, message, details, { extra });
