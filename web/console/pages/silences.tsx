// Silences (when the service has them): the list, a create form built from the API's schema
// of POST /v1.0/silences, and ending one. Times are in the browser's zone (the form's too),
// a weekly window's in its own.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { browserZone } from '../../shared/time.js';
import { api, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure, Time } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { useLoad } from '../hooks.js';
import { hasRoute, requestSchema } from '../openapi.js';
import { bodyFrom, type Draft, initialDraft, unplacedErrors } from '../drafts.js';
import { SILENCE_WORDS } from '../fieldWords.js';
import { FormErrors, SchemaFields } from '../schemaForm.js';
import type { PageProps, Policy } from '../types.js';
import { PolicyChoices } from '../widgets.js';
import { DAY_NAMES } from '../words.js';

interface Silence {
  silence_id: string;
  policy_ids: string[] | null;
  /** Alertmanager matchers as text (`alertname="NodeDown"`), all of which an alert must match. */
  matchers?: string[] | null;
  starts_at: string;
  ends_at: string;
  comment: string;
  recurrence: { timezone: string; days: string[]; start: string; end: string } | null;
}

/** "Monday to Friday, 02:00–03:00 (Europe/Berlin)" */
function weeklyText(r: NonNullable<Silence['recurrence']>): string {
  const order = Object.keys(DAY_NAMES);
  const days = [...r.days].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const indices = days.map((d) => order.indexOf(d));
  const consecutive = days.length > 2 && indices.every((d, i) => i === 0 || d === indices[i - 1]! + 1);
  const names = days.map((d) => DAY_NAMES[d] ?? d);
  const dayText = consecutive ? `${names[0]} to ${names[names.length - 1]}` : names.join(', ');
  return `${dayText}, ${r.start}–${r.end} (${r.timezone})`;
}

export function SilencesPage({ doc }: PageProps): JSX.Element {
  const silences = useLoad(() => listAll<Silence>('/v1.0/silences'), []);
  const policies = useLoad(() => listAll<Policy>('/v1.0/policies'), []);
  const sources = useLoad(
    () => (hasRoute(doc, 'get', '/v1.0/alert-sources') ? listAll<{ alert_source_id: string; name: string }>('/v1.0/alert-sources') : Promise.resolve([])),
    [],
  );
  const schema = requestSchema(doc, 'post', '/v1.0/silences');
  const [draft, setDraft] = useState<Draft>(() => (schema ? initialDraft(schema) : {}));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const titles = new Map([
    ...(policies.value ?? []).map((p) => [p.policy_id, p.title] as const),
    ...(sources.value ?? []).map((s) => [s.alert_source_id, `alerts of ${s.name}`] as const),
  ]);
  /** What the silence covers, in words: its policies (or sources) and its matchers. */
  const covers = (s: Silence) => {
    const matching = s.matchers && s.matchers.length > 0 ? s.matchers.join(', ') : null;
    if (s.policy_ids === null) return matching ? `Every alert matching ${matching}` : 'Every policy';
    const named = s.policy_ids.map((id) => (policies.value ? (titles.get(id) ?? 'a deleted policy') : '…')).join(', ');
    return matching ? `${named}, matching ${matching}` : named;
  };
  const zone = browserZone();
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
  const columns: ListColumn<Silence>[] = [
    {
      label: 'Covers',
      role: 'title',
      cell: covers,
    },
    { label: 'From', cell: (s) => <Time at={s.starts_at} zone={zone} /> },
    { label: 'To', cell: (s) => <Time at={s.ends_at} zone={zone} /> },
    { label: 'When', cell: (s) => (s.recurrence ? weeklyText(s.recurrence) : 'the whole time') },
    { label: 'Comment', cell: (s) => s.comment || '–' },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (s) => (
        <button type="button" class="danger" onClick={() => void end(s)} aria-label={`End the silence${s.comment ? `: ${s.comment}` : ''}`}>
          End
        </button>
      ),
    },
  ];
  return (
    <section aria-labelledby="silences-heading">
      <h1 id="silences-heading">Silences</h1>
      <p class="muted">
        While a silence covers an alert (by its policy or source, or by matchers on its labels), the alert is raised and recorded as always, and its
        notifications are not sent.
      </p>
      <p role="status">{message}</p>
      {silences.error ? <p role="alert">{errorText(silences.error)}</p> : null}
      {silences.value && silences.value.length === 0 && <p>No silences.</p>}
      {silences.value && silences.value.length > 0 && <DataTable columns={columns} rows={silences.value} rowKey={(s) => s.silence_id} className="silences" />}
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
            words={SILENCE_WORDS}
          />
          <button class="primary" type="submit">
            Create silence
          </button>
        </form>
      )}
    </section>
  );
}
