// What the tools read under /alertmanager/<alert_source_id>/api/v2 (docs/alertmanager.md, The
// tools' API): the source's open alerts as Alertmanager's gettable alerts, with the silences
// of the workspace that cover them now. alertmon has no routing tree: every alert's receiver
// is the source itself, and alerts/groups is one group of the source's alerts.
import type { Alert } from '../alerts/model.js';
import { READ_COLUMNS } from '../alerts/store.js';
import { notFound } from '../errors.js';
import type { Labels } from '../labels/labels.js';
import { labelsFingerprint, sortedLabels } from '../labels/labels.js';
import { compileMatchers } from '../matchers/match.js';
import type { Matcher } from '../matchers/model.js';
import { silenceCovers } from '../silences/coverage.js';
import { silencesOverlapping } from '../silences/store.js';
import type { Queryable } from '../stores/postgres.js';
import type { AlertSource } from './model.js';
import { inhibitingAlerts } from './inhibition.js';
import { findAlertSource } from './store.js';

/** An alert as Alertmanager's GET /api/v2/alerts answers it. */
export interface GettableAlert {
  readonly fingerprint: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly updatedAt: string;
  readonly generatorURL?: string;
  readonly receivers: { readonly name: string }[];
  readonly status: { readonly state: 'active' | 'suppressed'; readonly silencedBy: string[]; readonly inhibitedBy: string[] };
}

export interface AlertQuery {
  readonly filter: readonly Matcher[];
  readonly active: boolean;
  readonly silenced: boolean;
  readonly inhibited: boolean;
}

/** The receiver every alert of the source shows: the source's name. */
export const receiverOf = (source: AlertSource) => ({ name: source.name });

/** The source's open alerts that the query keeps, oldest first. 404 when the source is not the workspace's. */
/** `endOf`: the exact end of a lease this process holds (leases.ts), shown over the end as last written. */
export async function gettableAlerts(
  db: Queryable,
  workspaceId: string,
  sourceId: string,
  query: AlertQuery,
  now: Date,
  endOf: (alertId: string) => Date | null = () => null,
) {
  const source = await findAlertSource(db, workspaceId, sourceId);
  if (!source) throw notFound('alert source');
  const rows = await db.query<Alert>(
    `SELECT ${READ_COLUMNS} FROM alerts WHERE alert_source_id = $1 AND status IN ('triggered', 'acknowledged') ORDER BY triggered_at, alert_id`,
    [source.alert_source_id],
  );
  const silences = await silencesOverlapping(db, [workspaceId], now, now);
  const keep = compileMatchers(query.filter);
  const inhibiting = await inhibitingAlerts(
    db,
    rows.map((a) => ({ alertId: a.alert_id, alertSourceId: source.alert_source_id, labels: a.labels })),
  );
  const alerts: GettableAlert[] = [];
  for (const a of rows) {
    if (!keep(a.labels)) continue;
    const silencedBy = silences.filter((s) => silenceCovers(s, { id: source.alert_source_id, labels: a.labels }, now.getTime())).map((s) => s.silence_id);
    const inhibitedBy = inhibiting.get(a.alert_id) ?? [];
    const state = silencedBy.length > 0 || inhibitedBy.length > 0 ? 'suppressed' : 'active';
    // As Alertmanager: active keeps unsuppressed alerts, silenced those silenced, inhibited those inhibited.
    if (state === 'active' && !query.active) continue;
    if (silencedBy.length > 0 && !query.silenced) continue;
    if (inhibitedBy.length > 0 && !query.inhibited) continue;
    alerts.push({
      fingerprint: labelsFingerprint(a.labels),
      labels: sortedLabels(a.labels),
      annotations: sortedLabels(a.annotations ?? {}),
      startsAt: (a.starts_at ?? a.triggered_at).toISOString(),
      endsAt: (endOf(a.alert_id) ?? a.ends_at ?? a.updated_at).toISOString(),
      updatedAt: a.updated_at.toISOString(),
      ...(a.generator_url ? { generatorURL: a.generator_url } : {}),
      receivers: [receiverOf(source)],
      status: { state, silencedBy, inhibitedBy },
    });
  }
  return { source, alerts };
}
