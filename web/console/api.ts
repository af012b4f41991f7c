// The console's one way to call the API. The workspace token is pasted once and kept in
// sessionStorage (gone when the tab closes); it is sent only as Authorization: Bearer, never
// in a URL. A 401 forgets it and sends the person back to the sign-in form.

const TOKEN_KEY = 'alertmon.token';
const SIGNED_OUT = 'alertmon:signed-out';

import type { ErrorDetail } from './openapi.js';
import { messageForPeople } from './words.js';

/** An answer of status >= 400, with the API's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly ErrorDetail[],
    /** The whole error body (a failed test send adds alert_id and destination_id). */
    readonly body: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);

export function signIn(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  window.dispatchEvent(new Event(SIGNED_OUT));
}

export function onSignedOut(listener: () => void): () => void {
  window.addEventListener(SIGNED_OUT, listener);
  return () => window.removeEventListener(SIGNED_OUT, listener);
}

/**
 * Downloads the workspace's alerting configuration as alerting.yaml (GET /v1.0/config, YAML):
 * the file a repository keeps and `npx alertmon plan` compares with (docs/as-code.md).
 */
export async function downloadConfiguration(): Promise<void> {
  const token = storedToken();
  const res = await fetch('/v1.0/config', {
    headers: { Accept: 'application/yaml', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    cache: 'no-store',
  });
  if (res.status === 401 && token) signOut();
  if (!res.ok) throw new ApiError(res.status, 'http_error', `HTTP ${res.status}`, [], {});
  const url = URL.createObjectURL(new Blob([await res.text()], { type: 'application/yaml' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: 'alerting.yaml' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = storedToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  const text = await res.text();
  const parsed = text === '' ? null : (JSON.parse(text) as unknown);
  if (res.ok) return parsed as T;
  if (res.status === 401 && token) signOut();
  const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | null)?.error;
  const details = error?.details ?? [];
  throw new ApiError(
    res.status,
    error?.code ?? 'http_error',
    error?.message ?? `HTTP ${res.status}`,
    // What was wrong with the request is shown beside its fields, in words as the rest of the
    // console; a provider's answer (a 502 of a test send) stays as the provider wrote it.
    res.status < 500 ? details.map((d) => ({ ...d, message: messageForPeople(d.message) })) : details,
    (parsed ?? {}) as Record<string, unknown>,
  );
}

/** Every item of a list route, page by page (the route's own maximum page is 1000). */
export async function listAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  for (let offset = 0; ; offset += 1000) {
    const page = await api<T[]>('GET', `${path}${separator}limit=1000&offset=${offset}`);
    items.push(...page);
    if (page.length < 1000) return items;
  }
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
