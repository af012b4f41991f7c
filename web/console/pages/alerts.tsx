// Alerts: the list by status, the lifecycle actions each status allows, and each alert's
// delivery history. The list refreshes itself every 10 seconds. Times are in the alert's
// event's timezone, like its chart and its notifications.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../../shared/rollups.js';
import { api, errorText, listAll } from '../api.js';
import { Time } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { useInterval, useLoad } from '../hooks.js';
import { alertValueText, ruleText } from '../rules.js';
import { type Alert, alertSubject, type DeliveryAttempt, type EventDefinition, labelsText, type PageProps, zoneOfEvent } from '../types.js';
import { capitalize, CHANNEL_NAMES, DELIVERY_STATUS_WORDS, humanizeValue, NOTIFICATION_WORDS, STATUS_WORDS } from '../words.js';

const STATUSES = ['triggered', 'acknowledged', 'resolved', 'archived'] as const;

/** Which actions each status allows (the API answers 409 to any other). */
const ACTIONS: readonly { action: string; label: string; from: readonly Alert['status'][] }[] = [
  { action: 'acknowledge', label: 'Acknowledge', from: ['triggered'] },
  { action: 'resolve', label: 'Resolve', from: ['triggered', 'acknowledged'] },
  { action: 'archive', label: 'Archive', from: ['triggered', 'acknowledged', 'resolved'] },
];

export function AlertsPage({ route, events }: PageProps): JSX.Element {
  const status = route.params.get('status') ?? '';
  const selectedId = route.params.get('alert');
  const alerts = useLoad(() => api<Alert[]>('GET', `/v1.0/alerts?limit=200${status ? `&status=${status}` : ''}`), [status]);
  useInterval(alerts.reload, 10_000);
  const [message, setMessage] = useState<string | null>(null);
  const act = async (alert: Alert, action: string) => {
    try {
      const updated = await api<Alert>('POST', `/v1.0/alerts/${alert.alert_id}/${action}`);
      setMessage(`${alert.title} is ${STATUS_WORDS[updated.status] ?? updated.status}.`);
    } catch (err) {
      setMessage(`${alert.title}: ${errorText(err)}`);
    }
    alerts.reload();
  };
  const link = (params: Record<string, string>) => {
    const query = new URLSearchParams({ ...(status ? { status } : {}), ...params }).toString();
    return `#/alerts${query ? `?${query}` : ''}`;
  };
  const unitOf = (a: Alert) => events.find((e) => e.event_id === a.event_id)?.unit ?? '';
  // A received alert (docs/alertmanager.md) has no rule or value of alertmon's: its source instead.
  const sourceIds = [...new Set((alerts.value ?? []).flatMap((a) => (a.alert_source_id ? [a.alert_source_id] : [])))].sort().join(',');
  const sources = useLoad(() => listAll<{ alert_source_id: string; name: string }>('/v1.0/alert-sources'), [sourceIds]);
  const sourceName = (id: string) => sources.value?.find((s) => s.alert_source_id === id)?.name ?? 'an alert source';
  const columns: ListColumn<Alert>[] = [
    {
      label: 'Alert',
      role: 'title',
      cell: (a) => (
        <>
          <a href={link({ alert: a.alert_id })}>{a.title}</a>
          <div class="muted">{alertSubject(a)}</div>
        </>
      ),
    },
    { label: 'Status', cell: (a) => <span class={`status status-${a.status}`}>{STATUS_WORDS[a.status] ?? a.status}</span> },
    { label: 'Severity', cell: (a) => a.severity },
    { label: 'Value', numeric: true, cell: (a) => (a.alert_source_id && a.value === null ? null : alertValueText(a, unitOf(a))) },
    {
      label: 'Rule or source',
      cardLabel: (a) => (a.alert_source_id ? 'Source' : 'Rule'),
      cell: (a) => (a.alert_source_id ? sourceName(a.alert_source_id) : ruleText(a)),
    },
    { label: 'Raised', cell: (a) => <Time at={a.triggered_at} zone={zoneOfEvent(events, a.event_id)} /> },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (a) => (
        <div class="button-row">
          {ACTIONS.filter((x) => x.from.includes(a.status)).map((x) => (
            <button key={x.action} type="button" onClick={() => void act(a, x.action)} aria-label={`${x.label} ${a.title}`}>
              {x.label}
            </button>
          ))}
        </div>
      ),
    },
  ];
  const selected = alerts.value?.find((a) => a.alert_id === selectedId);
  return (
    <section aria-labelledby="alerts-heading">
      <div class="panel-head">
        <h1 id="alerts-heading">Alerts</h1>
        <button type="button" onClick={alerts.reload}>
          Refresh
        </button>
      </div>
      <nav aria-label="Alert status" class="button-row tabs">
        {['', ...STATUSES].map((s) => (
          <a key={s} href={s ? `#/alerts?status=${s}` : '#/alerts'} aria-current={s === status ? 'page' : undefined}>
            {s ? capitalize(STATUS_WORDS[s]!) : 'All'}
          </a>
        ))}
      </nav>
      <p role="status">{message}</p>
      {alerts.error ? <p role="alert">{errorText(alerts.error)}</p> : null}
      {alerts.value && alerts.value.length === 0 && <p>{status ? `No ${STATUS_WORDS[status] ?? ''} alerts.` : 'No alerts.'}</p>}
      {alerts.value && alerts.value.length > 0 && (
        <DataTable columns={columns} rows={alerts.value} rowKey={(a) => a.alert_id} current={(a) => a.alert_id === selectedId} className="alerts" />
      )}
      {selected && <AlertDetail key={selected.alert_id} alert={selected} events={events} />}
    </section>
  );
}

function AlertDetail({ alert, events }: { alert: Alert; events: readonly EventDefinition[] }): JSX.Element {
  // Read again whenever the list is (a new alert object): its refresh refreshes the history too.
  const history = useLoad(() => api<DeliveryAttempt[]>('GET', `/v1.0/alerts/${alert.alert_id}/deliveries?kind=all`), [alert]);
  // Whom escalation steps paged, by name.
  const schedules = useLoad(() => listAll<{ schedule_id: string; name: string }>('/v1.0/schedules'), []);
  const people = useLoad(() => listAll<{ person_id: string; name: string }>('/v1.0/people'), []);
  const names: OnCallNames = {
    schedules: new Map((schedules.value ?? []).map((x) => [x.schedule_id, x.name])),
    people: new Map((people.value ?? []).map((p) => [p.person_id, p.name])),
  };
  const zone = zoneOfEvent(events, alert.event_id);
  const unit = events.find((e) => e.event_id === alert.event_id)?.unit ?? '';
  // An alert an Alertmanager client posted (docs/alertmanager.md): no rule or value of alertmon's, annotations instead.
  const received = Boolean(alert.alert_source_id);
  const annotations = Object.entries(alert.annotations ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section class="panel" aria-labelledby="alert-detail-heading">
      <h2 id="alert-detail-heading">{alert.title}</h2>
      <dl class="facts-list">
        <dt>About</dt>
        <dd>{alertSubject(alert)}</dd>
        <dt>Labels</dt>
        <dd>{labelsText(alert.labels ?? {}) || 'none (the whole fleet)'}</dd>
        {received ? (
          <>
            <dt>Annotations</dt>
            <dd>
              {annotations.length === 0 ? (
                'none'
              ) : (
                <dl class="annotations">
                  {annotations.map(([name, value]) => (
                    <div key={name}>
                      <dt>{name}</dt>
                      <dd>{value}</dd>
                    </div>
                  ))}
                </dl>
              )}
            </dd>
            <dt>Firing since</dt>
            <dd>
              <Time at={alert.starts_at ?? alert.triggered_at} zone={zone} />
            </dd>
            {alert.generator_url && (
              <>
                <dt>Rule</dt>
                <dd>
                  <a href={alert.generator_url} rel="noopener noreferrer" target="_blank">
                    Open the rule's query in the sender
                  </a>
                </dd>
              </>
            )}
          </>
        ) : (
          <>
            <dt>Rule</dt>
            <dd>{ruleText(alert)}</dd>
            <dt>Value</dt>
            <dd>
              {alertValueText(alert, unit)} over {formatNumber(alert.count)} log{alert.count === 1 ? '' : 's'}
            </dd>
            <dt>Bucket</dt>
            <dd>
              <Time at={alert.bucket_start} zone={zone} />
            </dd>
          </>
        )}
        <dt>Raised</dt>
        <dd>
          <Time at={alert.triggered_at} zone={zone} />
        </dd>
        <dt>Notified</dt>
        <dd>
          <Time at={alert.alerted_at} zone={zone} />
        </dd>
        <dt>Acknowledged</dt>
        <dd>
          <Time at={alert.acknowledged_at} zone={zone} />
          {alert.acknowledged_via === 'notification_link' ? ' (acknowledged from the notification link)' : ''}
        </dd>
        <dt>Resolved</dt>
        <dd>
          <Time at={alert.resolved_at} zone={zone} />
        </dd>
      </dl>
      <h3>Delivery history</h3>
      <DeliveryTable attempts={history.value} error={history.error} zone={zone} names={names} />
    </section>
  );
}

/** The names of the workspace's schedules and people, for whom escalation steps paged. */
export interface OnCallNames {
  readonly schedules: ReadonlyMap<string, string>;
  readonly people: ReadonlyMap<string, string>;
}

const NO_NAMES: OnCallNames = { schedules: new Map(), people: new Map() };

/** "Ada (on call in Payments), Lee": whom a step paged; a schedule with no one: "no one on call in Payments". */
function pagedWords(d: DeliveryAttempt, names: OnCallNames): string {
  return (d.escalation?.on_call ?? [])
    .map((p) => {
      const schedule = p.schedule_id === null ? null : (names.schedules.get(p.schedule_id) ?? 'a deleted schedule');
      if (p.person_id === null) return `no one on call in ${schedule}`;
      const person = names.people.get(p.person_id) ?? 'someone deleted since';
      return schedule === null ? person : `${person} (on call in ${schedule})`;
    })
    .join(', ');
}

/** What an attempt sent, in words: an escalation step with its place in the chain, and whom it paged. */
function kindOf(d: DeliveryAttempt, names: OnCallNames): string {
  const type = d.type ?? d.kind;
  if (type !== 'alert.escalated') return NOTIFICATION_WORDS[type] ?? humanizeValue(type).toLowerCase();
  if (!d.escalation) return 'escalation step';
  const paged = pagedWords(d, names);
  return `escalation step ${d.escalation.step} of ${d.escalation.of}, round ${d.escalation.round}${paged === '' ? '' : `: ${paged}`}`;
}

const DELIVERY_COLUMNS = (zone: string, names: OnCallNames): ListColumn<DeliveryAttempt>[] => [
  { label: 'Time', cell: (d) => <Time at={d.created_at} zone={zone} seconds /> },
  { label: 'Kind', cell: (d) => kindOf(d, names) },
  { label: 'Channel', cell: (d) => (d.status === 'no_one_on_call' ? 'none' : (CHANNEL_NAMES[d.channel] ?? d.channel)) },
  { label: 'Target', cell: (d) => <span class="target">{d.status === 'no_one_on_call' ? 'no one on call' : d.target}</span> },
  {
    label: 'Status',
    cell: (d) => `${DELIVERY_STATUS_WORDS[d.status] ?? d.status}${d.attempt && d.attempt > 1 ? ` (try ${d.attempt})` : ''}`,
  },
  { label: 'Provider answer', numeric: true, cell: (d) => d.response_status ?? '–' },
  { label: 'Error', cell: (d) => d.error_message ?? '–' },
];

/** An alert's (or a test send's) delivery attempts; times in `zone`. */
export function DeliveryTable({
  attempts,
  error,
  zone,
  names = NO_NAMES,
}: {
  attempts: readonly DeliveryAttempt[] | undefined;
  error: unknown;
  zone: string;
  names?: OnCallNames;
}): JSX.Element {
  if (error) return <p role="alert">{errorText(error)}</p>;
  if (!attempts) return <p>Loading…</p>;
  if (attempts.length === 0) return <p>No delivery attempts yet.</p>;
  return <DataTable columns={DELIVERY_COLUMNS(zone, names)} rows={attempts} rowKey={(d) => d.attempt_id} className="deliveries" />;
}
