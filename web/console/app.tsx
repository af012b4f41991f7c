import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, downloadConfiguration, errorText, listAll, onSignedOut, signIn, signOut, storedToken } from './api.js';
import { useLoad, useRoute } from './hooks.js';
import { hasRoute, loadApiDocument } from './openapi.js';
import { AlertsPage } from './pages/alerts.js';
import { DestinationsPage } from './pages/destinations.js';
import { prefetchRollups } from './pages/eventChart.js';
import { EventsPage } from './pages/events.js';
import { FleetsPage } from './pages/fleets.js';
import { PoliciesPage } from './pages/policies.js';
import { SilencesPage } from './pages/silences.js';
import { EscalationPoliciesPage } from './pages/escalation.js';
import { PeoplePage } from './pages/people.js';
import { AlertSourcesPage } from './pages/alertSources.js';
import { SchedulesPage } from './pages/schedules.js';
import type { EventDefinition } from './types.js';

export function App(): JSX.Element {
  const [signedIn, setSignedIn] = useState(storedToken() !== null);
  useEffect(() => onSignedOut(() => setSignedIn(false)), []);
  return signedIn ? <Console /> : <SignIn onSignedIn={() => setSignedIn(true)} />;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }): JSX.Element {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    signIn(token.trim());
    try {
      await api('GET', '/v1.0/events?limit=1');
      onSignedIn();
    } catch (err) {
      signOut();
      setError(err instanceof ApiError && err.status === 401 ? 'This token is not valid for any workspace.' : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>alertmon</h1>
      <form onSubmit={submit}>
        <label for="token">Workspace token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-describedby="token-help"
          aria-invalid={error ? true : undefined}
        />
        <p class="help" id="token-help">
          A token starting with chp_ (from <code>npm run token</code> or the admin API). It is kept in this tab only and sent as an Authorization header.
        </p>
        {error && (
          <p class="field-error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
    </main>
  );
}

const SECTIONS = [
  ['events', 'Events'],
  ['fleets', 'Fleets'],
  ['policies', 'Policies'],
  ['alerts', 'Alerts'],
  ['destinations', 'Destinations'],
  ['silences', 'Silences'],
  ['alert-sources', 'Alert sources'],
  ['escalation', 'Escalation'],
  ['schedules', 'On call'],
  ['people', 'People'],
] as const;

function Console(): JSX.Element {
  const route = useRoute();
  const doc = useLoad(loadApiDocument, []);
  const events = useLoad(() => {
    // The chart of the event the page opens on (the one in the URL, else the newest) is read
    // at once, beside the whole list rather than after it.
    if ((route.parts[0] ?? 'events') === 'events') {
      const routed = route.parts[1];
      if (routed) prefetchRollups(routed);
      else
        void api<EventDefinition[]>('GET', '/v1.0/events?limit=1').then(
          ([newest]) => newest && prefetchRollups(newest.event_id),
          () => {},
        );
    }
    return listAll<EventDefinition>('/v1.0/events');
  }, []);
  const section = route.parts[0] ?? 'events';
  const sections = SECTIONS.filter(
    ([name]) =>
      (name !== 'silences' || (doc.value && hasRoute(doc.value, 'get', '/v1.0/silences'))) &&
      (name !== 'alert-sources' || (doc.value && hasRoute(doc.value, 'get', '/v1.0/alert-sources'))),
  );
  let page: JSX.Element;
  if (doc.error || events.error) page = <p role="alert">{errorText(doc.error ?? events.error)}</p>;
  else if (!doc.value || !events.value) page = <p>Loading…</p>;
  else {
    const shared = { doc: doc.value, events: events.value, reloadEvents: events.reload, route };
    page =
      section === 'fleets' ? (
        <FleetsPage {...shared} />
      ) : section === 'policies' ? (
        <PoliciesPage {...shared} />
      ) : section === 'alerts' ? (
        <AlertsPage {...shared} />
      ) : section === 'destinations' ? (
        <DestinationsPage {...shared} />
      ) : section === 'silences' ? (
        <SilencesPage {...shared} />
      ) : section === 'alert-sources' ? (
        <AlertSourcesPage {...shared} />
      ) : section === 'escalation' ? (
        <EscalationPoliciesPage {...shared} />
      ) : section === 'schedules' ? (
        <SchedulesPage {...shared} />
      ) : section === 'people' ? (
        <PeoplePage {...shared} />
      ) : (
        <EventsPage {...shared} />
      );
  }
  return (
    <>
      {/* A button, not a #main link: the fragment holds the console's place. */}
      <button type="button" class="skip-link" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <span class="brand">alertmon</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([name, label]) => (
              <li key={name}>
                <a href={`#/${name}`} aria-current={section === name ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button
          type="button"
          title="Download the workspace's policies, destinations, escalation, on-call and silences as alerting.yaml"
          onClick={() => void downloadConfiguration()}
        >
          Export configuration
        </button>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {page}
      </main>
    </>
  );
}
