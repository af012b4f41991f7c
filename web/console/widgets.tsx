// Controls of their own for fields that name other resources: a form shows an event or a
// policy by its name, and sends its id.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { filterJson, filterLines } from './filterLines.js';
import type { WidgetProps } from './schemaForm.js';
import { eventName, eventSource, type EventDefinition, type Policy } from './types.js';

/** A select of these options, the first (value "") saying what choosing none means. */
export function Picker(options: readonly { readonly value: string; readonly label: string }[], none: string) {
  return ({ id, value, onChange, describedBy, invalid }: WidgetProps) => (
    <select
      id={id}
      value={typeof value === 'string' ? value : ''}
      onChange={(e) => onChange(e.currentTarget.value)}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
    >
      <option value="">{none}</option>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/** A select of the workspace's events, for an event_id field. */
export const EventPicker = (events: readonly EventDefinition[]) =>
  Picker(
    events.map((e) => ({ value: e.event_id, label: `${eventName(e)} (${eventSource(e)})` })),
    'Choose an event…',
  );

/** Checkboxes of these options, for a field that is a list of values. */
function Choices(options: readonly { readonly value: string; readonly label: string }[], none: string) {
  return ({ id, value, onChange, describedBy }: WidgetProps) => {
    const chosen = Array.isArray(value) ? value : [];
    if (options.length === 0) return <p id={id}>{none}</p>;
    return (
      <fieldset class="choices plain" id={id} aria-labelledby={`${id}-label`} aria-describedby={describedBy}>
        {options.map((o) => (
          <span class="choice" key={o.value}>
            <input
              id={`${id}-${o.value}`}
              type="checkbox"
              checked={chosen.includes(o.value)}
              onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))}
            />
            <label for={`${id}-${o.value}`}>{o.label}</label>
          </span>
        ))}
      </fieldset>
    );
  };
}

/** Checkboxes of the workspace's policies, for a policy_ids field. */
export const PolicyChoices = (policies: readonly Policy[]) =>
  Choices(
    policies.map((p) => ({ value: p.policy_id, label: p.title })),
    'No policies yet.',
  );

/** A select of the event names the workspace's agents send, for a fleet policy's event field. */
export function EventNamePicker(events: readonly EventDefinition[]) {
  const names = [...new Set(events.map((e) => e.event))].sort();
  const agents = (name: string) => events.filter((e) => e.event === name).length;
  return Picker(
    names.map((name) => ({ value: name, label: `${name} (${agents(name)} agent${agents(name) === 1 ? '' : 's'})` })),
    'Choose an event name…',
  );
}

/** Checkboxes of the labels a fleet policy may group by: each checked label tells groups apart. */
export const GroupByChoices = (keys: readonly string[]) =>
  Choices(
    keys.map((key) => ({ value: key, label: key === 'agent' ? 'Each agent on its own' : `Each ${key} on its own` })),
    'Nothing to group by.',
  );

/** A textarea of filter lines for a fleet policy's filter (a JSON object in the API). */
export function FilterLinesWidget({ id, value, onChange, describedBy, invalid }: WidgetProps): JSX.Element {
  const [text, setText] = useState(() => filterLines(typeof value === 'string' ? value : ''));
  return (
    <textarea
      id={id}
      rows={3}
      spellcheck={false}
      placeholder={'code = 500\nregion = eu or us'}
      value={text}
      onInput={(e) => {
        setText(e.currentTarget.value);
        onChange(filterJson(e.currentTarget.value));
      }}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
    />
  );
}
