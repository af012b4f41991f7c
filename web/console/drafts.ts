// The data side of the forms built from a request body's JSON Schema: what a control holds
// ("drafts": raw input keyed by JSON Pointer, e.g. '/credentials/bot_token') and the request
// body a draft makes. The body is built only on submit, and what is typed is sent as typed
// where it is not valid, so the API stays the one judge of what is valid and its errors
// name the field. No DOM here: test/unit/web/ tests it under Node.
import type { ErrorDetail, JsonSchema } from './openapi.js';

export type DraftValue = string | boolean | string[];
export type Draft = Readonly<Record<string, DraftValue>>;

/** The option value of null in a select (an empty value means: not set). */
export const NULL_OPTION = '\u0000null';

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]);
export const isNullable = (s: JsonSchema) => typesOf(s).includes('null') || (s.enum?.includes(null) ?? false);
export const mainType = (s: JsonSchema) => typesOf(s).find((t) => t !== 'null') ?? (s.enum ? typeof s.enum.find((v) => v !== null) : undefined);
/** A property documented as `{}`: a read-only field a PUT accepts back and ignores. */
const isReadOnly = (s: JsonSchema) => Object.keys(s).length === 0;

export type Kind = 'boolean' | 'enum' | 'number' | 'datetime' | 'text' | 'longtext' | 'choices' | 'list' | 'object' | 'json';

export function kindOf(s: JsonSchema): Kind {
  const type = mainType(s);
  if (s.enum) return 'enum';
  if (type === 'boolean') return 'boolean';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'string') return s.format === 'date-time' ? 'datetime' : (s.maxLength ?? 0) >= 1000 ? 'longtext' : 'text';
  if (type === 'array' && s.items?.enum) return 'choices';
  if (type === 'array' && mainType(s.items ?? {}) === 'string') return 'list';
  if (type === 'object' && s.properties) return 'object';
  return 'json';
}

export const fieldsOf = (schema: JsonSchema): [string, JsonSchema][] => Object.entries(schema.properties ?? {}).filter(([, s]) => !isReadOnly(s));

const ACRONYMS: Record<string, string> = { id: 'ID', ids: 'IDs', url: 'URL', p95: 'p95', p99: 'p99' };

/** 'pending_buckets' → 'Pending buckets'; 'policy_ids' → 'Policy IDs'. */
export function humanize(name: string): string {
  const words = name.split('_').map((w) => ACRONYMS[w] ?? w);
  const first = words[0] ?? '';
  return [first.charAt(0).toUpperCase() + first.slice(1), ...words.slice(1)].join(' ');
}

// --- drafts ----------------------------------------------------------------------------

/** ISO instant → the value of a datetime-local input (local time, minutes). */
function localInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function draftOf(s: JsonSchema, value: unknown): DraftValue {
  switch (kindOf(s)) {
    case 'boolean':
      return value === true;
    case 'enum':
      return value === null ? NULL_OPTION : value === undefined ? '' : String(value);
    case 'datetime':
      return typeof value === 'string' ? localInput(value) : '';
    case 'choices':
    case 'list':
      return Array.isArray(value) ? value.map(String) : [];
    case 'json':
      return value === undefined || value === null ? '' : JSON.stringify(value, null, 2);
    default:
      return value === undefined || value === null ? '' : String(value);
  }
}

/**
 * A field a widget keeps in the draft as a JSON array's text (escalation steps, inhibition
 * rules) as its rows, each with `blank`'s fields where it lacks them; none when the text is not
 * an array.
 */
export function draftRows<T extends object>(value: DraftValue | undefined, blank: () => T): T[] {
  try {
    const parsed: unknown = JSON.parse(typeof value === 'string' && value !== '' ? value : '[]');
    return Array.isArray(parsed) ? (parsed as Partial<T>[]).map((row) => ({ ...blank(), ...row })) : [];
  } catch {
    return [];
  }
}

/** The draft of a new resource: each field at its documented default, booleans false otherwise. */
export function initialDraft(schema: JsonSchema, prefix = ''): Draft {
  const draft: Record<string, DraftValue> = {};
  for (const [name, s] of fieldsOf(schema)) {
    const path = `${prefix}/${name}`;
    if (kindOf(s) === 'object') Object.assign(draft, initialDraft(s, path));
    else draft[path] = draftOf(s, s.default);
  }
  return draft;
}

/** The draft of an existing resource, for editing it. */
export function draftFrom(schema: JsonSchema, resource: Record<string, unknown>, prefix = ''): Draft {
  const draft: Record<string, DraftValue> = {};
  for (const [name, s] of fieldsOf(schema)) {
    const path = `${prefix}/${name}`;
    const value = resource[name];
    if (kindOf(s) === 'object') {
      Object.assign(draft, draftFrom(s, (value ?? {}) as Record<string, unknown>, path));
      if (isNullable(s) && (s.required?.length ?? 0) > 0) draft[path] = value !== null && value !== undefined;
    } else draft[path] = draftOf(s, value);
  }
  return draft;
}

// --- bodies ------------------------------------------------------------------------------

export type FormMode = 'create' | 'edit';

/** Which fields a form shows and sends, by JSON Pointer ('/credentials/bot_token'). */
export type Include = (path: string) => boolean;
export const showAll: Include = () => true;

const OMIT = Symbol('omit');

/** What an empty field sends: nothing on create (the server's default applies); on edit, a clear value where there is one. */
function emptyValue(s: JsonSchema, mode: FormMode): unknown {
  if (mode === 'create') return OMIT;
  if (isNullable(s)) return null;
  if (mainType(s) === 'string' && s.minLength === undefined && s.pattern === undefined && !s.enum) return '';
  return OMIT;
}

function bodyValue(s: JsonSchema, raw: DraftValue | undefined, mode: FormMode): unknown {
  switch (kindOf(s)) {
    case 'boolean':
      return raw === true;
    case 'enum': {
      if (raw === NULL_OPTION) return null;
      if (raw === '' || raw === undefined) return emptyValue(s, mode);
      return s.enum!.find((v) => String(v) === raw) ?? raw;
    }
    case 'number': {
      const text = String(raw ?? '').trim();
      if (text === '') return emptyValue(s, mode);
      const n = Number(text);
      // Not a number: sent as typed, so that the API names the problem next to the field.
      return Number.isFinite(n) ? n : text;
    }
    case 'datetime': {
      const text = String(raw ?? '');
      if (text === '') return emptyValue(s, mode);
      const d = new Date(text);
      return Number.isNaN(d.getTime()) ? text : d.toISOString();
    }
    case 'choices':
    case 'list': {
      const items = (Array.isArray(raw) ? raw : []).filter((v) => v !== '');
      return items.length === 0 && mode === 'create' ? OMIT : items;
    }
    case 'json': {
      const text = String(raw ?? '').trim();
      if (text === '') return emptyValue(s, mode);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
    default: {
      const text = String(raw ?? '');
      return text.trim() === '' ? emptyValue(s, mode) : text;
    }
  }
}

/** The request body of a draft. */
export function bodyFrom(schema: JsonSchema, draft: Draft, mode: FormMode, include: Include = showAll, prefix = ''): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, s] of fieldsOf(schema)) {
    const path = `${prefix}/${name}`;
    if (!include(path)) continue;
    let value: unknown;
    if (kindOf(s) === 'object') {
      const toggled = isNullable(s) && (s.required?.length ?? 0) > 0;
      if (toggled && draft[path] !== true) value = mode === 'edit' ? null : OMIT;
      else {
        const nested = bodyFrom(s, draft, mode === 'edit' && !toggled ? 'create' : mode, include, path);
        value = Object.keys(nested).length === 0 ? OMIT : nested;
      }
    } else value = bodyValue(s, draft[path], mode);
    if (value !== OMIT) body[name] = value;
  }
  return body;
}

/** Errors the fields do not show (no field of that path is on the form). */
export function unplacedErrors(schema: JsonSchema, errors: readonly ErrorDetail[], include: Include = showAll): ErrorDetail[] {
  const paths: string[] = [];
  const collect = (s: JsonSchema, prefix: string) => {
    for (const [name, child] of fieldsOf(s)) {
      const path = `${prefix}/${name}`;
      if (!include(path)) continue;
      paths.push(path);
      if (kindOf(child) === 'object') collect(child, path);
    }
  };
  collect(schema, '');
  return errors.filter((e) => !paths.some((p) => e.path === p || e.path.startsWith(`${p}/`)));
}
