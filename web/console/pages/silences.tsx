// Silences (when the service has them): the list, a create form built from the API's schema
// of POST /v1.0/silences, and ending one.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { Table, failureOf, type FormFailure, noFailure } from '../components.js';
import { useLoad } from '../hooks.js';
import { requestSchema } from '../openapi.js';
import { bodyFrom, type Draft, initialDraft, unplacedErrors } from '../drafts.js';
import { FormErrors, SchemaFields } from '../schemaForm.js';
import type { PageProps, Policy } from '../types.js';
import { PolicyChoices } from '../widgets.js';

interface Silence {
  silence_id: string;
  policy_ids: string[] | null;
  starts_at: string;
  ends_at: string;
  comment: string;
  recurrence: { timezone: string; days: string[]; start: string; end: string } | null;
}

const when = (iso: string) => new Date(iso).toLocaleString();

export function SilencesPage({ doc }: PageProps): JSX.Element {
  const silences = useLoad(() => listAll<Silence>('/v1.0/silences'), []);
  const policies = useLoad(() => listAll<Policy>('/v1.0/policies'), []);
  const schema = requestSchema(doc, 'post', '/v1.0/silences');
  const [draft, setDraft] = useState<Draft>(() => (schema ? initialDraft(schema) : {}));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const titles = new Map((policies.value ?? []).map((p) => [p.policy_id, p.title]));
  const create = async (e: Event) => {
    e.preventDefault();
    if (!schema) return;
    try {
      await api('POST', '/v1.0/silences', bodyFrom(schema, draft, 'create'));
      setFailure(noFailure);
      setDraft(initialDraft(schema));
      setMessage('The silence was created.');
      silences.reload();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  const end = async (s: Silence) => {
    try {
      await api('DELETE', `/v1.0/silences/${s.silence_id}`);
      setMessage('The silence was ended.');
      silences.reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  return (
    <section aria-labelledby="silences-heading">
      <h1 id="silences-heading">Silences</h1>
      <p class="muted">While a silence covers a policy, its alerts are raised and recorded as always, and their notifications are not sent.</p>
      <p role="status">{message}</p>
      {silences.error ? <p role="alert">{errorText(silences.error)}</p> : null}
      {silences.value && silences.value.length === 0 && <p>No silences.</p>}
      {silences.value && silences.value.length > 0 && (
        <Table columns={['Policies', 'From', 'To', 'Repeats', 'Comment', { label: 'Actions', hidden: true }]}>
          {silences.value.map((s) => (
            <tr key={s.silence_id}>
              <td>{s.policy_ids === null ? 'every policy' : s.policy_ids.map((id) => titles.get(id) ?? id).join(', ')}</td>
              <td>{when(s.starts_at)}</td>
              <td>{when(s.ends_at)}</td>
              <td>{s.recurrence ? `${s.recurrence.days.join(', ')} ${s.recurrence.start}–${s.recurrence.end} (${s.recurrence.timezone})` : '–'}</td>
              <td>{s.comment}</td>
              <td>
                <button type="button" class="danger" onClick={() => void end(s)}>
                  End
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {schema && (
        <form class="schema-form panel" onSubmit={create} noValidate aria-labelledby="new-silence-heading">
          <h2 id="new-silence-heading">New silence</h2>
          <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details)} />
          <SchemaFields
            schema={schema}
            draft={draft}
            onDraft={setDraft}
            errors={failure.details}
            idPrefix="silence"
            widgets={{ '/policy_ids': PolicyChoices(policies.value ?? []) }}
            labels={{ '/policy_ids': 'Policies (none chosen: every policy)' }}
          />
          <button class="primary" type="submit">
            Create silence
          </button>
        </form>
      )}
    </section>
  );
}
