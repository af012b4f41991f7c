// Fleets: the event names the workspace's agents send, and for the chosen one its numbers across
// agents — a chart of its largest groups (the top agents, or each value of a declared key),
// the ranked window comparison, and its dimensions. Times are in the browser's time zone,
// which every caption names.
import type { JSX } from 'preact';
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { measureLabel, rollupRange, rollupRangeText } from '../../shared/rollupChart.js';
import { formatNumber, MEASURES, type Measure, type Period, PERIODS } from '../../shared/rollups.js';
import { browserZone } from '../../shared/time.js';
import { api, errorText, listAll } from '../api.js';
import { Choice } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { useInterval, useLoad } from '../hooks.js';
import { SERIES_COLORS, SeriesChart } from '../seriesChart.js';
import { type Dimension, groupByChoices, groupName, type PageProps, type SeriesGroup } from '../types.js';
import { DimensionsPanel } from './fleetDimensions.js';
import { RankedPanel } from './fleetRanked.js';

const PERIOD_LABELS: Record<Period, string> = { minute: 'Last hour, by minute', hour: 'Last 2 days, by hour', day: 'Last month, by day' };
const TOP = [5, 10, 20] as const;

export const fleetHref = (event: string) => `#/fleets/${encodeURIComponent(event)}`;

export function FleetsPage({ events, route }: PageProps): JSX.Element {
  const dimensions = useLoad(() => listAll<Dimension>('/v1.0/dimensions'), []);
  const names = useMemo(() => {
    const agents = new Map<string, number>();
    for (const e of events) agents.set(e.event, (agents.get(e.event) ?? 0) + 1);
    return [...agents].sort(([a], [b]) => a.localeCompare(b));
  }, [events]);
  const selected = route.parts[1] ?? names[0]?.[0];
  const declared = new Map((dimensions.value ?? []).map((d) => [d.event, d]));
  if (names.length === 0) {
    return (
      <section>
        <h1>Fleets</h1>
        <p>No events yet. When agents send logs to POST /v1.0/logs, each event name they send appears here, across all its agents.</p>
      </section>
    );
  }
  return (
    <div class="master-detail">
      <section class="master" aria-labelledby="fleets-heading">
        <h1 id="fleets-heading">Fleets</h1>
        <p class="muted">Each event name across every agent that sends it.</p>
        <ul class="item-list">
          {names.map(([name, agents]) => (
            <li key={name}>
              <a href={fleetHref(name)} aria-current={name === selected ? 'true' : undefined}>
                <span class="item-title">{name}</span>
                <span class="muted item-sub">
                  {agents} agent{agents === 1 ? '' : 's'}
                  {declared.get(name)?.keys.length ? ` · by ${declared.get(name)!.keys.join(', ')}` : ''}
                </span>
              </a>
            </li>
          ))}
        </ul>
      </section>
      {selected !== undefined && (
        <FleetDetail
          key={selected}
          event={selected}
          agents={names.find(([n]) => n === selected)?.[1] ?? 0}
          keys={declared.get(selected)?.keys ?? []}
          onDimensionsChanged={dimensions.reload}
        />
      )}
    </div>
  );
}

function FleetDetail(props: { event: string; agents: number; keys: readonly string[]; onDimensionsChanged: () => void }): JSX.Element {
  const { event, agents, keys } = props;
  return (
    <section class="detail" aria-labelledby="fleet-heading">
      <h2 id="fleet-heading">{event}</h2>
      <p class="muted">
        Sent by {agents} agent{agents === 1 ? '' : 's'} · times in {browserZone()}
      </p>
      <SeriesPanel event={event} keys={keys} />
      <RankedPanel event={event} keys={keys} />
      <DimensionsPanel event={event} onChanged={props.onDimensionsChanged} />
    </section>
  );
}

interface Totals {
  count: number;
  sum: number;
  max: number;
}

const totalsOf = (g: SeriesGroup): Totals =>
  g.buckets.reduce((t, b) => ({ count: t.count + b.count, sum: t.sum + b.value, max: Math.max(t.max, b.max) }), {
    count: 0,
    sum: 0,
    max: Number.NEGATIVE_INFINITY,
  });

/** The chart and table of the event name's largest groups, by agent or by a declared key. */
function SeriesPanel({ event, keys }: { event: string; keys: readonly string[] }): JSX.Element {
  const zone = browserZone();
  const [period, setPeriod] = useState<Period>('minute');
  const [measure, setMeasure] = useState<Measure>('average');
  const [groupBy, setGroupBy] = useState('agent');
  const [top, setTop] = useState<number>(5);
  const read = useLoad(() => {
    const q = new URLSearchParams({ event, period, group_by: groupBy, limit: String(top) });
    return api<{ series: SeriesGroup[]; truncated: boolean }>('GET', `/v1.0/series?${q}`);
  }, [event, period, groupBy, top]);
  useInterval(read.reload, 30_000);
  const groups = read.value?.series ?? [];
  const range = useMemo(
    () =>
      read.value
        ? rollupRange(
            read.value.series.flatMap((g) => g.buckets),
            period,
          )
        : null,
    [read.value, period],
  );
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<SeriesChart | null>(null);
  useLayoutEffect(() => {
    chart.current = new SeriesChart(container.current!);
    return () => chart.current?.destroy();
  }, []);
  useLayoutEffect(() => {
    if (read.value && range)
      chart.current?.show({
        lines: read.value.series.map((g) => ({ name: groupName(g.labels), buckets: g.buckets })),
        measure,
        measureLabel: measureLabel(measure),
        timezone: zone,
        range,
      });
  }, [read.value, range, measure, zone]);
  const what = groupBy === 'agent' ? 'agents' : `values of ${groupBy}`;
  const columns: ListColumn<SeriesGroup & { color: string }>[] = [
    {
      label: groupBy === 'agent' ? 'Agent' : groupBy,
      role: 'title',
      cell: (g) => (
        <>
          <span class="swatch" style={{ background: g.color }} aria-hidden="true" />
          {groupName(g.labels)}
        </>
      ),
    },
    { label: 'Records', numeric: true, cell: (g) => formatNumber(totalsOf(g).count) },
    { label: 'Average', numeric: true, cell: (g) => formatNumber(totalsOf(g).sum / totalsOf(g).count) },
    { label: 'Maximum', numeric: true, cell: (g) => formatNumber(totalsOf(g).max) },
    { label: 'Sum', numeric: true, cell: (g) => formatNumber(totalsOf(g).sum) },
  ];
  return (
    <section class="panel" aria-labelledby="series-heading">
      <h3 id="series-heading">
        Top {top} {what}
      </h3>
      <div class="chart-controls">
        <Choice id="series-group" label="Break down by" value={groupBy} choices={groupByChoices(keys)} onChange={setGroupBy} />
        <Choice id="series-top" label="Show the top" value={top} choices={TOP.map((n) => [n, String(n)] as const)} onChange={setTop} />
        <Choice id="series-period" label="Range" value={period} choices={PERIODS.map((p) => [p, PERIOD_LABELS[p]] as const)} onChange={setPeriod} />
        <Choice id="series-measure" label="Measure" value={measure} choices={MEASURES.map((m) => [m, measureLabel(m)] as const)} onChange={setMeasure} />
      </div>
      {keys.length === 0 && <p class="muted">To break it down by a meta key (a route, a status code), declare it under “Dimensions” below.</p>}
      <div class="chart" ref={container} aria-hidden="true" data-series={read.value?.series.length} />
      {range && groups.length > 0 && <p class="muted chart-range">{rollupRangeText(range, period, zone)}</p>}
      {read.error ? <p role="alert">{errorText(read.error)}</p> : null}
      {read.value && groups.length === 0 && <p>No logs in this range.</p>}
      {groups.length > 0 && (
        <DataTable
          columns={columns}
          rows={groups.map((g, i) => ({ ...g, color: SERIES_COLORS[i % SERIES_COLORS.length]! }))}
          rowKey={(g) => JSON.stringify(g.labels)}
          className="series-table"
        />
      )}
      {read.value?.truncated && <p class="muted">Only the {top} largest by number of records are shown.</p>}
    </section>
  );
}
