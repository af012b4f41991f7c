// Prometheus remote-write 1.0 (WriteRequest) as log records: each sample one record.
// agent = job[/instance], event = __name__, meta = the other labels (sorted, as Prometheus
// sends them). Counters (metadata type counter, or a name ending in _total, _count, _sum or
// _bucket) become increases per series; classic-histogram _bucket series are not stored.
import { type CumulativePoint, type CumulativeSeries, increaseOf } from '../cumulativeSeries.js';
import { DEFAULT_AGENT } from '../../events/model.js';
import { addPoint, limitedMeta, type PointMapping, PointOutcome, validName } from './pointRecords.js';

const COUNTER_TYPE = 1;
const COUNTER_SUFFIXES = ['_total', '_count', '_sum', '_bucket'];

type Int64 = number | string | { toNumber(): number } | null | undefined;
const num = (v: Int64): number => (v === null || v === undefined ? 0 : typeof v === 'object' ? v.toNumber() : Number(v));

export interface WriteRequestMessage {
  timeseries?: { labels?: { name?: string | null; value?: string | null }[] | null; samples?: { value?: number | null; timestamp?: Int64 }[] | null }[] | null;
  metadata?: { type?: number | null; metricFamilyName?: string | null }[] | null;
}

/** Prometheus marks a series gone with this NaN; it is no sample. */
const isStaleMarker = (value: number) => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleLE(value);
  return bytes.readBigUInt64LE() === 0x7ff0000000000002n;
};

/** The samples a write request carries (counted before any is mapped). */
export function remoteWriteSampleCount(request: WriteRequestMessage): number {
  let samples = 0;
  for (const series of request.timeseries ?? []) samples += series.samples?.length ?? 0;
  return samples;
}

export function remoteWriteRecords(request: WriteRequestMessage, workspaceId: string, cumulative: CumulativeSeries, now: number): PointMapping {
  const outcome = new PointOutcome();
  const seen = new Map<string, CumulativePoint>();
  const counterFamilies = new Set((request.metadata ?? []).filter((m) => m.type === COUNTER_TYPE).map((m) => m.metricFamilyName ?? ''));
  for (const series of request.timeseries ?? []) {
    const labels = [...(series.labels ?? [])].map((l) => [l.name ?? '', l.value ?? ''] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const sampleList = series.samples ?? [];
    const name = labels.find(([k]) => k === '__name__')?.[1] ?? '';
    if (name.endsWith('_bucket')) continue;
    const event = validName(name);
    if (event === null) {
      outcome.refuse('invalid_name', sampleList.length);
      continue;
    }
    const job = labels.find(([k]) => k === 'job')?.[1];
    const instance = labels.find(([k]) => k === 'instance')?.[1];
    const agentText = job === undefined ? (instance ?? '') : instance === undefined ? job : `${job}/${instance}`;
    const agent = validName(agentText) ?? DEFAULT_AGENT;
    const rest = labels.filter(([k]) => k !== '__name__' && k !== 'job' && k !== 'instance');
    const seriesKey = JSON.stringify(labels);
    const isCounter = COUNTER_SUFFIXES.some((s) => name.endsWith(s)) || counterFamilies.has(name) || counterFamilies.has(name.replace(/_total$/, ''));
    const meta = limitedMeta(rest, outcome);
    if (!outcome.pointKeys.has(event))
      outcome.pointKeys.set(
        event,
        rest.map(([k]) => k),
      );
    for (const sample of sampleList) {
      let value = sample.value ?? 0;
      if (Number.isNaN(value) && isStaleMarker(value)) continue;
      const occurredAt = num(sample.timestamp);
      if (isCounter) {
        if (!Number.isFinite(value)) {
          outcome.refuse('not_finite');
          continue;
        }
        const point = { timeNs: BigInt(occurredAt) * 1_000_000n, start: '', totals: [value] };
        // Samples of a series in this request follow each other: the one before may be in it.
        const before = seen.get(seriesKey) ?? cumulative.previous(workspaceId, seriesKey);
        const increase = increaseOf(before, point, 1);
        if (before === undefined || before.timeNs < point.timeNs) seen.set(seriesKey, point);
        if (increase === null) continue;
        value = increase[0]!;
      }
      addPoint(outcome, { workspaceId, agent, event, seriesKey, timeKey: String(occurredAt), occurredAt, value, meta }, now);
    }
  }
  return { outcome, seen };
}
