#!/usr/bin/env node
// The alertmon command line (docs/as-code.md): keep a workspace's alerting configuration in a
// file, review a change before it happens, apply it, and test policies, from a terminal or CI.
//
//   alertmon export [-o FILE] [--json]      the workspace's configuration (YAML by default)
//   alertmon plan FILE [--prune]            what apply would change; exit 0 none, 2 some, 1 error
//   alertmon apply FILE [--prune]           plan, then apply exactly that plan (409 if it moved)
//   alertmon test FILE...                   policy unit tests; exit 1 when a case fails
//
// ALERTMON_URL (default http://127.0.0.1:8080) and ALERTMON_TOKEN (a workspace token) say where
// and as whom. FILE is YAML or JSON; any value written {"env": "NAME"} is read from the
// environment of the command (secrets stay out of the file). Colours only on a terminal
// (and not with NO_COLOR).
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class CliError extends Error {}

const USAGE = `usage: alertmon export [-o FILE] [--json]
       alertmon plan FILE [--prune]
       alertmon apply FILE [--prune]
       alertmon test FILE...
environment: ALERTMON_URL (default http://127.0.0.1:8080), ALERTMON_TOKEN`;

const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: number) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
const green = paint(32);
const yellow = paint(33);
const red = paint(31);
const dim = paint(2);
const bold = paint(1);

function baseUrl(): string {
  return (process.env.ALERTMON_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
}

function token(): string {
  const t = process.env.ALERTMON_TOKEN;
  if (!t) throw new CliError('ALERTMON_TOKEN is not set: give a workspace token.');
  return t;
}

async function call(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<{ status: number; text: string; json: Json }> {
  let res: Response;
  try {
    res = await fetch(baseUrl() + path, {
      method,
      headers: { authorization: `Bearer ${token()}`, accept, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new CliError(`cannot reach ${baseUrl()}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let json: Json = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') json = JSON.parse(text) as Json;
  if (res.status >= 400) {
    const error = (json as { error?: { code?: string; message?: string; details?: { path: string; message: string }[] } } | null)?.error;
    const details = (error?.details ?? []).map((d) => `\n  ${d.path || '/'}: ${d.message}`).join('');
    throw new CliError(`${method} ${path}: ${res.status} ${error?.code ?? ''} ${error?.message ?? text}${details}`);
  }
  return { status: res.status, text, json };
}

/** A file's document: YAML or JSON (JSON is YAML), with {"env": "NAME"} values read from the environment. */
function readDocument(file: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let value: Json;
  try {
    value = parse(text, { uniqueKeys: true, merge: false, maxAliasCount: 1000 }) as Json;
  } catch (err) {
    throw new CliError(`${file} is not valid YAML or JSON: ${(err as Error).message}`);
  }
  return fromEnvironment(value, '');
}

function fromEnvironment(value: Json, path: string): Json {
  if (Array.isArray(value)) return value.map((v, i) => fromEnvironment(v, `${path}/${i}`));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'env' && typeof value.env === 'string') {
    const found = process.env[value.env];
    if (found === undefined) throw new CliError(`${path}: the environment variable ${value.env} is not set.`);
    return found;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromEnvironment(v, `${path}/${k}`)]));
}

interface Change {
  kind: string;
  key: string;
  action: 'create' | 'update' | 'delete';
  fields: string[];
}

interface Plan {
  version: string;
  changes: Change[];
  unmanaged: { kind: string; key: string }[];
}

const SECRET_FIELDS = new Set(['url', 'credentials']);

function shown(field: string, value: unknown): string {
  // A secret is never shown, nor exported: the stored one reads as (secret) too.
  if (SECRET_FIELDS.has(field) && value !== null) return dim('(secret)');
  if (value === undefined) return dim('(unset)');
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The plan, readably: each change with its fields' values before and after. */
function printPlan(plan: Plan, current: Record<string, Json>, wanted: Record<string, Json>): void {
  // A dimension is named by its event name (it has no key).
  const find = (doc: Record<string, Json>, kind: string, key: string) =>
    ((doc[kind] as { key?: string; event?: string }[] | undefined) ?? []).find((o) => (kind === 'dimensions' ? o.event : o.key) === key) as
      | Record<string, Json>
      | undefined;
  for (const c of plan.changes) {
    const name = `${c.kind}/${c.key}`;
    if (c.action === 'create') {
      console.log(green(`+ ${name}`));
      const o = find(wanted, c.kind, c.key) ?? {};
      for (const f of c.fields) console.log(green(`    ${f}: ${shown(f, o[f])}`));
    } else if (c.action === 'delete') {
      console.log(red(`- ${name}`));
    } else {
      console.log(yellow(`~ ${name}`));
      const before = find(current, c.kind, c.key) ?? {};
      const after = find(wanted, c.kind, c.key) ?? {};
      for (const f of c.fields) console.log(`    ${f}: ${red(shown(f, before[f]))} ${dim('->')} ${green(shown(f, after[f]))}`);
    }
  }
  for (const u of plan.unmanaged) console.log(dim(`  ${u.kind}/${u.key} (unmanaged: not in the file; --prune deletes it)`));
  const count = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  const summary = `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete`;
  console.log(plan.changes.length === 0 ? bold('No changes: the workspace matches the file.') : bold(`Plan: ${summary}.`));
}

async function planOf(file: string, prune: boolean) {
  const wanted = readDocument(file) as Record<string, Json>;
  const query = prune ? '?prune=true' : '';
  const plan = (await call('POST', `/v1.0/config/plan${query}`, wanted)).json as unknown as Plan;
  const current = (await call('GET', '/v1.0/config')).json as Record<string, Json>;
  return { wanted, plan, current, query };
}

function flags(args: string[]): { positional: string[]; has: (f: string) => boolean; value: (f: string) => string | undefined } {
  const positional: string[] = [];
  const seen = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-o' || a === '--output') seen.set('-o', args[++i] ?? '');
    else if (a.startsWith('-')) seen.set(a, true);
    else positional.push(a);
  }
  return { positional, has: (f) => seen.has(f), value: (f) => (typeof seen.get(f) === 'string' ? (seen.get(f) as string) : undefined) };
}

async function exportCommand(args: string[]): Promise<number> {
  const f = flags(args);
  const json = f.has('--json');
  const res = await call('GET', '/v1.0/config', undefined, json ? 'application/json' : 'application/yaml');
  const text = json ? `${JSON.stringify(res.json, null, 2)}\n` : res.text;
  const out = f.value('-o');
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
  return 0;
}

async function planCommand(args: string[]): Promise<number> {
  const f = flags(args);
  const file = f.positional[0];
  if (!file) throw new CliError(USAGE);
  const { plan, current, wanted } = await planOf(file, f.has('--prune'));
  printPlan(plan, current, wanted);
  return plan.changes.length === 0 ? 0 : 2;
}

async function applyCommand(args: string[]): Promise<number> {
  const f = flags(args);
  const file = f.positional[0];
  if (!file) throw new CliError(USAGE);
  const { plan, current, wanted, query } = await planOf(file, f.has('--prune'));
  printPlan(plan, current, wanted);
  if (plan.changes.length === 0) return 0;
  process.stderr.write(`Applying ${plan.changes.length} change(s) in one transaction...\n`);
  const applied = (await call('POST', `/v1.0/config/apply${query}`, { ...wanted, expected_version: plan.version })).json as unknown as Plan;
  console.log(bold(`Applied ${applied.changes.length} change(s); the configuration is now at version ${applied.version}.`));
  return 0;
}

interface TestCase {
  name?: string;
  policy: Json;
  series: Json;
  expect: Json;
}

async function testCommand(args: string[]): Promise<number> {
  const files = flags(args).positional;
  if (files.length === 0) throw new CliError(USAGE);
  let failed = 0;
  let passed = 0;
  for (const file of files) {
    const doc = readDocument(file) as { tests?: TestCase[] };
    const cases = Array.isArray(doc.tests) ? doc.tests : [];
    if (cases.length === 0) throw new CliError(`${file}: no tests (a file is {"tests": [{"name", "policy", "series", "expect"}, ...]}).`);
    for (const [i, c] of cases.entries()) {
      const name = `${file}: ${c.name ?? `case ${i + 1}`}`;
      const { name: _n, ...body } = c;
      const result = (await call('POST', '/v1.0/policies/test', body)).json as {
        passed: boolean;
        results: { at: string; passed: boolean; expected: Json; got: Json }[];
      };
      if (result.passed) {
        passed++;
        console.log(green(`PASS ${name}`));
        continue;
      }
      failed++;
      console.log(red(`FAIL ${name}`));
      for (const r of result.results.filter((x) => !x.passed)) {
        console.log(`  at ${r.at}`);
        console.log(`    expected: ${JSON.stringify(r.expected)}`);
        console.log(`    got:      ${JSON.stringify(r.got)}`);
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'export':
        return await exportCommand(args);
      case 'plan':
        return await planCommand(args);
      case 'apply':
        return await applyCommand(args);
      case 'test':
        return await testCommand(args);
      default:
        console.error(USAGE);
        return 1;
    }
  } catch (err) {
    if (err instanceof CliError) {
      console.error(red(`error: ${err.message}`));
      return 1;
    }
    console.error(red(`error: ${(err as Error).stack ?? String(err)}`));
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
