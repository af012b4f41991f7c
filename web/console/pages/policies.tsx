// Policies: the list with enable/disable, and a create/edit form built from the API's own
// schema of POST /v1.0/policies (every field and rule option the service has), with a preview
// of what the policy would have raised on stored history when the backtest route exists.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../../shared/rollups.js';
import { api, ApiError, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure, Time } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { navigate, useLoad } from '../hooks.js';
import { hasRoute, type JsonSchema, requestSchema } from '../openapi.js';
import { bodyFrom, type Draft, draftFrom, initialDraft, unplacedErrors } from '../drafts.js';
import { POLICY_WORDS } from '../fieldWords.js';
import { ruleDetails, ruleText } from '../rules.js';
import { FormErrors, SchemaFields } from '../schemaForm.js';
import { type Dimension, type EventDefinition, labelsText, type PageProps, type Policy, policySubject, zoneOfEvent } from '../types.js';
import { EventNamePicker, EventPicker, FilterLinesWidget, GroupByChoices } from '../widgets.js';
import { EscalationPicker, type EscalationPolicy } from './escalation.js';
import { ManagedNotice } from '../managed.js';

export function PoliciesPage(props: PageProps): JSX.Element {
  const { route, doc } = props;
  const policies = useLoad(() => listAll<Policy>('/v1.0/policies'), []);
  const schema = requestSchema(doc, 'post', '/v1.0/policies');
  const which = route.parts[1];
  if (which !== undefined && schema) {
    const policy = policies.value?.find((p) => p.policy_id === which);
    if (which !== 'new' && !policy) return <p>{policies.error ? errorText(policies.error) : 'Loading…'}</p>;
    return (
      <PolicyForm
        key={which}
        {...props}
        schema={schema}
        policy={policy ?? null}
        onSaved={() => {
          policies.reload();
          navigate('#/policies');
        }}
      />
    );
  }
  return <PolicyList {...props} policies={policies.value} error={policies.error} reload={policies.reload} />;
}

function PolicyList({ events, policies, error, reload }: PageProps & { policies: Policy[] | undefined; error: unknown; reload: () => void }): JSX.Element {
  const [message, setMessage] = useState<string | null>(null);
  const byId = new Map(events.map((e) => [e.event_id, e]));
  const toggle = async (p: Policy) => {
    try {
      await api('PUT', `/v1.0/policies/${p.policy_id}`, { enabled: !p.enabled });
      setMessage(`${p.title} is ${p.enabled ? 'disabled' : 'enabled'}.`);
      reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const columns: ListColumn<Policy>[] = [
    { label: 'Title', role: 'title', cell: (p) => <a href={`#/policies/${p.policy_id}`}>{p.title}</a> },
    { label: 'Watches', cell: (p) => policySubject(p, p.event_id === null ? undefined : byId.get(p.event_id)) },
    { label: 'Rule', cell: (p) => <RuleCell policy={p} /> },
    { label: 'Severity', cell: (p) => p.severity },
    { label: 'State', cell: (p) => (p.enabled ? 'enabled' : 'disabled') },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (p) => (
        <button type="button" onClick={() => void toggle(p)} aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.title}`}>
          {p.enabled ? 'Disable' : 'Enable'}
        </button>
      ),
    },
  ];
  return (
    <section aria-labelledby="policies-heading">
      <div class="panel-head">
        <h1 id="policies-heading">Policies</h1>
        <a class="button-link" href="#/policies/new">
          New policy
        </a>
      </div>
      <p role="status">{message}</p>
      {error ? <p role="alert">{errorText(error)}</p> : null}
      {policies && policies.length === 0 && <p>No policies yet.</p>}
      {policies && policies.length > 0 && <DataTable columns={columns} rows={policies} rowKey={(p) => p.policy_id} className="policies" />}
    </section>
  );
}

function RuleCell({ policy }: { policy: Policy }): JSX.Element {
  const details = ruleDetails(policy);
  return (
    <>
      {ruleText(policy)}
      {details.length > 0 && <div class="muted">{details.join('; ')}</div>}
    </>
  );
}

interface FormProps extends PageProps {
  readonly schema: JsonSchema;
  readonly policy: Policy | null;
  readonly onSaved: () => void;
}

/** The fields only a fleet policy has, and the one only a policy on one definition has. */
const FLEET_FIELDS = ['/event', '/agents', '/filter', '/group_by', '/timezone'];
type Watches = 'definition' | 'fleet';

function PolicyForm({ doc, events, schema, policy, onSaved }: FormProps): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => (policy ? draftFrom(schema, policy) : initialDraft(schema)));
  const [watches, setWatches] = useState<Watches>(policy?.event ? 'fleet' : 'definition');
  // What the form shows and sends: a policy watches one definition or an event name, never both.
  const include = (path: string) => (watches === 'fleet' ? path !== '/event_id' : !FLEET_FIELDS.includes(path));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      if (policy) await api('PUT', `/v1.0/policies/${policy.policy_id}`, bodyFrom(schema, draft, 'edit', include));
      else await api('POST', '/v1.0/policies', bodyFrom(schema, draft, 'create', include));
      onSaved();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const escalationPolicies = useLoad(() => listAll<EscalationPolicy>('/v1.0/escalation-policies'), []);
  // A fleet policy groups by agent or by the declared keys of the event name it watches.
  const dimensions = useLoad(() => (watches === 'fleet' ? listAll<Dimension>('/v1.0/dimensions') : Promise.resolve([])), [watches]);
  const declaredKeys = dimensions.value?.find((d) => d.event === draft['/event'])?.keys ?? [];
  const widgets = {
    '/event_id': EventPicker(events),
    '/event': EventNamePicker(events),
    '/group_by': GroupByChoices(['agent', ...declaredKeys]),
    '/filter': FilterLinesWidget,
    '/escalation_policy_id': EscalationPicker(escalationPolicies.value ?? []),
  };
  const title = policy ? `Edit policy: ${policy.title}` : 'New policy';
  return (
    <section aria-labelledby="policy-form-heading">
      <p>
        <a href="#/policies">← Policies</a>
      </p>
      <h1 id="policy-form-heading">{title}</h1>
      {policy && <ManagedNotice kind="policies" id={policy.policy_id} version={policy} />}
      <form class="schema-form" onSubmit={save} noValidate>
        <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details, include)} />
        <fieldset class="field-group">
          <legend>Watches</legend>
          <div class="choices">
            {(
              [
                ['definition', 'One agent'],
                ['fleet', 'A fleet of agents (one alert per group)'],
              ] as const
            ).map(([value, label]) => (
              <span class="choice" key={value}>
                <input id={`policy-watches-${value}`} type="radio" name="watches" checked={watches === value} onChange={() => setWatches(value)} />
                <label for={`policy-watches-${value}`}>{label}</label>
              </span>
            ))}
          </div>
        </fieldset>
        <SchemaFields
          schema={policy ? { ...schema, required: [] } : schema}
          draft={draft}
          onDraft={setDraft}
          errors={failure.details}
          idPrefix="policy"
          include={include}
          widgets={widgets}
          words={POLICY_WORDS}
        />
        <div class="button-row">
          <button class="primary" type="submit" disabled={busy}>
            {policy ? 'Save policy' : 'Create policy'}
          </button>
          <a href="#/policies">Cancel</a>
        </div>
      </form>
      {hasRoute(doc, 'post', '/v1.0/policies/backtest') && <Backtest schema={schema} draft={draft} include={include} events={events} onErrors={setFailure} />}
    </section>
  );
}

interface BacktestResult {
  from: string;
  to: string;
  buckets_evaluated: number;
  alerts: {
    /** A fleet policy's: the group the alert is of. */
    labels?: Record<string, string>;
    first_breach_bucket_start: string;
    triggered_bucket_start: string;
    resolved_bucket_start: string | null;
    peak_value: number | null;
    breaching_buckets: number;
  }[];
}

/** `days` back, less a minute: the API refuses a `from` more than 30 days back, counted on its own clock. */
const isoDaysAgo = (days: number) => new Date(Date.now() - days * 86_400_000 + 60_000).toISOString();

type BacktestAlert = BacktestResult['alerts'][number];

const backtestColumns = (zone: string, fleet: boolean): ListColumn<BacktestAlert>[] => [
  ...(fleet ? [{ label: 'Group', cell: (a: BacktestAlert) => labelsText(a.labels ?? {}) || 'the whole fleet' }] : []),
  { label: 'First breach', cell: (a) => <Time at={a.first_breach_bucket_start} zone={zone} /> },
  { label: 'Raised', cell: (a) => <Time at={a.triggered_bucket_start} zone={zone} /> },
  { label: 'Resolved', cell: (a) => (a.resolved_bucket_start ? <Time at={a.resolved_bucket_start} zone={zone} /> : 'still open') },
  { label: 'Peak', numeric: true, cell: (a) => formatNumber(a.peak_value) },
  { label: 'Breaching buckets', numeric: true, cell: (a) => formatNumber(a.breaching_buckets) },
];

/** What the policy in the form would have raised over stored history: nothing is stored or sent. Times in the event's timezone. */
function Backtest({
  schema,
  draft,
  include,
  events,
  onErrors,
}: {
  schema: JsonSchema;
  draft: Draft;
  include: (path: string) => boolean;
  events: readonly EventDefinition[];
  onErrors: (f: FormFailure) => void;
}): JSX.Element {
  const zone = zoneOfEvent(events, typeof draft['/event_id'] === 'string' ? draft['/event_id'] : null);
  const [days, setDays] = useState('7');
  const [result, setResult] = useState<BacktestResult | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const run = async () => {
    setMessage('Running…');
    try {
      const body = { policy: bodyFrom(schema, draft, 'create', include), from: isoDaysAgo(Number(days)), to: new Date().toISOString() };
      setResult(await api<BacktestResult>('POST', '/v1.0/policies/backtest', body));
      setMessage(null);
      onErrors(noFailure);
    } catch (err) {
      setResult(null);
      setMessage('The preview failed; see the errors in the form.');
      // Errors of the policy come back under /policy/…: show them at the form's fields.
      if (err instanceof ApiError)
        onErrors({ message: err.message, details: err.details.map((d) => ({ ...d, path: d.path.replace(/^\/policy(?=\/|$)/, '') })) });
      else setMessage(errorText(err));
    }
  };
  return (
    <section class="panel" aria-labelledby="backtest-heading">
      <h2 id="backtest-heading">Preview on history</h2>
      <p class="muted">Evaluates the policy as it is in the form over the stored rollups: nothing is stored or sent.</p>
      <div class="button-row">
        <label for="backtest-days">Over the last</label>
        <select id="backtest-days" value={days} onChange={(e) => setDays(e.currentTarget.value)}>
          {['1', '7', '14', '30'].map((d) => (
            <option key={d} value={d}>
              {d === '1' ? 'day' : `${d} days`}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void run()}>
          Preview
        </button>
      </div>
      <p role="status">{message}</p>
      {result && (
        <>
          <p>
            {result.alerts.length} alert{result.alerts.length === 1 ? '' : 's'} over {formatNumber(result.buckets_evaluated)} buckets evaluated, from{' '}
            <Time at={result.from} zone={zone} /> to <Time at={result.to} zone={zone} />.
          </p>
          {result.alerts.length > 0 && (
            <DataTable
              columns={backtestColumns(
                zone,
                result.alerts.some((a) => a.labels !== undefined),
              )}
              rows={result.alerts}
              rowKey={(a) => `${a.triggered_bucket_start}${labelsText(a.labels ?? {})}`}
              className="backtest"
            />
          )}
        </>
      )}
    </section>
  );
}
