// A small fetch wrapper: every test request states its token, and gets status, headers and
// the parsed JSON body (or the text when the body is not JSON).

/** A parsed response body: tests assert its fields one by one, so it is left untyped here, and only here. */
// biome-ignore lint/suspicious/noExplicitAny: the one untyped JSON type of the tests, see above
export type Json = any;

export interface TestResponse<T = Json> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

export interface RequestOptions {
  readonly token?: string | null;
  readonly body?: unknown;
  /** A body sent as-is, for malformed-input tests. */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

export async function request<T = Json>(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A set-up request that must succeed: its body, or an error naming the call and the answer. */
export async function requestOk<T = Json>(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await request<T>(baseUrl, method, path, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
