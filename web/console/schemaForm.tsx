// A form built from a request body's JSON Schema, as the OpenAPI document states it: one
// labelled control per property (a select for an enum, a checkbox for a boolean, a number
// field for a number, a fieldset for an object), the property's description as help text, and
// the API's validation errors shown next to the field they name. The form keeps raw input
// ("drafts", keyed by JSON Pointer) and turns it into a body only on submit, so the server
// stays the one judge of what is valid.
import type { ComponentChildren, JSX } from 'preact';
import type { ErrorDetail } from './api.js';
import type { JsonSchema } from './openapi.js';

export type DraftValue = string | boolean | string[];
export type Draft = Readonly<Record<string, DraftValue>>;

export interface WidgetProps {
  readonly id: string;
  readonly value: DraftValue | undefined;
  readonly onChange: (value: DraftValue) => void;
  readonly describedBy: string | undefined;
  readonly invalid: boolean;
}

/** A control of its own for a field, by JSON Pointer (e.g. an event picker for /event_id). */
export type Widgets = Readonly<Record<string, (props: WidgetProps) => JSX.Element>>;

const NULL_OPTION = '\u0000null';

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]);
const isNullable = (s: JsonSchema) => typesOf(s).includes('null') || (s.enum?.includes(null) ?? false);
const mainType = (s: JsonSchema) => typesOf(s).find((t) => t !== 'null') ?? (s.enum ? typeof s.enum.find((v) => v !== null) : undefined);
/** A property documented as `{}`: a read-only field a PUT accepts back and ignores. */
const isReadOnly = (s: JsonSchema) => Object.keys(s).length === 0;

type Kind = 'boolean' | 'enum' | 'number' | 'datetime' | 'text' | 'longtext' | 'choices' | 'list' | 'object' | 'json';

function kindOf(s: JsonSchema): Kind {
  const type = mainType(s);
  if (s.enum) return 'enum';
  if (type === 'boolean') return 'boolean';
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'string') return s.format === 'date-time' ? 'datetime' : (s.maxLength ?? 0) > 200 ? 'longtext' : 'text';
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
const showAll: Include = () => true;

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

// --- rendering ---------------------------------------------------------------------------

interface FormProps {
  readonly schema: JsonSchema;
  readonly draft: Draft;
  readonly onDraft: (draft: Draft) => void;
  readonly errors: readonly ErrorDetail[];
  /** Prefix of the controls' ids, unique on the page. */
  readonly idPrefix: string;
  /** Which fields to show (all by default). */
  readonly include?: Include;
  readonly widgets?: Widgets;
  readonly labels?: Readonly<Record<string, string>>;
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

export function SchemaFields(props: FormProps): JSX.Element {
  const include = props.include ?? showAll;
  return (
    <>
      {fieldsOf(props.schema)
        .filter(([name]) => include(`/${name}`))
        .map(([name, s]) => (
          <Field key={name} {...props} include={include} name={name} schema={s} path={`/${name}`} required={props.schema.required?.includes(name) ?? false} />
        ))}
    </>
  );
}

interface FieldProps extends Omit<FormProps, 'schema' | 'include'> {
  readonly include: Include;
  readonly name: string;
  readonly schema: JsonSchema;
  readonly path: string;
  readonly required: boolean;
}

function Field({ name, schema: s, path, required, draft, onDraft, errors, idPrefix, widgets, labels, include }: FieldProps): JSX.Element {
  const id = `${idPrefix}${path.replace(/\//g, '-')}`;
  const label = labels?.[path] ?? humanize(name);
  const error = errors.find((e) => e.path === path || e.path.startsWith(`${path}/`));
  const helpId = s.description ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, helpId].filter(Boolean).join(' ') || undefined;
  const value = draft[path];
  const set = (v: DraftValue) => onDraft({ ...draft, [path]: v });
  const kind = kindOf(s);
  const notes = (
    <>
      {error && (
        <p class="field-error" id={errorId}>
          {error.message}
        </p>
      )}
      {s.description && (
        <p class="help" id={helpId}>
          {s.description}
        </p>
      )}
    </>
  );
  const labelText = (
    <>
      {label}
      {required && <span class="required"> (required)</span>}
    </>
  );

  const widget = widgets?.[path];
  if (widget) {
    return (
      <div class="field">
        <label for={id}>{labelText}</label>
        {widget({ id, value, onChange: set, describedBy, invalid: error !== undefined })}
        {notes}
      </div>
    );
  }

  if (kind === 'object') {
    const toggled = isNullable(s) && (s.required?.length ?? 0) > 0;
    const on = !toggled || value === true;
    return (
      <fieldset class="field-group" aria-describedby={describedBy}>
        <legend>{labelText}</legend>
        {toggled && (
          <div class="field checkbox">
            <input id={id} type="checkbox" checked={on} onChange={(e) => set(e.currentTarget.checked)} />
            <label for={id}>Set {label.toLowerCase()}</label>
          </div>
        )}
        {on &&
          fieldsOf(s)
            .filter(([child]) => include(`${path}/${child}`))
            .map(([child, cs]) => (
              <Field
                include={include}
                key={child}
                name={child}
                schema={cs}
                path={`${path}/${child}`}
                required={s.required?.includes(child) ?? false}
                draft={draft}
                onDraft={onDraft}
                errors={errors}
                idPrefix={idPrefix}
                widgets={widgets}
                labels={labels}
              />
            ))}
        {notes}
      </fieldset>
    );
  }

  if (kind === 'boolean') {
    return (
      <div class="field checkbox">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => set(e.currentTarget.checked)}
          aria-describedby={describedBy}
          aria-invalid={error ? true : undefined}
        />
        <label for={id}>{label}</label>
        {notes}
      </div>
    );
  }

  if (kind === 'choices') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset class="field-group" aria-describedby={describedBy}>
        <legend>{labelText}</legend>
        <div class="choices">
          {s.items!.enum!.map((option) => {
            const o = String(option);
            return (
              <span class="choice" key={o}>
                <input
                  id={`${id}-${o}`}
                  type="checkbox"
                  checked={chosen.includes(o)}
                  onChange={(e) => set(e.currentTarget.checked ? [...chosen, o] : chosen.filter((c) => c !== o))}
                />
                <label for={`${id}-${o}`}>{o}</label>
              </span>
            );
          })}
        </div>
        {notes}
      </fieldset>
    );
  }

  let control: ComponentChildren;
  const common = { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined, 'aria-required': required || undefined };
  if (kind === 'enum') {
    const options = s.enum!.filter((v) => v !== null).map(String);
    control = (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.currentTarget.value)}>
        {(!required || value === '') && <option value="">{required ? 'Choose…' : '(default)'}</option>}
        {isNullable(s) && <option value={NULL_OPTION}>none</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'number') {
    const integer = mainType(s) === 'integer';
    control = (
      <input
        {...common}
        type="text"
        inputMode={integer ? 'numeric' : 'decimal'}
        value={typeof value === 'string' ? value : ''}
        placeholder={isNullable(s) ? 'none' : undefined}
        onInput={(e) => set(e.currentTarget.value)}
      />
    );
  } else if (kind === 'datetime') {
    control = <input {...common} type="datetime-local" value={typeof value === 'string' ? value : ''} onInput={(e) => set(e.currentTarget.value)} />;
  } else if (kind === 'list') {
    control = (
      <textarea
        {...common}
        rows={3}
        value={Array.isArray(value) ? value.join('\n') : ''}
        onInput={(e) =>
          set(
            e.currentTarget.value
              .split(/[\s,]+/)
              .map((v) => v.trim())
              .filter(Boolean),
          )
        }
      />
    );
  } else if (kind === 'longtext' || kind === 'json') {
    control = (
      <textarea {...common} rows={kind === 'json' ? 4 : 2} value={typeof value === 'string' ? value : ''} onInput={(e) => set(e.currentTarget.value)} />
    );
  } else {
    control = <input {...common} type="text" value={typeof value === 'string' ? value : ''} onInput={(e) => set(e.currentTarget.value)} />;
  }
  return (
    <div class="field">
      <label for={id}>{labelText}</label>
      {control}
      {notes}
    </div>
  );
}

/** Errors of the form as a whole, or of fields it does not show. */
export function FormErrors({ message, details }: { message: string | null; details: readonly ErrorDetail[] }): JSX.Element | null {
  if (message === null && details.length === 0) return null;
  return (
    <div class="form-errors" role="alert">
      {message && <p>{message}</p>}
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={`${d.path}${d.message}`}>
              {d.path ? `${d.path.slice(1)}: ` : ''}
              {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
