// A set-up call of a benchmark to the service's API: JSON in and out, anything but a 2xx thrown with its answer.

/** `call(method, path, token, body?)` against the service at `baseUrl`: the parsed answer, read as `T`. */
export function apiCaller<T = Record<string, unknown>>(baseUrl: string) {
  return async (method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}
