// A form built from a request body's JSON Schema, as the OpenAPI document states it: one
// labelled control per property (a select for an enum, a checkbox for a boolean, a number
// field for a number, a fieldset for an object), and the API's validation errors shown next
// to the field they name. What a person reads is words: a field's label, help and option
// labels come from the form's FieldWords (fieldWords.ts), else from the schema made readable
// (humanize, forPeople, optionWords). What the controls hold and the body they make are in
// drafts.ts.
import type { ComponentChildren, JSX } from 'preact';
import { browserZone } from '../shared/time.js';
import { type Draft, type DraftValue, fieldsOf, humanize, type Include, isNullable, kindOf, mainType, NULL_OPTION, showAll } from './drafts.js';
import type { ErrorDetail, JsonSchema } from './openapi.js';
import { forPeople, optionWords } from './words.js';

export interface WidgetProps {
  readonly id: string;
  readonly value: DraftValue | undefined;
  readonly onChange: (value: DraftValue) => void;
  readonly describedBy: string | undefined;
  readonly invalid: boolean;
}

/** A control of its own for a field, by JSON Pointer (e.g. an event picker for /event_id). */
export type Widgets = Readonly<Record<string, (props: WidgetProps) => JSX.Element>>;

/** What a form says about one field instead of the schema's names and description. */
export interface FieldWord {
  readonly label?: string;
  /** Help text under the control; '' for none. */
  readonly help?: string;
  /** Option labels of an enum (or a list of choices), by value. */
  readonly options?: Readonly<Record<string, string>>;
  /** The label of the option that sends null (default "None"). */
  readonly none?: string;
  /** The checkbox that switches an optional object on (default "Set <label>"). */
  readonly toggle?: string;
}

/** A form's words, by JSON Pointer ('/no_data', '/recurrence/days'). */
export type FieldWords = Readonly<Record<string, FieldWord>>;

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
  readonly words?: FieldWords;
  /** Labels by JSON Pointer: for a label that depends on the draft (the words' label otherwise). */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A form's fields in the schema's order, but for the key: it names the object in a
 * configuration file (docs/as-code.md), which a person filling in the form may not keep, so it
 * comes after what everybody fills in.
 */
const inFormOrder = (fields: [string, JsonSchema][]) => [...fields.filter(([name]) => name !== 'key'), ...fields.filter(([name]) => name === 'key')];

export function SchemaFields(props: FormProps): JSX.Element {
  const include = props.include ?? showAll;
  return (
    <>
      {inFormOrder(fieldsOf(props.schema))
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

function Field({ name, schema: s, path, required, draft, onDraft, errors, idPrefix, widgets, words, labels, include }: FieldProps): JSX.Element {
  const id = `${idPrefix}${path.replace(/\//g, '-')}`;
  const word = words?.[path] ?? {};
  const kind = kindOf(s);
  // A time typed into a form is in the browser's zone: the label names it.
  const label = `${labels?.[path] ?? word.label ?? humanize(name)}${kind === 'datetime' ? ` (${browserZone()})` : ''}`;
  const help = word.help ?? (s.description ? forPeople(s.description) : '');
  const optionLabel = (value: string) => word.options?.[value] ?? optionWords(name, value);
  const error = errors.find((e) => e.path === path || e.path.startsWith(`${path}/`));
  const helpId = help ? `${id}-help` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, helpId].filter(Boolean).join(' ') || undefined;
  const value = draft[path];
  const set = (v: DraftValue) => onDraft({ ...draft, [path]: v });
  const notes = (
    <>
      {error && (
        <p class="field-error" id={errorId}>
          {error.message}
        </p>
      )}
      {help && (
        <p class="help" id={helpId}>
          {help}
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
        {/* A widget that is a group of controls names itself with aria-labelledby (id-label). */}
        <label for={id} id={`${id}-label`}>
          {labelText}
        </label>
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
            <label for={id}>{word.toggle ?? `Set ${label.toLowerCase()}`}</label>
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
                words={words}
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
                <label for={`${id}-${o}`}>{optionLabel(o)}</label>
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
    // Empty: not sent, so the service's default applies. A new resource's form starts at the
    // documented default, an edit at the value read, so the empty choice shows only until one is made.
    const offerEmpty = value === '';
    control = (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.currentTarget.value)}>
        {offerEmpty && <option value="">{required ? 'Choose…' : 'The service’s default'}</option>}
        {isNullable(s) && <option value={NULL_OPTION}>{word.none ?? 'None'}</option>}
        {options.map((o) => (
          <option key={o} value={o}>
            {optionLabel(o)}
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
              {d.path ? `${humanize(d.path.split('/').pop() ?? '')}: ` : ''}
              {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
