// Alert sources (docs/alertmanager.md): the Prometheus, vmalert or Grafana that send their
// firing alerts to alertmon as to an Alertmanager. The list, a create form built from the
// API's schema of POST /v1.0/alert-sources (its inhibition rules as rows of matcher lines),
// removing one, and for each source the configuration to paste into its sender: its URL, with
// a placeholder where the workspace token goes (the console never shows the token).
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { failureOf, type FormFailure, noFailure } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { bodyFrom, type Draft, draftRows, initialDraft, unplacedErrors } from '../drafts.js';
import { ALERT_SOURCE_WORDS } from '../fieldWords.js';
import { useLoad } from '../hooks.js';
import { requestSchema } from '../openapi.js';
import { FormErrors, SchemaFields, type WidgetProps } from '../schemaForm.js';
import type { PageProps } from '../types.js';
import { EscalationPicker, type EscalationPolicy } from './escalation.js';

interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal: string[];
}

interface AlertSource {
  alert_source_id: string;
  name: string;
  severity_label: string;
  default_severity: string;
  resolve_timeout_minutes: number;
  inhibit_rules: InhibitRule[];
}

/** The parts of a rule its form shows, a line an item, each with what a person reads above it. */
const RULE_PARTS = [
  ['source_matchers', 'While an alert matching all of these is open (a matcher a line, e.g. alertname="NodeDown")'],
  ['target_matchers', 'do not notify the alerts matching all of these (a matcher a line, e.g. severity="warning")'],
  ['equal', 'that have the same values of these labels (a label a line, e.g. instance; none: any value)'],
] as const;

const blankRule = (): InhibitRule => ({ source_matchers: [], target_matchers: [], equal: [] });

const nonBlank = (lines: readonly string[]) => lines.map((l) => l.trim()).filter((l) => l !== '');

/** The rules as the API takes them: the form keeps blank lines while a person types, and drops them here. */
const sentRules = (rules: readonly InhibitRule[]): InhibitRule[] =>
  rules.map((r) => ({ source_matchers: nonBlank(r.source_matchers), target_matchers: nonBlank(r.target_matchers), equal: nonBlank(r.equal) }));

/** The inhibit_rules field (a JSON array in the draft) as rules: each side's matchers and the labels compared, a line each. */
function InhibitRulesEditor({ id, value, onChange, describedBy }: WidgetProps): JSX.Element {
  const rules = draftRows(value, blankRule);
  const set = (next: InhibitRule[]) => onChange(JSON.stringify(next));
  return (
    <div id={id} aria-describedby={describedBy}>
      {rules.map((rule, i) => (
        <fieldset class="field-group" key={i}>
          <legend>Rule {i + 1}</legend>
          {RULE_PARTS.map(([part, words]) => (
            <div class="field" key={part}>
              <label for={`${id}-${i}-${part}`}>{words}</label>
              <textarea
                id={`${id}-${i}-${part}`}
                rows={2}
                value={rule[part].join('\n')}
                onInput={(e) => set(rules.map((r, j) => (j === i ? { ...r, [part]: e.currentTarget.value.split('\n') } : r)))}
              />
            </div>
          ))}
          <button type="button" onClick={() => set(rules.filter((_, j) => j !== i))}>
            Remove rule {i + 1}
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => set([...rules, blankRule()])}>
        Add an inhibition rule
      </button>
    </div>
  );
}

const TOKEN = '<workspace token>';

/** The snippets a sender's configuration takes, for the source at `base` (its /alertmanager/<id> URL). */
export function senderSnippets(base: string): { name: string; text: string }[] {
  const url = new URL(base);
  const scheme = url.protocol.replace(':', '');
  const port = url.port || (scheme === 'https' ? '443' : '80');
  return [
    {
      name: 'Prometheus (prometheus.yml)',
      text: [
        'alerting:',
        '  alertmanagers:',
        `    - scheme: ${scheme}`,
        '      api_version: v2',
        `      path_prefix: ${url.pathname}`,
        '      authorization:',
        `        credentials: ${TOKEN}`,
        '      static_configs:',
        `        - targets: ["${url.hostname}:${port}"]`,
      ].join('\n'),
    },
    {
      name: 'vmalert (flags)',
      text: [`-notifier.url=${base}`, `-notifier.bearerToken=${TOKEN}`].join(' \\\n'),
    },
    {
      name: 'amtool (reads its alerts and silences)',
      text: [`# http.yml: authorization: {credentials: ${TOKEN}}`, `amtool --alertmanager.url=${base} --http.config.file=http.yml alert query`].join('\n'),
    },
  ];
}

const rulesText = (rules: readonly InhibitRule[]) =>
  rules.length === 0
    ? 'none'
    : rules
        .map((r) => `${r.source_matchers.join(', ')} mutes ${r.target_matchers.join(', ')}${r.equal.length > 0 ? ` with the same ${r.equal.join(', ')}` : ''}`)
        .join('; ');

function SenderConfiguration({ source, onMessage }: { source: AlertSource; onMessage: (m: string) => void }): JSX.Element {
  const base = `${window.location.origin}/alertmanager/${source.alert_source_id}`;
  return (
    <section class="panel" aria-labelledby={`snippets-${source.alert_source_id}`}>
      <h2 id={`snippets-${source.alert_source_id}`}>Send alerts to {source.name}</h2>
      <p class="muted">
        Paste one of these into the sender's configuration and put a workspace token where it says {TOKEN}. Alerts the sender posts become alerts of this
        source; destinations for every alert, or for this source, get them.
      </p>
      {senderSnippets(base).map((s) => (
        <div class="snippet" key={s.name}>
          <h3>{s.name}</h3>
          <pre>
            <code>{s.text}</code>
          </pre>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(s.text).then(() => onMessage(`${s.name} copied.`))}>
            Copy {s.name.split(' ')[0]}
          </button>
        </div>
      ))}
    </section>
  );
}

export function AlertSourcesPage({ doc }: PageProps): JSX.Element {
  const sources = useLoad(() => listAll<AlertSource>('/v1.0/alert-sources'), []);
  const escalationPolicies = useLoad(() => listAll<EscalationPolicy>('/v1.0/escalation-policies'), []);
  const schema = requestSchema(doc, 'post', '/v1.0/alert-sources');
  const [draft, setDraft] = useState<Draft>(() => (schema ? initialDraft(schema) : {}));
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    if (!schema) return;
    try {
      const body = bodyFrom(schema, draft, 'create');
      if (Array.isArray(body.inhibit_rules)) body.inhibit_rules = sentRules(body.inhibit_rules as InhibitRule[]);
      const made = await api<AlertSource>('POST', '/v1.0/alert-sources', body);
      setFailure(noFailure);
      setDraft(initialDraft(schema));
      setMessage(`${made.name} was added: its sender configuration is below.`);
      setShown(made.alert_source_id);
      sources.reload();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  const remove = async (s: AlertSource) => {
    try {
      await api('DELETE', `/v1.0/alert-sources/${s.alert_source_id}`);
      setMessage(`${s.name} was removed; its open alerts were resolved.`);
      if (shown === s.alert_source_id) setShown(null);
      sources.reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const columns: ListColumn<AlertSource>[] = [
    { label: 'Name', role: 'title', cell: (s) => s.name },
    { label: 'Resolves after', cell: (s) => `${s.resolve_timeout_minutes} min without a post` },
    { label: 'Severity from', cell: (s) => `label ${s.severity_label}, else ${s.default_severity}` },
    { label: 'Inhibition', cell: (s) => rulesText(s.inhibit_rules) },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (s) => (
        <>
          <button type="button" onClick={() => setShown(s.alert_source_id)} aria-label={`Sender configuration of ${s.name}`}>
            Configure sender
          </button>
          <button type="button" class="danger" onClick={() => void remove(s)} aria-label={`Remove ${s.name}`}>
            Remove
          </button>
        </>
      ),
    },
  ];
  const chosen = (sources.value ?? []).find((s) => s.alert_source_id === shown);
  return (
    <section aria-labelledby="alert-sources-heading">
      <h1 id="alert-sources-heading">Alert sources</h1>
      <p class="muted">
        Prometheus, vmalert, Grafana and other rulers send their firing alerts here as to an Alertmanager. Each source has its own address; its alerts are
        acknowledged, escalated, silenced and delivered as policy alerts.
      </p>
      <p role="status">{message}</p>
      {sources.error ? <p role="alert">{errorText(sources.error)}</p> : null}
      {sources.value && sources.value.length === 0 && <p>No alert sources yet.</p>}
      {sources.value && sources.value.length > 0 && (
        <DataTable columns={columns} rows={sources.value} rowKey={(s) => s.alert_source_id} className="alert-sources" />
      )}
      {chosen && <SenderConfiguration source={chosen} onMessage={setMessage} />}
      {schema && (
        <form class="schema-form panel" onSubmit={create} noValidate aria-labelledby="new-alert-source-heading">
          <h2 id="new-alert-source-heading">New alert source</h2>
          <FormErrors message={failure.message} details={unplacedErrors(schema, failure.details)} />
          <SchemaFields
            schema={schema}
            draft={draft}
            onDraft={setDraft}
            errors={failure.details}
            idPrefix="alert-source"
            widgets={{ '/escalation_policy_id': EscalationPicker(escalationPolicies.value ?? []), '/inhibit_rules': InhibitRulesEditor }}
            words={ALERT_SOURCE_WORDS}
          />
          <button class="primary" type="submit">
            Add alert source
          </button>
        </form>
      )}
    </section>
  );
}
