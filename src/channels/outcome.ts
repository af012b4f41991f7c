// What one send came to, and the one place that decides "retry or give up" from a provider's
// answer, naming the reason. The reason labels the attempt's error_message, the log line and
// the failure metric. Retried: network errors, time-outs, 429 (after Retry-After) and 5xx.
// Final: other 4xx and targets the SSRF guard refuses. When a retry follows is
// src/delivery/retryPolicy.ts.

export type FailureReason =
  | 'network_error'
  | 'timeout'
  | 'rate_limited'
  | 'server_error'
  | 'rejected'
  | 'blocked_target'
  | 'not_configured'
  | 'destination_disabled'
  | 'internal_error'
  | 'smtp_temporary'
  | 'smtp_permanent'
  | 'template_error';

export interface Delivered {
  readonly result: 'delivered';
  readonly responseStatus: number | null;
}

export interface Failed {
  readonly result: 'retry' | 'final';
  readonly reason: FailureReason;
  readonly responseStatus: number | null;
  /** Readable, secrets already scrubbed. */
  readonly message: string;
  /** The provider's answer (body or SMTP reply), scrubbed and cut short. */
  readonly answer: string | null;
  /** The provider asked to wait this long (Retry-After, Telegram's retry_after). */
  readonly retryAfterMs: number | null;
}

export type Outcome = Delivered | Failed;

const MAX_ANSWER_CHARS = 500;
/** A Retry-After beyond this is treated as this: a notification a day late is no longer useful. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export const delivered = (responseStatus: number | null): Delivered => ({ result: 'delivered', responseStatus });

export function shortAnswer(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return trimmed.length > MAX_ANSWER_CHARS ? `${trimmed.slice(0, MAX_ANSWER_CHARS)}…` : trimmed;
}

/** Outcome of an HTTP answer: 2xx delivered, 429/5xx retried, other statuses final. */
export function classifyHttpStatus(status: number, answer: string | null, retryAfterMs: number | null = null): Outcome {
  if (status >= 200 && status < 300) return delivered(status);
  const said = answer === null ? '' : `: ${answer}`;
  if (status === 429) {
    return { result: 'retry', reason: 'rate_limited', responseStatus: status, message: `rate limited (HTTP 429)${said}`, answer, retryAfterMs };
  }
  if (status >= 500) {
    return { result: 'retry', reason: 'server_error', responseStatus: status, message: `provider error (HTTP ${status})${said}`, answer, retryAfterMs };
  }
  return { result: 'final', reason: 'rejected', responseStatus: status, message: `rejected (HTTP ${status})${said}`, answer, retryAfterMs: null };
}

export function failure(result: Failed['result'], reason: FailureReason, message: string, answer: string | null = null): Failed {
  return { result, reason, responseStatus: null, message, answer, retryAfterMs: null };
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined | null, now = Date.now()): number | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.min(Math.max(date - now, 0), MAX_RETRY_AFTER_MS);
}
