// npm run fuzz [-- --url http://127.0.0.1:8080 --admin-token T]
// Tries every operation of the service's OpenAPI document as a careless client and an
// attacker would, on a workspace holding one object of each kind (made through an
// alerting-as-code apply): path ids that are not ids, query values that are not what they
// should be, raw bodies that are not JSON, and bodies made from each operation's schema with
// one field at a time replaced by junk (NUL, lone surrogates, 200,000 characters, 10,000
// items, 3,000 levels of nesting, catastrophic regexes, prototype keys…); every object PUT
// back as read with one field replaced; Alertmanager posts and silences; OTLP/JSON points;
// another workspace's token. Prints every answer ≥ 500, every dropped connection and every
// answer slower than 2 s, and (for a service it started) every error the service logged, and
// exits 1 if there was one. Without --url it starts the service (compiled, as `npm start`
// runs it) on fresh embedded stores in a temporary folder.
// Not a test: what a 4xx should say is for the tests; this looks for the answers no client
// should ever get.
import { request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { installInterruptHandlers, runCleanup, temporaryDir } from './bench/lib/cleanup.js';
import { startBenchService } from './bench/lib/benchService.js';

interface Schema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly items?: Schema;
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly default?: unknown;
  readonly format?: string;
  readonly minLength?: number;
  readonly minItems?: number;
  readonly minimum?: number;
  readonly additionalProperties?: boolean | Schema;
}
interface Parameter {
  readonly name: string;
  readonly in: string;
}
interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> };
}
interface OpenApi {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: unknown;
}
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SLOW_MS = 2000;

const { values: args } = parseArgs({ options: { url: { type: 'string' }, 'admin-token': { type: 'string' } } });

let base = '';
let document: OpenApi;
const findings: string[] = [];
let sent = 0;

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly ms: number;
}

/** One request through node:http (any method, raw bytes); a dropped connection is status -1. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const answer = (status: number, text: string) => resolve({ status, text: text.slice(0, 300), ms: performance.now() - started });
    const req = httpRequest(`${base}${path}`, { method, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => answer(res.statusCode ?? -1, Buffer.concat(chunks).toString('utf8')));
      res.on('error', (e) => answer(-1, String(e)));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', (e) => answer(-1, String(e)));
    req.end(body);
  });
}

/** Sends one probe; an answer ≥ 500, a dropped connection or a slow answer is a finding. */
async function probe(label: string, method: string, path: string, token: string | null, body?: Buffer, contentType = 'application/json'): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body) headers['content-type'] = contentType;
  const answer = await send(method, path, headers, body);
  sent++;
  // A destination's test send answers 502 when the provider refuses it (docs/api.md): an answer, not a failure.
  const providerRefused = answer.status === 502 && answer.text.includes('"delivery_failed"');
  if ((answer.status >= 500 && !providerRefused) || answer.status < 0 || answer.ms > SLOW_MS) {
    const shown = body ? ` body ${body.subarray(0, 200).toString('utf8')}` : '';
    const line = `${answer.status} in ${answer.ms.toFixed(0)} ms: ${method} ${path.slice(0, 200)} [${label}]${shown} → ${answer.text.slice(0, 200)}`;
    findings.push(line);
    process.stdout.write(`FINDING ${line}\n`);
  }
  return answer;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

function resolve(schema: Schema | undefined): Schema {
  if (schema?.$ref === undefined) return schema ?? {};
  let at: unknown = document;
  for (const part of schema.$ref.replace(/^#\//, '').split('/')) at = (at as Record<string, unknown> | undefined)?.[part];
  return resolve(at as Schema | undefined);
}

/** A plausible value for a schema: its required fields, the first of each choice. */
function example(given: Schema | undefined, depth = 0): Json {
  const s = resolve(given);
  if (depth > 6) return null;
  if (s.const !== undefined) return s.const as Json;
  if (s.enum) return s.enum[0] as Json;
  if (s.default !== undefined) return s.default as Json;
  const choices = s.oneOf ?? s.anyOf;
  if (choices) return example(choices.find((c) => resolve(c).type !== 'null') ?? choices[0], depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part) => example(part, depth + 1)));
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, example(s.properties?.[k], depth + 1)]));
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => example(s.items, depth + 1));
    case 'string':
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'uuid') return crypto.randomUUID();
      if (s.format === 'email') return 'a@example.com';
      if (s.format === 'uri') return 'https://example.com/x';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return 'x';
  }
}

function nested(levels: number, wrap: (inner: Json) => Json): Json {
  let value: Json = 1;
  for (let i = 0; i < levels; i++) value = wrap(value);
  return value;
}

const JUNK: readonly (readonly [string, Json])[] = [
  ['null', null],
  ['true', true],
  ['12345', 12345],
  ['-1', -1],
  ['0.5', 0.5],
  ['1e308', 1e308],
  ['1e20', 1e20],
  ['empty', ''],
  ['NUL', 'a\u0000b'],
  ['lone surrogate', 'a\ud800b'],
  ['200,000 characters', 'a'.repeat(200_000)],
  ['5,000 stars', '*'.repeat(5000)],
  ['catastrophic regex', '(a+)+$'],
  ['[]', []],
  ['10,000 items', Array.from({ length: 10_000 }, (_, i) => `k${i}`)],
  ['{}', {}],
  ['10,000 keys', Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']))],
  ['3,000 levels', nested(3000, (inner) => ({ a: inner }))],
  ['impossible date', '2026-13-45T99:99:99Z'],
  ['prototype keys', JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": 1}}') as Json],
];
const SHORT_JUNK = JUNK.slice(0, 14);

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bodies made from a schema: its example, junk in its place, then each field (and each field of a field) replaced by junk. */
function* bodiesOf(schema: Schema): Generator<readonly [string, Json]> {
  const valid = example(schema);
  yield ['example', valid];
  for (const [name, junk] of JUNK) yield [`body = ${name}`, junk];
  if (!isObject(valid)) return;
  const s = resolve(schema);
  const fields: Record<string, Schema> = { ...s.properties };
  for (const choice of s.oneOf ?? s.anyOf ?? []) Object.assign(fields, resolve(choice).properties);
  for (const [field, fieldSchema] of Object.entries(fields)) {
    for (const [name, junk] of JUNK) yield [`${field} = ${name}`, { ...valid, [field]: junk }];
    const inner = resolve(fieldSchema);
    const itemSchema = inner.items === undefined ? undefined : resolve(inner.items);
    const innerFields = inner.properties ?? itemSchema?.properties;
    if (innerFields !== undefined) {
      const innerValid = example(itemSchema ?? inner);
      for (const innerField of Object.keys(innerFields)) {
        for (const [name, junk] of SHORT_JUNK) {
          const changed = { ...(isObject(innerValid) ? innerValid : {}), [innerField]: junk };
          yield [`${field}.${innerField} = ${name}`, { ...valid, [field]: itemSchema ? [changed] : changed }];
        }
      }
    }
    if (inner.additionalProperties !== undefined && inner.additionalProperties !== false) {
      for (const key of ['', '\u0000', 'a'.repeat(10_000), '\ud800', '__proto__', 'a b'])
        yield [`${field} with key ${JSON.stringify(key.slice(0, 12))}`, { ...valid, [field]: { [key]: 'v' } }];
    }
  }
}

const PATH_JUNK = [
  crypto.randomUUID(),
  '00000000-0000-0000-0000-000000000000',
  'x',
  '%00',
  '%ff%fe',
  '%ED%A0%80',
  'a'.repeat(5000),
  '..%2F..%2Fetc',
  '%2520',
  'a%20b',
  encodeURIComponent('*'.repeat(300)),
];
const QUERY_JUNK = [
  '',
  'x',
  '-1',
  '0',
  '1e3',
  '99999999999999999999',
  '%00',
  '%ff',
  'a'.repeat(20_000),
  '%ED%A0%80',
  '2026-13-01T00:00:00Z',
  '*',
  encodeURIComponent('(a+)+$'),
];

/** What the workspace holds before the probes: one object of each kind, logs, evaluated policies. */
const SEED_DOCUMENT = `version: 1
dimensions:
  - {event: checkout.latency_ms, keys: [route, code]}
destinations:
  - {key: ops-slack, channel: slack, url: "https://hooks.slack.com/services/T000/B000/fuzzfuzzfuzz", scope: all}
  - {key: ops-hook, channel: webhook, url: "https://example.com/alertmon-hook", scope: policies, policies: [checkout-slow], alert_sources: [prometheus]}
people:
  - {key: ada, name: Ada Lovelace, timezone: Europe/London, destinations: [ops-hook]}
schedules:
  - key: payments
    name: Payments
    timezone: Europe/Berlin
    layers:
      - {name: primary, start: "2026-11-23T00:00:00.000Z", rotation: {type: weekly, length: 1, handoff: "09:00"}, members: [ada]}
escalation_policies:
  - {key: page-ops, name: Page ops, repeat: 2, steps: [{after_minutes: 5, destinations: [ops-slack]}]}
alert_sources:
  - {key: prometheus, name: Prometheus, escalation_policy: page-ops}
policies:
  - {key: checkout-slow, title: Checkout slow, event_definition: {agent: web, event: checkout.latency_ms}, period: minute, aggregate: average, condition: gt, threshold: 0, severity: critical, escalation_policy: page-ops}
  - {key: jobs-slow, title: Jobs slow, event: jobs.duration_ms, group_by: [agent], period: minute, aggregate: max, condition: gte, threshold: 0}
silences:
  - {key: weekly-maintenance, policies: [checkout-slow], ends_at: "2099-12-31T00:00:00.000Z", recurrence: {timezone: Europe/Berlin, days: [sun], start: "01:00", end: "03:30"}}
`;

async function call(token: string, method: string, path: string, body?: string, contentType = 'application/json'): Promise<Json> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding: ${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text === '' ? null : (JSON.parse(text) as Json);
}

async function tokenFor(adminToken: string, workspaceId: string): Promise<string> {
  const issued = await call(adminToken, 'POST', '/v1.0/admin/tokens', JSON.stringify({ user_id: workspaceId }));
  return (issued as { token: string }).token;
}

/** The seeded workspace; returns its alert source's id. */
async function seed(token: string): Promise<string> {
  await call(token, 'POST', '/v1.0/events', JSON.stringify({ agent: 'web', event: 'checkout.latency_ms' }));
  await call(token, 'POST', '/v1.0/events', JSON.stringify({ agent: 'job-1', event: 'jobs.duration_ms' }));
  const now = Date.now();
  const logs = Array.from({ length: 50 }, (_, i) => ({
    agent: i % 2 ? 'web' : 'job-1',
    event: i % 2 ? 'checkout.latency_ms' : 'jobs.duration_ms',
    value: i * 100,
    occurred_at: new Date(now - i * 30_000).toISOString(),
    meta: { route: `/r${i % 3}`, code: String(200 + (i % 2) * 300) },
  }));
  await call(token, 'POST', '/v1.0/logs', JSON.stringify(logs));
  await call(token, 'POST', '/v1.0/config/apply', SEED_DOCUMENT, 'application/yaml');
  for (const policy of (await call(token, 'GET', '/v1.0/policies')) as { policy_id: string }[]) {
    await call(token, 'POST', `/v1.0/policies/${policy.policy_id}/evaluate`, '{}');
  }
  return ((await call(token, 'GET', '/v1.0/alert-sources')) as { alert_source_id: string }[])[0]!.alert_source_id;
}

/** The items of a list answer: the array itself, or the first array of an object. */
function itemsOf(body: Json): { [key: string]: Json }[] {
  const list = Array.isArray(body) ? body : isObject(body) ? Object.values(body).find(Array.isArray) : undefined;
  return (list ?? []).filter(isObject);
}

/** The path with its one parameter filled by an object the workspace has (listed by the path above it), or null. */
async function realPath(token: string, path: string, param: string): Promise<string | null> {
  const parent = path.slice(0, path.indexOf(`{${param}}`) - 1);
  const listed = await fetch(`${base}${parent}`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
  if (!listed?.ok) return null;
  const first = itemsOf((await listed.json().catch(() => null)) as Json)[0];
  const id =
    first === undefined ? undefined : (first[param] ?? Object.entries(first).find(([k]) => k.replaceAll('_', '') === param.toLowerCase())?.[1] ?? first.event);
  return typeof id === 'string' ? path.replace(`{${param}}`, encodeURIComponent(id)) : null;
}

async function operations(token: string, otherToken: string, adminToken: string): Promise<void> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [lower, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(lower)) continue;
      const method = lower.toUpperCase();
      const own = path.includes('/admin/') ? adminToken : token;
      const parameters = [...((item.parameters as readonly Parameter[] | undefined) ?? []), ...(operation.parameters ?? [])];
      const pathParams = parameters.filter((p) => p.in === 'path').map((p) => p.name);
      const queryParams = parameters.filter((p) => p.in === 'query').map((p) => p.name);
      const filled = (value: string) => pathParams.reduce((p, name) => p.replace(`{${name}}`, value), path);
      const bodyless = method === 'GET' || method === 'DELETE';
      for (const junk of pathParams.length > 0 ? PATH_JUNK : []) await probe('path id', method, filled(junk), own, bodyless ? undefined : json({}));
      const target = (pathParams.length === 1 ? await realPath(own, path, pathParams[0]!) : null) ?? filled('fuzz');
      for (const name of queryParams) {
        for (const junk of QUERY_JUNK) await probe(`query ${name}`, method, `${target}?${name}=${junk}`, own);
        await probe(`query ${name} twice`, method, `${target}?${name}=a&${name}=b`, own);
      }
      if (queryParams.length > 0) await probe('every query parameter', method, `${target}?${queryParams.map((n) => `${n}=x`).join('&')}`, own);
      const content = operation.requestBody?.content ?? {};
      const schema = content['application/json']?.schema;
      if (!bodyless) {
        for (const raw of ['', '{', 'null', '[]', '"x"', '\u0000', '{"a":1,"a":2}'])
          await probe(`raw ${JSON.stringify(raw)}`, method, target, own, Buffer.from(raw));
        await probe('invalid UTF-8', method, target, own, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
        await probe('3,000 nested arrays', method, target, own, json(nested(3000, (inner) => [inner])));
        await probe('a YAML alias loop', method, target, own, Buffer.from('a: &a [*a]\n'), 'application/yaml');
        await probe('text/plain', method, target, own, Buffer.from('hello'), 'text/plain');
        await probe('a form', method, target, own, Buffer.from('a=1&a[b]=2'), 'application/x-www-form-urlencoded');
        if (schema) for (const [label, body] of bodiesOf(schema)) await probe(label, method, target, own, json(body));
        for (const type of Object.keys(content).filter((t) => t !== 'application/json')) {
          for (const raw of ['', 'a: b', '\u0000\u0001', 'x'.repeat(100_000)]) await probe(`${type} raw`, method, target, own, Buffer.from(raw), type);
        }
      }
      await probe("another workspace's token", method, target, otherToken, bodyless ? undefined : json(schema ? example(schema) : {}));
    }
  }
}

/** Every object of the workspace PUT back as read, then with each field replaced by junk (the SDKs PUT back what they read). */
async function putBack(token: string): Promise<void> {
  for (const [path, item] of Object.entries(document.paths)) {
    const param = /\{([^}]+)\}$/.exec(path)?.[1];
    if (item.put === undefined || param === undefined) continue;
    const target = await realPath(token, path, param);
    if (target === null) continue;
    const read = await fetch(`${base}${target}`, { headers: { authorization: `Bearer ${token}` } });
    const object = (await read.json()) as Json;
    if (!isObject(object)) continue;
    await probe('PUT back as read', 'PUT', target, token, json(object));
    for (const field of Object.keys(object))
      for (const [name, junk] of JUNK) await probe(`PUT back, ${field} = ${name}`, 'PUT', target, token, json({ ...object, [field]: junk }));
  }
}

async function alertmanager(token: string, sourceId: string): Promise<void> {
  const prefix = `/alertmanager/${sourceId}/api/v2`;
  const alert = { labels: { alertname: 'HighLatency', job: 'api' }, annotations: { summary: 's' }, startsAt: new Date().toISOString() };
  for (const field of ['labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL'] as const) {
    for (const [name, junk] of JUNK) {
      await probe(`alert ${field} = ${name}`, 'POST', `${prefix}/alerts`, token, json([{ ...alert, [field]: junk }]));
      if (field === 'labels' || field === 'annotations')
        await probe(`alert ${field} value = ${name}`, 'POST', `${prefix}/alerts`, token, json([{ ...alert, [field]: { alertname: junk } }]));
    }
  }
  await probe('5,001 alerts', 'POST', `${prefix}/alerts`, token, json(Array.from({ length: 5001 }, (_, i) => ({ ...alert, labels: { alertname: `a${i}` } }))));
  const silence = {
    matchers: [{ name: 'alertname', value: 'HighLatency', isRegex: false }],
    startsAt: new Date().toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    createdBy: 'fuzz',
    comment: 'c',
  };
  for (const [name, junk] of JUNK) {
    await probe(`silence matchers = ${name}`, 'POST', `${prefix}/silences`, token, json({ ...silence, matchers: junk }));
    await probe(
      `silence matcher value = ${name}`,
      'POST',
      `${prefix}/silences`,
      token,
      json({ ...silence, matchers: [{ name: 'a', value: junk, isRegex: true }] }),
    );
    await probe(`silence id = ${name}`, 'POST', `${prefix}/silences`, token, json({ ...silence, id: junk }));
  }
  for (const filter of ['alertname=~"(a+)+$"', '%00', `a=~"${'*'.repeat(500)}"`, 'a'.repeat(7000)]) {
    for (const route of ['alerts', 'alerts/groups', 'silences'])
      await probe(`filter on ${route}`, 'GET', `${prefix}/${route}?filter=${encodeURIComponent(filter)}`, token);
  }
  for (const junk of PATH_JUNK) {
    await probe('silence id', 'GET', `${prefix}/silence/${junk}`, token);
    await probe('silence id', 'DELETE', `${prefix}/silence/${junk}`, token);
    await probe('source id', 'POST', `/alertmanager/${junk}/api/v2/alerts`, token, json([alert]));
  }
}

async function otlp(token: string): Promise<void> {
  const now = String(BigInt(Date.now()) * 1_000_000n);
  const points = (point: Record<string, Json>, name: Json = 'http.server.duration') => ({
    resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name, gauge: { dataPoints: [{ asDouble: 1, timeUnixNano: now, ...point }] } }] }] }],
  });
  for (const [name, junk] of JUNK) {
    await probe(`OTLP attribute value = ${name}`, 'POST', '/v1/metrics', token, json(points({ attributes: [{ key: 'code', value: { stringValue: junk } }] })));
    await probe(`OTLP attribute key = ${name}`, 'POST', '/v1/metrics', token, json(points({ attributes: [{ key: junk, value: { stringValue: 'x' } }] })));
    await probe(`OTLP attributes = ${name}`, 'POST', '/v1/metrics', token, json(points({ attributes: junk })));
    await probe(`OTLP name = ${name}`, 'POST', '/v1/metrics', token, json(points({}, junk)));
    await probe(`OTLP time = ${name}`, 'POST', '/v1/metrics', token, json(points({ timeUnixNano: junk })));
    await probe(`OTLP value = ${name}`, 'POST', '/v1/metrics', token, json(points({ asDouble: junk })));
  }
}

async function main(): Promise<void> {
  installInterruptHandlers();
  let adminToken = args['admin-token'] ?? '';
  let serviceOutput: readonly string[] = [];
  if (args.url === undefined) {
    const service = await startBenchService(temporaryDir('alertmon-fuzz-'), {});
    base = service.url;
    adminToken = service.adminToken;
    serviceOutput = service.output;
  } else {
    base = args.url.replace(/\/$/, '');
    if (adminToken === '') throw new Error('--url needs --admin-token (the service’s ADMIN_TOKEN)');
  }
  document = (await (await fetch(`${base}/v1.0/openapi.json`)).json()) as OpenApi;
  const suffix = Date.now().toString(36);
  const token = await tokenFor(adminToken, `fuzz_${suffix}`);
  const otherToken = await tokenFor(adminToken, `fuzz_other_${suffix}`);
  const sourceId = await seed(token);
  const started = performance.now();
  await alertmanager(token, sourceId);
  await otlp(token);
  await operations(token, otherToken, adminToken);
  await putBack(token);
  // What the probes made fail inside the service without a 5xx (a background task's cycle, say) is in its log.
  for (const line of serviceOutput.join('').split('\n'))
    if (line.includes('"level":"error"')) findings.push(`the service logged an error: ${line.slice(0, 600)}`);
  process.stdout.write(`${sent.toLocaleString('en-US')} requests in ${((performance.now() - started) / 1000).toFixed(0)} s: ${findings.length} findings\n`);
  for (const line of findings) process.stdout.write(`${line}\n`);
  process.exitCode = findings.length > 0 ? 1 : 0;
}

try {
  await main();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
} finally {
  await runCleanup();
}
