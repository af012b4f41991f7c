// The API's own OpenAPI document (GET /v1.0/openapi.json, no token needed) tells the console
// which routes exist and what their request bodies accept, so the policy, destination and
// silence forms show every field and option the running service has, with no second list
// of fields to keep in step with the server.

/** One problem of a refused request, as the API's error body lists it. */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
}

interface Operation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

let loading: Promise<ApiDocument> | null = null;

export function loadApiDocument(): Promise<ApiDocument> {
  loading ??= fetch('/v1.0/openapi.json').then(async (res) => {
    if (!res.ok) throw new Error(`The API document did not load (HTTP ${res.status}).`);
    return (await res.json()) as ApiDocument;
  });
  return loading;
}

/** Whether the service has the route, e.g. ('post', '/v1.0/policies/backtest'). */
export const hasRoute = (doc: ApiDocument, method: string, path: string) => doc.paths[path]?.[method] !== undefined;

function resolve(doc: ApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  const name = schema?.$ref?.replace('#/components/schemas/', '');
  return name === undefined ? schema : doc.components?.schemas?.[name];
}

/** The JSON Schema of a route's request body, e.g. ('post', '/v1.0/policies'). */
export function requestSchema(doc: ApiDocument, method: string, path: string): JsonSchema | undefined {
  return resolve(doc, doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema);
}
