// One JSON POST for the HTTP channels, with got: a time-out over the whole request, no
// redirects, no retries of its own (the worker retries, with a record of each try) except one
// at once when a kept-alive connection turns out closed, and, for user-chosen targets, the
// SSRF guard's lookup.
import http from 'node:http';
import https from 'node:https';
import got, { RequestError } from 'got';
import { redactKnownSecrets, secretList } from '../redaction.js';
import { classifyHttpStatus, failure, parseRetryAfter, shortAnswer, type Outcome } from './outcome.js';
import { assertPublicUrl, BlockedTargetError, guardedLookup } from './ssrfGuard.js';
import type { ChannelSettings } from './model.js';

/**
 * Connections kept open between sends: a storm to one target reuses them rather than opening
 * one per notification. Guarded requests (user-chosen targets) have agents of their own, so
 * a connection is reused only by requests it was checked for.
 */
const agents = {
  guarded: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
  trusted: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

/**
 * A connection kept open between sends may have been closed by the target a moment before it
 * is reused (a server's idle time-out, 5 s in Node's): the request then fails with ECONNRESET
 * or EPIPE before any answer. That says nothing about the target, and waiting for the
 * worker's first retry (10 s) would delay the page, so got sends it once more at once (on
 * another connection). Nothing else is retried here; the receiver deduplicates by webhook-id.
 */
const STALE_CONNECTION_RETRY = {
  limit: 1,
  methods: ['POST' as const],
  statusCodes: [],
  errorCodes: ['ECONNRESET', 'EPIPE'],
  calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue > 0 ? 1 : 0),
};

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
  readonly retryAfterHeader: string | undefined;
}

export interface PostOptions {
  readonly headers?: Record<string, string>;
  /** Apply the SSRF guard (webhook targets); provider origins come from configuration. */
  readonly guard: boolean;
  /** Redacted from every message and answer. */
  readonly secrets: readonly string[];
  /** Headers that depend on the exact body sent (signatures). */
  readonly headersForBody?: (body: string) => Record<string, string>;
  /** Reads a provider-specific retry delay from the answer body (Telegram, Discord). */
  readonly retryAfterFromBody?: (body: string) => number | null;
}

export async function postJson(url: string, payload: unknown, settings: ChannelSettings, options: PostOptions): Promise<Outcome> {
  const secrets = secretList(options.secrets);
  const scrub = (text: string) => redactKnownSecrets(text, secrets);
  const guarded = options.guard && !settings.delivery.allowPrivateTargets;
  let answer: HttpAnswer;
  try {
    if (guarded) assertPublicUrl(new URL(url));
    const body = JSON.stringify(payload);
    const response = await got.post(url, {
      body,
      headers: { 'user-agent': 'alertmon', 'content-type': 'application/json', ...options.headers, ...options.headersForBody?.(body) },
      throwHttpErrors: false,
      followRedirect: false,
      retry: STALE_CONNECTION_RETRY,
      timeout: { request: settings.delivery.timeoutMs },
      agent: guarded ? agents.guarded : agents.trusted,
      ...(guarded ? { dnsLookup: guardedLookup as never } : {}),
    });
    const retryAfter = response.headers['retry-after'];
    answer = { status: response.statusCode, body: response.body, retryAfterHeader: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  } catch (err) {
    return requestFailure(err, scrub);
  }
  const retryAfterMs = parseRetryAfter(answer.retryAfterHeader) ?? options.retryAfterFromBody?.(answer.body) ?? null;
  if (answer.status >= 300 && answer.status < 400) {
    // Redirects are not followed: a redirect could lead a guarded request anywhere.
    return { ...failure('final', 'rejected', `redirected (HTTP ${answer.status}); redirects are not followed`), responseStatus: answer.status };
  }
  return classifyHttpStatus(answer.status, shortAnswer(scrub(answer.body)), retryAfterMs);
}

function requestFailure(err: unknown, scrub: (text: string) => string): Outcome {
  const cause = err instanceof RequestError && err.cause instanceof BlockedTargetError ? err.cause : err;
  if (cause instanceof BlockedTargetError) return failure('final', 'blocked_target', `refused: ${cause.message}`);
  if (err instanceof RequestError && err.name === 'TimeoutError') return failure('retry', 'timeout', `timed out: ${scrub(err.message)}`);
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof RequestError ? err.code : undefined;
  return failure('retry', 'network_error', `network error${code ? ` (${code})` : ''}: ${scrub(message)}`);
}

/** Parses a JSON body, or null. */
export function jsonOf(body: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
