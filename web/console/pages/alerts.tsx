// Alerts: the list by status, the lifecycle actions each status allows, and each alert's
// delivery history. The list refreshes itself every 10 seconds.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../../shared/rollups.js';
import { api, errorText } from '../api.js';
import { Table } from '../components.js';
import { useInterval, useLoad } from '../hooks.js';
import type { Alert, DeliveryAttempt, PageProps } from '../types.js';

const STATUSES = ['triggered', 'acknowledged', 'resolved', 'archived'] as const;

/** Which actions each status allows (the API answers 409 to any other). */
const ACTIONS: readonly { action: string; label: string; from: readonly Alert['status'][] }[] = [
  { action: 'acknowledge', label: 'Acknowledge', from: ['triggered'] },
  { action: 'resolve', label: 'Resolve', from: ['triggered', 'acknowledged'] },
  { action: 'archive', label: 'Archive', from: ['triggered', 'acknowledged', 'resolved'] },
];

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');

export function AlertsPage({ route }: PageProps): JSX.Element {
  const status = route.params.get('status') ?? '';
  const selectedId = route.params.get('alert');
  const alerts = useLoad(() => api<Alert[]>('GET', `/v1.0/alerts?limit=200${status ? `&status=${status}` : ''}`), [status]);
  useInterval(alerts.reload, 10_000);
  const [message, setMessage] = useState<string | null>(null);
  const act = async (alert: Alert, action: string, label: string) => {
    try {
      const updated = await api<Alert>('POST', `/v1.0/alerts/${alert.alert_id}/${action}`);
      setMessage(`${alert.title}: ${label.toLowerCase()}d, now ${updated.status}.`);
    } catch (err) {
      setMessage(`${alert.title}: ${errorText(err)}`);
    }
    alerts.reload();
  };
  const link = (params: Record<string, string>) => {
    const query = new URLSearchParams({ ...(status ? { status } : {}), ...params }).toString();
    return `#/alerts${query ? `?${query}` : ''}`;
  };
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
            {s || 'all'}
          </a>
        ))}
      </nav>
      <p role="status">{message}</p>
      {alerts.error ? <p role="alert">{errorText(alerts.error)}</p> : null}
      {alerts.value && alerts.value.length === 0 && <p>No {status || ''} alerts.</p>}
      {alerts.value && alerts.value.length > 0 && (
        <Table columns={['Alert', 'Status', 'Severity', { label: 'Value', numeric: true }, 'Raised', 'Actions']}>
          {alerts.value.map((a) => (
            <tr key={a.alert_id} aria-current={a.alert_id === selectedId ? 'true' : undefined}>
              <td>
                <a href={link({ alert: a.alert_id })}>{a.title}</a>
                <div class="muted">
                  {a.agent} / {a.event}
                </div>
              </td>
              <td>
                <span class={`status status-${a.status}`}>{a.status}</span>
              </td>
              <td>{a.severity}</td>
              <td class="number">
                {formatNumber(a.value)} <span class="muted">vs {formatNumber(a.threshold)}</span>
              </td>
              <td>{when(a.triggered_at)}</td>
              <td>
                <div class="button-row">
                  {ACTIONS.filter((x) => x.from.includes(a.status)).map((x) => (
                    <button key={x.action} type="button" onClick={() => void act(a, x.action, x.label)} aria-label={`${x.label} ${a.title}`}>
                      {x.label}
                    </button>
                  ))}
                </div>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {selected && <AlertDetail key={selected.alert_id} alert={selected} />}
    </section>
  );
}

function AlertDetail({ alert }: { alert: Alert }): JSX.Element {
  // Read again whenever the list is (a new alert object): its refresh refreshes the history too.
  const history = useLoad(() => api<DeliveryAttempt[]>('GET', `/v1.0/alerts/${alert.alert_id}/deliveries?kind=all`), [alert]);
  return (
    <section class="panel" aria-labelledby="alert-detail-heading">
      <h2 id="alert-detail-heading">{alert.title}</h2>
      <dl class="facts-list">
        <dt>Rule</dt>
        <dd>
          {alert.aggregate} {alert.condition} {formatNumber(alert.threshold)} per {alert.period}
        </dd>
        <dt>Value</dt>
        <dd>
          {formatNumber(alert.value)} over {formatNumber(alert.count)} logs
        </dd>
        <dt>Bucket</dt>
        <dd>{when(alert.bucket_start)}</dd>
        <dt>Raised</dt>
        <dd>{when(alert.triggered_at)}</dd>
        <dt>Notified</dt>
        <dd>{when(alert.alerted_at)}</dd>
        <dt>Acknowledged</dt>
        <dd>
          {when(alert.acknowledged_at)}
          {alert.acknowledged_via === 'notification_link' ? ' (acknowledged from the notification link)' : ''}
        </dd>
        <dt>Resolved</dt>
        <dd>{when(alert.resolved_at)}</dd>
      </dl>
      <h3>Delivery history</h3>
      <DeliveryTable attempts={history.value} error={history.error} />
    </section>
  );
}

/** What an attempt sent, in words: an escalation step with its place in the chain. */
function kindOf(d: DeliveryAttempt): string {
  if (d.type !== 'alert.escalated') return d.type ?? d.kind;
  return d.escalation ? `escalation step ${d.escalation.step} of ${d.escalation.of}, round ${d.escalation.round}` : 'escalation step';
}

export function DeliveryTable({ attempts, error }: { attempts: readonly DeliveryAttempt[] | undefined; error: unknown }): JSX.Element {
  if (error) return <p role="alert">{errorText(error)}</p>;
  if (!attempts) return <p>Loading…</p>;
  if (attempts.length === 0) return <p>No delivery attempts yet.</p>;
  return (
    <Table columns={['Time', 'Kind', 'Channel', 'Target', 'Status', { label: 'Provider answer', numeric: true }, 'Error']} className="deliveries">
      {attempts.map((d) => (
        <tr key={d.attempt_id}>
          <td>{when(d.created_at)}</td>
          <td>{kindOf(d)}</td>
          <td>{d.channel}</td>
          <td class="target">{d.target}</td>
          <td>
            {d.status}
            {d.attempt && d.attempt > 1 ? ` (try ${d.attempt})` : ''}
          </td>
          <td class="number">{d.response_status ?? '–'}</td>
          <td>{d.error_message ?? ''}</td>
        </tr>
      ))}
    </Table>
  );
}
