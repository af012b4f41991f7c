// Escalation policies: the list (with the policies that use each), a create form built from
// the API's schema of POST /v1.0/escalation-policies with an editor for its steps, and delete.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { bodyFrom, type Draft, draftRows, initialDraft, unplacedErrors } from '../drafts.js';
import { ESCALATION_WORDS } from '../fieldWords.js';
import { useLoad } from '../hooks.js';
import { requestSchema } from '../openapi.js';
import { FormErrors, SchemaFields, type WidgetProps } from '../schemaForm.js';
import { type Destination, destinationTarget, type PageProps, type Policy } from '../types.js';
import { Picker } from '../widgets.js';
import { CHANNEL_NAMES } from '../words.js';
import type { Person } from './people.js';

export interface EscalationPolicy {
  escalation_policy_id: string;
  name: string;
  steps: { after_minutes: number; destination_ids: string[]; schedule_ids: string[]; person_ids: string[] }[];
  repeat: number;
  policy_ids: string[];
}

type TargetList = 'destination_ids' | 'schedule_ids' | 'person_ids';
type Step = { after_minutes: number | string } & Record<TargetList, string[]>;

/** What a step may page, by list: each choice's id and the words it is shown with. */
export type StepChoices = Record<TargetList, readonly { id: string; label: string }[]>;

const TARGET_WORDS: Record<TargetList, string> = {
  destination_ids: 'Destinations',
  schedule_ids: 'Whoever is on call in',
  person_ids: 'People',
};

const destinationName = (d: Destination) => `${CHANNEL_NAMES[d.channel] ?? d.channel}: ${destinationTarget(d)}`;

const emptyStep = (): Step => ({ after_minutes: 5, destination_ids: [], schedule_ids: [], person_ids: [] });
const NEW_STEPS = JSON.stringify([emptyStep()]);

/** One list of a step's targets as checkboxes (nothing shown when the workspace has none of them). */
function TargetChoices(props: {
  id: string;
  legend: string;
  choices: readonly { id: string; label: string }[];
  chosen: string[];
  onChange: (ids: string[]) => void;
}) {
  if (props.choices.length === 0) return null;
  return (
    <fieldset class="choices plain">
      <legend>{props.legend}</legend>
      {props.choices.map((c) => (
        <span class="choice" key={c.id}>
          <input
            id={`${props.id}-${c.id}`}
            type="checkbox"
            checked={props.chosen.includes(c.id)}
            onChange={(e) => props.onChange(e.currentTarget.checked ? [...props.chosen, c.id] : props.chosen.filter((x) => x !== c.id))}
          />
          <label for={`${props.id}-${c.id}`}>{c.label}</label>
        </span>
      ))}
    </fieldset>
  );
}

/** The steps field (a JSON array in the draft) as rows: minutes, then the destinations, schedules and people each step pages. */
function StepsEditor(choices: StepChoices) {
  return ({ id, value, onChange, describedBy }: WidgetProps) => {
    const steps = draftRows(value, emptyStep);
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
            {(['schedule_ids', 'person_ids', 'destination_ids'] as const).map((list) => (
              <TargetChoices
                key={list}
                id={`${id}-${i}-${list}`}
                legend={`${TARGET_WORDS[list]} (step ${i + 1})`}
                choices={choices[list]}
                chosen={step[list]}
                onChange={(ids) => change(i, { ...step, [list]: ids })}
              />
            ))}
            <button type="button" onClick={() => set(steps.filter((_, j) => j !== i))}>
              Remove step {i + 1}
            </button>
          </fieldset>
        ))}
        <button type="button" onClick={() => set([...steps, emptyStep()])}>
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
  const schedules = useLoad(() => listAll<{ schedule_id: string; name: string }>('/v1.0/schedules'), []);
  const people = useLoad(() => listAll<Person>('/v1.0/people'), []);
  const schema = requestSchema(doc, 'post', '/v1.0/escalation-policies');
  const [draft, setDraft] = useState<Draft>(() => (schema ? { ...initialDraft(schema), '/steps': NEW_STEPS } : {}));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const titles = new Map((policies.value ?? []).map((p) => [p.policy_id, p.title]));
  const choices: StepChoices = {
    destination_ids: (destinations.value ?? []).map((d) => ({ id: d.destination_id, label: destinationName(d) })),
    schedule_ids: (schedules.value ?? []).map((x) => ({ id: x.schedule_id, label: x.name })),
    person_ids: (people.value ?? []).map((p) => ({ id: p.person_id, label: p.name })),
  };
  const loaded = destinations.value && schedules.value && people.value;
  const names = new Map(
    [...choices.destination_ids, ...choices.schedule_ids.map((c) => ({ ...c, label: `whoever is on call in ${c.label}` })), ...choices.person_ids].map((c) => [
      c.id,
      c.label,
    ]),
  );
  const stepWords = (s: EscalationPolicy['steps'][number]) =>
    [...s.schedule_ids, ...s.person_ids, ...s.destination_ids].map((id) => (loaded ? (names.get(id) ?? 'something deleted') : '…')).join(', ');
  const create = async (e: Event) => {
    e.preventDefault();
    if (!schema) return;
    try {
      await api('POST', '/v1.0/escalation-policies', bodyFrom(schema, draft, 'create'));
      setFailure(noFailure);
      setDraft({ ...initialDraft(schema), '/steps': NEW_STEPS });
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
  const columns: ListColumn<EscalationPolicy>[] = [
    { label: 'Name', role: 'title', cell: (p) => p.name },
    {
      label: 'Steps',
      cell: (p) => (
        <ol class="plain">
          {p.steps.map((s, i) => (
            <li key={i}>
              after {s.after_minutes} min: {stepWords(s)}
            </li>
          ))}
        </ol>
      ),
    },
    { label: 'Repeats', cell: (p) => (p.repeat === 0 ? 'once through' : `${p.repeat} more time${p.repeat === 1 ? '' : 's'}`) },
    { label: 'Used by', cell: (p) => (p.policy_ids.length === 0 ? 'no policy' : p.policy_ids.map((id) => titles.get(id) ?? '…').join(', ')) },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (p) => (
        <button type="button" class="danger" onClick={() => void remove(p)} aria-label={`Delete ${p.name}`}>
          Delete
        </button>
      ),
    },
  ];
  return (
    <section aria-labelledby="escalation-heading">
      <h1 id="escalation-heading">Escalation policies</h1>
      <p class="muted">
        While an alert stays triggered, each step pages whoever is on call in its schedules, its people and its destinations; acknowledging the alert stops the
        chain.
      </p>
      <p role="status">{message}</p>
      {list.error ? <p role="alert">{errorText(list.error)}</p> : null}
      {list.value && list.value.length === 0 && <p>No escalation policies.</p>}
      {list.value && list.value.length > 0 && <DataTable columns={columns} rows={list.value} rowKey={(p) => p.escalation_policy_id} className="escalation" />}
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
            widgets={{ '/steps': StepsEditor(choices) }}
            words={ESCALATION_WORDS}
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
export const EscalationPicker = (escalationPolicies: readonly EscalationPolicy[]) =>
  Picker(
    escalationPolicies.map((p) => ({ value: p.escalation_policy_id, label: p.name })),
    'None',
  );
