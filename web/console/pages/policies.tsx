// Policies: the list with enable/disable, and a create/edit form built from the API's own
// schema of POST /v1.0/policies (every field and rule option the service has), with a preview
// of what the policy would have raised on stored history when the backtest route exists.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../../shared/rollups.js';
import { api, ApiError, errorText, listAll } from '../api.js';
import { Table, failureOf, type FormFailure, noFailure } from '../components.js';
import { navigate, useLoad } from '../hooks.js';
import { hasRoute, type JsonSchema, requestSchema } from '../openapi.js';
import { bodyFrom, type Draft, draftFrom, initialDraft, unplacedErrors } from '../drafts.js';
import { FormErrors, SchemaFields } from '../schemaForm.js';
import { eventSource, type PageProps, type Policy } from '../types.js';
import { EventPicker } from '../widgets.js';
import { EscalationPicker, type EscalationPolicy } from './escalation.js';

const CONDITION_SIGNS: Record<string, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=' };

export const ruleText = (p: Pick<Policy, 'aggregate' | 'condition' | 'threshold' | 'period'>) =>
  `${p.aggregate} ${CONDITION_SIGNS[p.condition] ?? p.condition} ${formatNumber(p.threshold)} per ${p.period}`;

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
      {policies && policies.length > 0 && (
        <Table columns={['Title', 'Event', 'Rule', 'Severity', 'State', { label: 'Actions', hidden: true }]}>
          {policies.map((p) => {
            const event = byId.get(p.event_id);
            return (
              <tr key={p.policy_id}>
                <td>
                  <a href={`#/policies/${p.policy_id}`}>{p.title}</a>
                </td>
                <td>{event ? eventSource(event) : p.event_id}</td>
                <td>{ruleText(p)}</td>
                <td>{p.severity}</td>
                <td>{p.enabled ? 'enabled' : 'disabled'}</td>
                <td>
                  <button type="button" onClick={() => void toggle(p)} aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.title}`}>
                    {p.enabled ? 'Disable' : 'Enable'}
                  </button>
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </section>
  );
}

interface FormProps extends PageProps {
  readonly schema: JsonSchema;
  readonly policy: Policy | null;
  readonly onSaved: () => void;
}

function PolicyForm({ doc, events, schema, policy, onSaved }: FormProps): JSX.Element {
  const [draft, setDraft] = useState<Draft>(() => (policy ? draftFrom(schema, policy) : initialDraft(schema)));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      if (policy) await api('PUT', `/v1.0/policies/${policy.policy_id}`, bodyFrom(schema, draft, 'edit'));
      else await api('POST', '/v1.0/policies', bodyFrom(schema, draft, 'create'));
      onSaved();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };
  const escalationPolicies = useLoad(() => listAll<EscalationPolicy>('/v1.0/escalation-policies'), []);
  const widgets = { '/event_id': EventPicker(events), '/escalation_policy_id': EscalationPicker(escalationPolicies.value ?? []) };
  const title = policy ? `Edit policy: ${policy.title}` : 'New policy';
  return (
    <section aria-labelledby="policy-form-heading">
      <p>
        <a href="#/policies">← Policies</a>
      </p>
      <h1 id="policy-form-heading">{title}</h1>
      <form class="schema-form" onSubmit={save} noValidate>
        <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details)} />
        <SchemaFields
          schema={policy ? { ...schema, required: [] } : schema}
          draft={draft}
          onDraft={setDraft}
          errors={failure.details}
          idPrefix="policy"
          widgets={widgets}
          labels={{ '/event_id': 'Event', '/escalation_policy_id': 'Escalation policy' }}
        />
        <div class="button-row">
          <button class="primary" type="submit" disabled={busy}>
            {policy ? 'Save policy' : 'Create policy'}
          </button>
          <a href="#/policies">Cancel</a>
        </div>
      </form>
      {hasRoute(doc, 'post', '/v1.0/policies/backtest') && <Backtest schema={schema} draft={draft} onErrors={setFailure} />}
    </section>
  );
}

interface BacktestResult {
  from: string;
  to: string;
  buckets_evaluated: number;
  alerts: {
    first_breach_bucket_start: string;
    triggered_bucket_start: string;
    resolved_bucket_start: string | null;
    peak_value: number | null;
    breaching_buckets: number;
  }[];
}

/** `days` back, less a minute: the API refuses a `from` more than 30 days back, counted on its own clock. */
const isoDaysAgo = (days: number) => new Date(Date.now() - days * 86_400_000 + 60_000).toISOString();
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '–');

/** What the policy in the form would have raised over stored history: nothing is stored or sent. */
function Backtest({ schema, draft, onErrors }: { schema: JsonSchema; draft: Draft; onErrors: (f: FormFailure) => void }): JSX.Element {
  const [days, setDays] = useState('7');
  const [result, setResult] = useState<BacktestResult | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const run = async () => {
    setMessage('Running…');
    try {
      const body = { policy: bodyFrom(schema, draft, 'create'), from: isoDaysAgo(Number(days)), to: new Date().toISOString() };
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
        <label for="backtest-days">Days back</label>
        <select id="backtest-days" value={days} onChange={(e) => setDays(e.currentTarget.value)}>
          {['1', '7', '14', '30'].map((d) => (
            <option key={d} value={d}>
              {d}
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
            {result.alerts.length} alert{result.alerts.length === 1 ? '' : 's'} over {formatNumber(result.buckets_evaluated)} buckets evaluated.
          </p>
          {result.alerts.length > 0 && (
            <Table columns={['First breach', 'Raised', 'Resolved', { label: 'Peak', numeric: true }, { label: 'Breaching buckets', numeric: true }]}>
              {result.alerts.map((a) => (
                <tr key={a.triggered_bucket_start}>
                  <td>{when(a.first_breach_bucket_start)}</td>
                  <td>{when(a.triggered_bucket_start)}</td>
                  <td>{when(a.resolved_bucket_start)}</td>
                  <td class="number">{formatNumber(a.peak_value)}</td>
                  <td class="number">{a.breaching_buckets}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </section>
  );
}
