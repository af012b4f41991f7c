// Which groups of an event name changed most: the ranked window comparison (GET
// /v1.0/analytics?event=…&view=window&group_by=…) as a table, its windows named in the
// browser's time zone (days and weeks are that zone's).
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../../shared/rollups.js';
import { browserZone, formatSpan } from '../../shared/time.js';
import { api, errorText } from '../api.js';
import { Choice } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { useLoad } from '../hooks.js';
import { groupByChoices, groupName } from '../types.js';
import { COMPARISONS, percent } from './eventComparisons.js';

interface RankedRow {
  labels: Record<string, string>;
  [field: string]: number | null | Record<string, string>;
}

interface Ranked {
  group_by: string[];
  windows: { current: { from: string; to: string }; previous: { from: string; to: string } };
  data: RankedRow[];
}

const ORDERS = [
  ['value_pct_change', 'Change of the sum'],
  ['count_pct_change', 'Change of the count'],
  ['mean_pct_change', 'Change of the average'],
  ['current_value', 'Sum now'],
  ['current_count', 'Count now'],
] as const;

const DIRECTIONS = [
  ['desc', 'the largest'],
  ['asc', 'the smallest'],
] as const;

const figure = (row: RankedRow, field: string) => row[field] as number | null;

export function RankedPanel({ event, keys }: { event: string; keys: readonly string[] }): JSX.Element {
  const zone = browserZone();
  const [comparison, setComparison] = useState(0);
  const [groupBy, setGroupBy] = useState('agent');
  const [orderBy, setOrderBy] = useState<(typeof ORDERS)[number][0]>('value_pct_change');
  const [direction, setDirection] = useState<(typeof DIRECTIONS)[number][0]>('desc');
  const [period, previous, label] = COMPARISONS[comparison]!;
  const ranked = useLoad(() => {
    const q = new URLSearchParams({ event, view: 'window', period, previous, group_by: groupBy, order_by: orderBy, direction, timezone: zone, limit: '20' });
    return api<Ranked>('GET', `/v1.0/analytics?${q}`);
  }, [event, period, previous, groupBy, orderBy, direction, zone]);
  const r = ranked.value;
  const columns: ListColumn<RankedRow>[] = [
    { label: groupBy === 'agent' ? 'Agent' : groupBy, role: 'title', cell: (row) => groupName(row.labels) },
    { label: 'Sum now', numeric: true, cell: (row) => formatNumber(figure(row, 'current_value')) },
    { label: 'Sum before', numeric: true, cell: (row) => formatNumber(figure(row, 'previous_value')) },
    { label: 'Change of the sum', numeric: true, cell: (row) => percent(figure(row, 'value_pct_change')) },
    { label: 'Count now', numeric: true, cell: (row) => formatNumber(figure(row, 'current_count')) },
    { label: 'Count before', numeric: true, cell: (row) => formatNumber(figure(row, 'previous_count')) },
    { label: 'Change of the average', numeric: true, cell: (row) => percent(figure(row, 'mean_pct_change')) },
  ];
  return (
    <section class="panel" aria-labelledby="ranked-heading">
      <div class="panel-head">
        <h3 id="ranked-heading">What changed most</h3>
        <button type="button" onClick={ranked.reload}>
          Refresh
        </button>
      </div>
      <div class="chart-controls">
        <Choice
          id="ranked-comparison"
          label="Compare"
          value={comparison}
          choices={COMPARISONS.map(([, , text], i) => [i, text] as const)}
          onChange={setComparison}
        />
        <Choice id="ranked-group" label="Rank each" value={groupBy} choices={groupByChoices(keys)} onChange={setGroupBy} />
        <Choice id="ranked-order" label="By" value={orderBy} choices={ORDERS} onChange={setOrderBy} />
        <Choice id="ranked-direction" label="First" value={direction} choices={DIRECTIONS} onChange={setDirection} />
      </div>
      {r && (
        <p class="muted" data-testid="ranked-windows">
          {label}: now is {formatSpan(r.windows.current.from, r.windows.current.to, zone, true)}, before is{' '}
          {formatSpan(r.windows.previous.from, r.windows.previous.to, zone, true)}. Groups without logs in either window are left out; a change from nothing is
          shown as –.
        </p>
      )}
      {ranked.error ? <p role="alert">{errorText(ranked.error)}</p> : null}
      {r && r.data.length === 0 && <p>No logs in either window.</p>}
      {r && r.data.length > 0 && <DataTable columns={columns} rows={r.data} rowKey={(row) => JSON.stringify(row.labels)} className="ranked-table" />}
    </section>
  );
}
