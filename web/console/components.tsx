// Pieces every page uses: a small table with its column headers, a time with its zone, a
// labelled choice of a chart's controls, and the failure of a form. A list of resources is a
// DataTable (dataTable.tsx), which becomes cards on a phone.
import type { ComponentChildren, JSX } from 'preact';
import { formatTime, type TimeOptions } from '../shared/time.js';
import { ApiError, errorText } from './api.js';
import type { ErrorDetail } from './openapi.js';

/** A time in `zone`, which it names (formatTime): "Dec 1, 2026, 21:05 (Europe/Berlin)"; "–" for none. */
export function Time({ at, zone, ...options }: { at: string | null | undefined; zone: string } & TimeOptions): JSX.Element {
  return at ? <time dateTime={at}>{formatTime(at, zone, options)}</time> : <span>–</span>;
}

export interface Column {
  readonly label: string;
  /** Right-aligned, tabular figures. */
  readonly numeric?: boolean;
  /** Named for screen readers only (e.g. a column of buttons). */
  readonly hidden?: boolean;
}

/** A small table (a few short columns, readable at 390 px) whose columns are headed by `columns`; `children` are its body rows. */
export function Table({
  columns,
  children,
  className,
}: {
  columns: readonly (string | Column)[];
  children: ComponentChildren;
  className?: string;
}): JSX.Element {
  return (
    <div class="table-wrap">
      <table class={className}>
        <thead>
          <tr>
            {columns.map((c) => {
              const column = typeof c === 'string' ? { label: c } : c;
              return (
                <th scope="col" key={column.label} class={column.numeric ? 'number' : undefined}>
                  {column.hidden ? <span class="visually-hidden">{column.label}</span> : column.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * One of a chart's controls: a labelled select of `choices`, each its value and the words
 * shown for it; `onChange` gets the chosen value as it was given (a number stays a number).
 */
export function Choice<T extends string | number>({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  id: string;
  label: string;
  value: T;
  choices: readonly (readonly [T, string])[];
  onChange: (value: T) => void;
}): JSX.Element {
  const choose = (text: string) => {
    const chosen = choices.find(([v]) => String(v) === text);
    if (chosen) onChange(chosen[0]);
  };
  return (
    <div>
      <label for={id}>{label} </label>
      <select id={id} value={String(value)} onChange={(e) => choose(e.currentTarget.value)}>
        {choices.map(([v, words]) => (
          <option key={String(v)} value={String(v)}>
            {words}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Why a form was refused: the API's message, and its details for the fields to show. */
export interface FormFailure {
  readonly message: string | null;
  readonly details: readonly ErrorDetail[];
}

export const noFailure: FormFailure = { message: null, details: [] };

export const failureOf = (err: unknown): FormFailure =>
  err instanceof ApiError ? { message: err.message, details: err.details } : { message: errorText(err), details: [] };
