// Controls of their own for fields that name other resources: a form shows an event or a
// policy by its name, and sends its id.
import type { WidgetProps } from './schemaForm.js';
import { eventName, eventSource, type EventDefinition, type Policy } from './types.js';

/** A select of the workspace's events, for an event_id field. */
export function EventPicker(events: readonly EventDefinition[]) {
  return ({ id, value, onChange, describedBy, invalid }: WidgetProps) => (
    <select
      id={id}
      value={typeof value === 'string' ? value : ''}
      onChange={(e) => onChange(e.currentTarget.value)}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
    >
      <option value="">Choose an event…</option>
      {events.map((e) => (
        <option key={e.event_id} value={e.event_id}>
          {eventName(e)} ({eventSource(e)})
        </option>
      ))}
    </select>
  );
}

/** Checkboxes of the workspace's policies, for a policy_ids field. */
export function PolicyChoices(policies: readonly Policy[]) {
  return ({ id, value, onChange, describedBy }: WidgetProps) => {
    const chosen = Array.isArray(value) ? value : [];
    if (policies.length === 0) return <p id={id}>No policies yet.</p>;
    return (
      <fieldset class="choices plain" id={id} aria-labelledby={`${id}-label`} aria-describedby={describedBy}>
        {policies.map((p) => (
          <span class="choice" key={p.policy_id}>
            <input
              id={`${id}-${p.policy_id}`}
              type="checkbox"
              checked={chosen.includes(p.policy_id)}
              onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, p.policy_id] : chosen.filter((c) => c !== p.policy_id))}
            />
            <label for={`${id}-${p.policy_id}`}>{p.title}</label>
          </span>
        ))}
      </fieldset>
    );
  };
}
