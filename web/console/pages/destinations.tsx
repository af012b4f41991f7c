// Destinations: the list, a create form per channel built from the API's schema of
// POST /v1.0/destinations (validation errors next to the fields), enable/disable, and a test
// send that shows the provider's answer and the recorded attempt.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure } from '../components.js';
import { navigate, useLoad } from '../hooks.js';
import { hasRoute, type JsonSchema, requestSchema } from '../openapi.js';
import { bodyFrom, type Draft, initialDraft, unplacedErrors } from '../drafts.js';
import { browserZone } from '../../shared/time.js';
import { Time } from '../components.js';
import { DESTINATION_WORDS } from '../fieldWords.js';
import { FormErrors, SchemaFields } from '../schemaForm.js';
import { type DeliveryAttempt, type Destination, destinationTarget, type PageProps, type Policy } from '../types.js';
import { PolicyChoices } from '../widgets.js';
import { capitalize, CHANNEL_NAMES } from '../words.js';
import { DeliveryTable } from './alerts.js';
import { ManagedNotice } from '../managed.js';

/**
 * The channel-specific fields each channel uses. The schema lists the fields of every channel
 * together, and their descriptions say which applies; a field not named here (a new one) is
 * shown for every channel, and a new channel shows every field.
 */
const CHANNEL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  slack: ['/url'],
  discord: ['/url'],
  email: ['/url'],
  webhook: ['/url', '/credentials', '/credentials/authorization', '/body_template'],
  telegram: ['/credentials', '/credentials/bot_token', '/credentials/chat_id'],
};
const CHANNEL_SPECIFIC = new Set(Object.values(CHANNEL_FIELDS).flat());

const URL_LABELS: Readonly<Record<string, string>> = {
  slack: 'Slack incoming webhook URL',
  discord: 'Discord webhook URL',
  email: 'Email address (empty: the workspace owner)',
  webhook: 'Target URL',
};

const channelName = (channel: string) => CHANNEL_NAMES[channel] ?? channel;

export function DestinationsPage(props: PageProps): JSX.Element {
  const { route, doc } = props;
  const destinations = useLoad(() => listAll<Destination>('/v1.0/destinations'), []);
  const policies = useLoad(() => listAll<Policy>('/v1.0/policies'), []);
  const [notice, setNotice] = useState<{ text: string; secret?: string } | null>(null);
  const schema = requestSchema(doc, 'post', '/v1.0/destinations');
  if (route.parts[1] === 'new' && schema) {
    return (
      <DestinationForm
        schema={schema}
        policies={policies.value ?? []}
        onCreated={(created) => {
          const secret = typeof created.signing_secret === 'string' ? created.signing_secret : undefined;
          setNotice({ text: `The ${channelName(created.channel)} destination was created.`, secret });
          destinations.reload();
          navigate('#/destinations');
        }}
      />
    );
  }
  return (
    <section aria-labelledby="destinations-heading">
      <div class="panel-head">
        <h1 id="destinations-heading">Destinations</h1>
        <a class="button-link" href="#/destinations/new">
          New destination
        </a>
      </div>
      {notice && (
        <div class="notice" role="status">
          <p>{notice.text}</p>
          {notice.secret && <SecretOnce secret={notice.secret} />}
        </div>
      )}
      {destinations.error ? <p role="alert">{errorText(destinations.error)}</p> : null}
      {destinations.value && destinations.value.length === 0 && <p>No destinations yet: alerts are recorded but sent nowhere.</p>}
      {destinations.value?.map((d) => (
        <DestinationCard
          key={d.destination_id}
          destination={d}
          canRotate={hasRoute(doc, 'post', '/v1.0/destinations/{destinationID}/rotate-secret')}
          reload={destinations.reload}
        />
      ))}
    </section>
  );
}

function SecretOnce({ secret }: { secret: string }): JSX.Element {
  return (
    <div class="secret">
      <label for="signing-secret">Signing secret: copy it now, it is not shown again</label>
      <input id="signing-secret" type="text" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
    </div>
  );
}

interface TestOutcome {
  readonly text: string;
  readonly ok: boolean;
  readonly alertId: string | null;
}

function DestinationCard({ destination: d, canRotate, reload }: { destination: Destination; canRotate: boolean; reload: () => void }): JSX.Element {
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const [attempts, setAttempts] = useState<DeliveryAttempt[] | undefined>(undefined);
  const [message, setMessage] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const test = async () => {
    setBusy(true);
    setOutcome({ text: 'Sending a test notification…', ok: true, alertId: null });
    let alertId: string | null = null;
    try {
      const sent = await api<{ alert_id: string; status: string }>('POST', `/v1.0/destinations/${d.destination_id}/test`);
      alertId = sent.alert_id;
      setOutcome({ text: 'Sent: the provider accepted the test notification.', ok: true, alertId });
    } catch (err) {
      alertId = err instanceof ApiError && typeof err.body.alert_id === 'string' ? err.body.alert_id : null;
      // The provider's status and answer are in the details; some are in the message already.
      const details =
        err instanceof ApiError
          ? err.details
              .map((x) => x.message)
              .filter((m) => !err.message.includes(m))
              .join('; ')
          : '';
      setOutcome({ text: `Not sent: ${errorText(err)}${details ? ` (${details})` : ''}`, ok: false, alertId });
    }
    if (alertId) setAttempts(await api<DeliveryAttempt[]>('GET', `/v1.0/alerts/${alertId}/deliveries?kind=test`).catch(() => undefined));
    setBusy(false);
    reload();
  };
  const toggle = async () => {
    try {
      await api('PUT', `/v1.0/destinations/${d.destination_id}`, { enabled: !d.enabled });
      reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const rotate = async () => {
    if (!confirm('Replace the signing secret? The old one keeps signing beside the new one for 24 hours.')) return;
    try {
      const rotated = await api<{ signing_secret?: string }>('POST', `/v1.0/destinations/${d.destination_id}/rotate-secret`);
      setSecret(rotated.signing_secret ?? null);
      setMessage('The signing secret was replaced.');
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const name = `${channelName(d.channel)} destination ${destinationTarget(d)}`;
  return (
    <article class="panel destination" aria-label={name}>
      <div class="panel-head">
        <h2>
          {capitalize(channelName(d.channel))} <span class="muted target">{destinationTarget(d)}</span>
        </h2>
        <span class={d.enabled ? 'status status-ok' : 'status'}>{d.enabled ? 'enabled' : 'disabled'}</span>
      </div>
      <ManagedNotice kind="destinations" id={d.destination_id} version={d} />
      <dl class="facts-list">
        <dt>Scope</dt>
        <dd>{d.scope === 'all' ? 'every alert' : `alerts of ${d.policy_ids.length} polic${d.policy_ids.length === 1 ? 'y' : 'ies'}`}</dd>
        <dt>Last delivered</dt>
        <dd>{d.last_delivered_at ? <Time at={d.last_delivered_at} zone={browserZone()} /> : 'not yet'}</dd>
        <dt>Last error</dt>
        <dd>{d.last_error ?? '–'}</dd>
      </dl>
      <div class="button-row">
        <button type="button" disabled={busy} onClick={() => void test()} aria-label={`Send a test to the ${name}`}>
          Send test
        </button>
        <button type="button" onClick={() => void toggle()} aria-label={`${d.enabled ? 'Disable' : 'Enable'} the ${name}`}>
          {d.enabled ? 'Disable' : 'Enable'}
        </button>
        {canRotate && d.channel === 'webhook' && (
          <button type="button" onClick={() => void rotate()}>
            Replace signing secret
          </button>
        )}
      </div>
      <p role="status">{message}</p>
      {secret && <SecretOnce secret={secret} />}
      {outcome && (
        <div class={outcome.ok ? 'test-outcome' : 'test-outcome error'} role="status">
          <p>{outcome.text}</p>
          {outcome.alertId && <DeliveryTable attempts={attempts} error={null} zone={browserZone()} />}
        </div>
      )}
    </article>
  );
}

function DestinationForm({
  schema,
  policies,
  onCreated,
}: {
  schema: JsonSchema;
  policies: readonly Policy[];
  onCreated: (d: Destination) => void;
}): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => initialDraft(schema));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [busy, setBusy] = useState(false);
  const channel = typeof draft['/channel'] === 'string' ? draft['/channel'] : '';
  const uses = CHANNEL_FIELDS[channel];
  const include = (path: string) => {
    if (path === '/policy_ids') return draft['/scope'] === 'policies';
    if (!CHANNEL_SPECIFIC.has(path)) return true;
    return channel !== '' && (uses === undefined || uses.includes(path));
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      onCreated(await api<Destination>('POST', '/v1.0/destinations', bodyFrom(schema, draft, 'create', include)));
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="destination-form-heading">
      <p>
        <a href="#/destinations">← Destinations</a>
      </p>
      <h1 id="destination-form-heading">New destination</h1>
      <form class="schema-form" onSubmit={save} noValidate>
        <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details, include)} />
        <SchemaFields
          schema={schema}
          draft={draft}
          onDraft={setDraft}
          errors={failure.details}
          idPrefix="destination"
          include={include}
          widgets={{ '/policy_ids': PolicyChoices(policies) }}
          words={DESTINATION_WORDS}
          labels={{ '/url': URL_LABELS[channel] ?? 'URL' }}
        />
        <div class="button-row">
          <button class="primary" type="submit" disabled={busy}>
            Create destination
          </button>
          <a href="#/destinations">Cancel</a>
        </div>
      </form>
    </section>
  );
}
