// People: who can be on call, and the destinations that reach them (list, create, edit).
import { KEY_WORD } from '../fieldWords.js';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { useLoad } from '../hooks.js';
import type { PageProps } from '../types.js';
import { CHANNEL_NAMES } from '../words.js';
import { ManagedNotice } from '../managed.js';

export interface Person {
  person_id: string;
  key: string | null;
  name: string;
  timezone: string;
  destination_ids: string[];
}

interface Destination {
  destination_id: string;
  channel: string;
  name?: string | null;
  url?: string | null;
}

const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];
const emptyDraft = { key: '', name: '', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', destination_ids: [] as string[] };

export const destinationLabel = (d: Destination) =>
  d.name || `${CHANNEL_NAMES[d.channel] ?? d.channel}${d.url ? ` ${d.url.replace(/^https?:\/\//, '').slice(0, 40)}` : ''}`;

/** The message of the API's detail at `path`, for the field it names. */
const detailAt = (failure: FormFailure, path: string) => failure.details.find((d) => d.path === path || d.path.startsWith(`${path}/`))?.message;

export function PeoplePage(_: PageProps): JSX.Element {
  const people = useLoad(() => listAll<Person>('/v1.0/people'), []);
  const destinations = useLoad(() => listAll<Destination>('/v1.0/destinations'), []);
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState(emptyDraft);
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const names = new Map((destinations.value ?? []).map((d) => [d.destination_id, destinationLabel(d)]));

  const edit = (p: Person | null) => {
    setEditing(p?.person_id ?? null);
    setDraft(p ? { key: p.key ?? '', name: p.name, timezone: p.timezone, destination_ids: [...p.destination_ids] } : emptyDraft);
    setFailure(noFailure);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      const body = { ...draft, key: draft.key.trim() === '' ? null : draft.key.trim() };
      if (editing) await api('PUT', `/v1.0/people/${editing}`, body);
      else await api('POST', '/v1.0/people', body);
      setMessage(editing ? `${draft.name} was saved.` : `${draft.name} was added.`);
      edit(null);
      people.reload();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  const remove = async (p: Person) => {
    try {
      await api('DELETE', `/v1.0/people/${p.person_id}`);
      setMessage(`${p.name} was removed.`);
      people.reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const columns: ListColumn<Person>[] = [
    { label: 'Name', role: 'title', cell: (p) => p.name },
    { label: 'Lives in (timezone)', cell: (p) => p.timezone },
    { label: 'Reached by', cell: (p) => p.destination_ids.map((id) => names.get(id) ?? 'a destination').join(', ') },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (p) => (
        <>
          <button type="button" onClick={() => edit(p)} aria-label={`Edit ${p.name}`}>
            Edit
          </button>
          <button type="button" class="danger" onClick={() => void remove(p)} aria-label={`Remove ${p.name}`}>
            Remove
          </button>
        </>
      ),
    },
  ];
  const field = (path: string) => {
    const error = detailAt(failure, path);
    return { error, invalid: error ? true : undefined };
  };
  const nameField = field('/name');
  const keyField = field('/key');
  const zoneField = field('/timezone');
  const destField = field('/destination_ids');

  return (
    <section aria-labelledby="people-heading">
      <h1 id="people-heading">People</h1>
      <p class="muted">Who can be on call. Schedules name people in their rotations; a page to a person goes to the destinations that reach them.</p>
      <p role="status">{message}</p>
      {people.error ? <p role="alert">{errorText(people.error)}</p> : null}
      {people.value && people.value.length === 0 && <p>No people yet.</p>}
      {people.value && people.value.length > 0 && <DataTable columns={columns} rows={people.value} rowKey={(p) => p.person_id} className="people" />}
      <form class="panel" onSubmit={save} noValidate aria-labelledby="person-form-heading">
        <h2 id="person-form-heading">{editing ? `Edit ${draft.name}` : 'Add a person'}</h2>
        {editing && <ManagedNotice kind="people" id={editing} version={people.value} />}
        {failure.message && (
          <p class="field-error" role="alert">
            {failure.message}
          </p>
        )}
        <div class="field">
          <label for="person-name">Name</label>
          <input id="person-name" value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} aria-invalid={nameField.invalid} />
          {nameField.error && <p class="field-error">{nameField.error}</p>}
        </div>
        <div class="field">
          <label for="person-timezone">Where they live (timezone)</label>
          <input
            id="person-timezone"
            list="person-zones"
            value={draft.timezone}
            onInput={(e) => setDraft({ ...draft, timezone: e.currentTarget.value })}
            aria-invalid={zoneField.invalid}
          />
          <datalist id="person-zones">
            {ZONES.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          {zoneField.error && <p class="field-error">{zoneField.error}</p>}
        </div>
        <fieldset class="choices plain" aria-invalid={destField.invalid}>
          <legend>Reached by (1 to 10 destinations)</legend>
          {(destinations.value ?? []).length === 0 && <p>No destinations yet: add one under Destinations first.</p>}
          {(destinations.value ?? []).map((d) => (
            <span class="choice" key={d.destination_id}>
              <input
                id={`person-dest-${d.destination_id}`}
                type="checkbox"
                checked={draft.destination_ids.includes(d.destination_id)}
                onChange={(e) =>
                  setDraft({
                    ...draft,
                    destination_ids: e.currentTarget.checked
                      ? [...draft.destination_ids, d.destination_id]
                      : draft.destination_ids.filter((x) => x !== d.destination_id),
                  })
                }
              />
              <label for={`person-dest-${d.destination_id}`}>{destinationLabel(d)}</label>
            </span>
          ))}
          {destField.error && <p class="field-error">{destField.error}</p>}
        </fieldset>
        <div class="field">
          <label for="person-key">{KEY_WORD.label}</label>
          <input
            id="person-key"
            value={draft.key}
            onInput={(e) => setDraft({ ...draft, key: e.currentTarget.value })}
            aria-invalid={keyField.invalid}
            aria-describedby="person-key-help"
          />
          <p class="help" id="person-key-help">
            {KEY_WORD.help}
          </p>
          {keyField.error && <p class="field-error">{keyField.error}</p>}
        </div>
        <button class="primary" type="submit">
          {editing ? 'Save' : 'Add person'}
        </button>
        {editing && (
          <button type="button" onClick={() => edit(null)}>
            Cancel
          </button>
        )}
      </form>
    </section>
  );
}
