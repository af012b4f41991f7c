// Escalation policies: the list (with the policies that use each), a create form built from
// the API's schema of POST /v1.0/escalation-policies with an editor for its steps, and delete.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { Table, failureOf, type FormFailure, noFailure } from '../components.js';
import { bodyFrom, type Draft, initialDraft, unplacedErrors } from '../drafts.js';
import { useLoad } from '../hooks.js';
import { requestSchema } from '../openapi.js';
import { FormErrors, SchemaFields, type WidgetProps } from '../schemaForm.js';
import type { Destination, PageProps, Policy } from '../types.js';

export interface EscalationPolicy {
  escalation_policy_id: string;
  name: string;
  steps: { after_minutes: number; destination_ids: string[] }[];
  repeat: number;
  policy_ids: string[];
}

type Step = { after_minutes: number | string; destination_ids: string[] };

const destinationName = (d: Destination) => `${d.channel}: ${d.url ?? d.destination_id.slice(0, 8)}`;

/** The steps field (a JSON array in the draft) as rows: minutes and the destinations of each step. */
function StepsEditor(destinations: readonly Destination[]) {
  return ({ id, value, onChange, describedBy }: WidgetProps) => {
    let steps: Step[] = [];
    try {
      const parsed = JSON.parse(typeof value === 'string' && value !== '' ? value : '[]');
      if (Array.isArray(parsed)) steps = parsed as Step[];
    } catch {
      steps = [];
    }
    const set = (next: Step[]) => onChange(JSON.stringify(next.map((s) => ({ ...s, after_minutes: Number(s.after_minutes) }))));
    const change = (i: number, step: Step) => set(steps.map((s, j) => (j === i ? step : s)));
    return (
      <div id={id} class="steps" aria-describedby={describedBy}>
        {steps.map((step, i) => (
          <fieldset class="field-group" key={i}>
            <legend>Step {i + 1}</legend>
            <div class="field">
              <label for={`${id}-${i}-minutes`}>Minutes after {i === 0 ? 'the alert triggered' : 'the step before'}</label>
              <input
                id={`${id}-${i}-minutes`}
                type="number"
                min={1}
                max={1440}
                value={String(step.after_minutes)}
                onInput={(e) => change(i, { ...step, after_minutes: e.currentTarget.value })}
              />
            </div>
            <fieldset class="choices plain">
              <legend>Destinations of step {i + 1}</legend>
              {destinations.map((d) => (
                <span class="choice" key={d.destination_id}>
                  <input
                    id={`${id}-${i}-${d.destination_id}`}
                    type="checkbox"
                    checked={step.destination_ids.includes(d.destination_id)}
                    onChange={(e) =>
                      change(i, {
                        ...step,
                        destination_ids: e.currentTarget.checked
                          ? [...step.destination_ids, d.destination_id]
                          : step.destination_ids.filter((x) => x !== d.destination_id),
                      })
                    }
                  />
                  <label for={`${id}-${i}-${d.destination_id}`}>{destinationName(d)}</label>
                </span>
              ))}
            </fieldset>
            <button type="button" onClick={() => set(steps.filter((_, j) => j !== i))}>
              Remove step {i + 1}
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => set([...steps, { after_minutes: 5, destination_ids: [] }])}>
          Add a step
        </button>
      </div>
    );
  };
}

export function EscalationPoliciesPage({ doc }: PageProps): JSX.Element {
  const list = useLoad(() => listAll<EscalationPolicy>('/v1.0/escalation-policies'), []);
  const destinations = useLoad(() => listAll<Destination>('/v1.0/destinations'), []);
  const policies = useLoad(() => listAll<Policy>('/v1.0/policies'), []);
  const schema = requestSchema(doc, 'post', '/v1.0/escalation-policies');
  const [draft, setDraft] = useState<Draft>(() => (schema ? { ...initialDraft(schema), '/steps': '[{"after_minutes":5,"destination_ids":[]}]' } : {}));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const titles = new Map((policies.value ?? []).map((p) => [p.policy_id, p.title]));
  const names = new Map((destinations.value ?? []).map((d) => [d.destination_id, destinationName(d)]));
  const create = async (e: Event) => {
    e.preventDefault();
    if (!schema) return;
    try {
      await api('POST', '/v1.0/escalation-policies', bodyFrom(schema, draft, 'create'));
      setFailure(noFailure);
      setDraft({ ...initialDraft(schema), '/steps': '[{"after_minutes":5,"destination_ids":[]}]' });
      setMessage('The escalation policy was created.');
      list.reload();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  const remove = async (p: EscalationPolicy) => {
    try {
      await api('DELETE', `/v1.0/escalation-policies/${p.escalation_policy_id}`);
      setMessage(`${p.name} was deleted.`);
      list.reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  return (
    <section aria-labelledby="escalation-heading">
      <h1 id="escalation-heading">Escalation policies</h1>
      <p class="muted">While an alert stays triggered, each step notifies its destinations; acknowledging the alert stops the chain.</p>
      <p role="status">{message}</p>
      {list.error ? <p role="alert">{errorText(list.error)}</p> : null}
      {list.value && list.value.length === 0 && <p>No escalation policies.</p>}
      {list.value && list.value.length > 0 && (
        <Table columns={['Name', 'Steps', 'Repeats', 'Used by', { label: 'Actions', hidden: true }]}>
          {list.value.map((p) => (
            <tr key={p.escalation_policy_id}>
              <td>{p.name}</td>
              <td>
                <ol class="plain">
                  {p.steps.map((s, i) => (
                    <li key={i}>
                      after {s.after_minutes} min: {s.destination_ids.map((id) => names.get(id) ?? id).join(', ')}
                    </li>
                  ))}
                </ol>
              </td>
              <td>{p.repeat}</td>
              <td>{p.policy_ids.length === 0 ? '–' : p.policy_ids.map((id) => titles.get(id) ?? id).join(', ')}</td>
              <td>
                <button type="button" class="danger" onClick={() => void remove(p)} aria-label={`Delete ${p.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {schema && (
        <form class="schema-form panel" onSubmit={create} noValidate aria-labelledby="new-escalation-heading">
          <h2 id="new-escalation-heading">New escalation policy</h2>
          <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details)} />
          <SchemaFields
            schema={schema}
            draft={draft}
            onDraft={setDraft}
            errors={failure.details}
            idPrefix="escalation"
            widgets={{ '/steps': StepsEditor(destinations.value ?? []) }}
          />
          <button class="primary" type="submit">
            Create escalation policy
          </button>
        </form>
      )}
    </section>
  );
}

/** A select of the workspace's escalation policies, for a policy's escalation_policy_id ("" = none). */
export function EscalationPicker(escalationPolicies: readonly EscalationPolicy[]) {
  return ({ id, value, onChange, describedBy, invalid }: WidgetProps) => (
    <select
      id={id}
      value={typeof value === 'string' ? value : ''}
      onChange={(e) => onChange(e.currentTarget.value)}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
    >
      <option value="">None</option>
      {escalationPolicies.map((p) => (
        <option key={p.escalation_policy_id} value={p.escalation_policy_id}>
          {p.name}
        </option>
      ))}
    </select>
  );
}
