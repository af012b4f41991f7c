// The dimensions of an event name: the meta keys its numbers break down by, a form to declare
// or replace them, whether the breakdown is still being filled in from stored logs (the
// backfill, polled while it runs) and whether the event has more series than it may keep
// (the overflow). In words and in the browser's time zone, which it names.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { browserZone, formatSpan } from '../../shared/time.js';
import { api, ApiError, errorText } from '../api.js';
import { failureOf, type FormFailure, noFailure, Time } from '../components.js';
import { useInterval, useLoad } from '../hooks.js';
import { ManagedNotice } from '../managed.js';
import type { Dimension } from '../types.js';

export const dimensionPath = (event: string) => `/v1.0/dimensions/${encodeURIComponent(event)}`;

/** The declaration of an event name, or null when it has none (404). */
export const readDimension = (event: string) =>
  api<Dimension>('GET', dimensionPath(event)).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  });

const keysFromText = (text: string) =>
  text
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');

/** A refused key named by its text, not by its place in the list the API saw. */
function problemText(path: string, message: string, keys: readonly string[]): string {
  const index = /^\/keys\/(\d+)$/.exec(path)?.[1];
  const key = index === undefined ? undefined : keys[Number(index)];
  return key === undefined ? message : `“${key}” ${message}`;
}

export function DimensionsPanel({ event, onChanged }: { event: string; onChanged: () => void }): JSX.Element {
  const zone = browserZone();
  const dimension = useLoad(() => readDimension(event), [event]);
  const running = dimension.value?.backfill.status === 'running';
  useInterval(() => running && dimension.reload(), 2_000);
  const [keysText, setKeysText] = useState<string | null>(null);
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shownText = keysText ?? dimension.value?.keys.join(', ') ?? '';

  const change = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setFailure(noFailure);
    setMessage(null);
    try {
      await what();
      setKeysText(null);
      setMessage(done);
      dimension.reload();
      onChanged();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const save = (e: Event) => {
    e.preventDefault();
    void change(() => api('PUT', dimensionPath(event), { keys: keysFromText(shownText) }), 'Saved.');
  };
  const remove = () => void change(() => api('DELETE', dimensionPath(event)), 'Removed: numbers now break down by agent only.');

  const d = dimension.value;
  return (
    <section class="panel" aria-labelledby="dimensions-heading">
      <h3 id="dimensions-heading">Dimensions</h3>
      {d && <ManagedNotice kind="dimensions" id={event} version={d} />}
      {dimension.error ? <p role="alert">{errorText(dimension.error)}</p> : null}
      {dimension.loading && d === undefined && <p class="muted">Loading…</p>}
      {d === null && <p>Nothing declared: the numbers of {event} break down by agent only.</p>}
      {d && (
        <dl class="facts-list dimension-facts">
          <dt>Keys</dt>
          <dd>{d.keys.length > 0 ? d.keys.join(', ') : 'none (agents only)'}</dd>
          <dt>Breakdown of stored logs</dt>
          <dd data-backfill={d.backfill.status}>
            <span role="status">
              {d.backfill.status === 'running'
                ? `Being filled in from the logs of ${formatSpan(d.backfill.from, d.backfill.to, zone, true)}…`
                : `Complete: the logs of ${formatSpan(d.backfill.from, d.backfill.to, zone, true)} and every one since.`}
            </span>
          </dd>
          <dt>Series</dt>
          <dd data-overflowing={String(d.overflowing)}>
            {d.overflowing ? (
              <strong class="warning-text">
                Too many series in the last 24 hours: records of further new series are counted together as “other series (over the limit)”. Totals stay exact;
                keys with fewer values break down better.
              </strong>
            ) : (
              'Within the limit: every series is kept apart.'
            )}
          </dd>
          <dt>Declared</dt>
          <dd>
            <Time at={d.created_at} zone={zone} />
            {d.updated_at !== d.created_at && (
              <>
                {', changed '}
                <Time at={d.updated_at} zone={zone} />
              </>
            )}
          </dd>
        </dl>
      )}
      <form class="dimension-form" onSubmit={save} noValidate>
        <label for="dimension-keys">Meta keys to break down by</label>
        <input
          id="dimension-keys"
          type="text"
          autocomplete="off"
          spellcheck={false}
          value={shownText}
          placeholder="route, code"
          onInput={(e) => setKeysText(e.currentTarget.value)}
          aria-describedby="dimension-keys-help"
          aria-invalid={failure.message ? true : undefined}
        />
        <p class="help" id="dimension-keys-help">
          Up to 8 keys of the records’ meta, separated by commas (letters, digits and _ . : -). Each record is then counted in its agent’s series of those
          values. Choose keys with few values: a route, a status code, a region — not an id.
        </p>
        {failure.message && (
          <div class="field-error" role="alert">
            <p>{failure.details.length > 0 ? 'These keys cannot be declared:' : failure.message}</p>
            {failure.details.length > 0 && (
              <ul>
                {failure.details.map((p) => (
                  <li key={`${p.path}${p.message}`}>{problemText(p.path, p.message, keysFromText(shownText))}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        <div class="button-row">
          <button class="primary" type="submit" disabled={busy}>
            {d ? 'Save keys' : 'Declare keys'}
          </button>
          {d && (
            <button type="button" disabled={busy} onClick={remove}>
              Remove the breakdown
            </button>
          )}
        </div>
        <p role="status">{message}</p>
      </form>
    </section>
  );
}
