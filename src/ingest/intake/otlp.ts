// OTLP metrics (ExportMetricsServiceRequest) as log records: each data point one record
// (docs/ingest-standards.md has the mapping table). agent = service.name[/service.instance.id],
// event = the metric name, occurred_at = time_unix_nano, meta = point, scope, then resource
// attributes. Gauges and delta sums as they are; cumulative sums as increases per series;
// histograms and exponential histograms as summary records (../recordSummary.ts).
import { type CumulativePoint, type CumulativeSeries, increaseOf, nanosOf } from '../cumulativeSeries.js';
import { type HistogramBucket, histogramSummary, type RecordSummary } from '../recordSummary.js';
import { DEFAULT_AGENT } from '../../events/model.js';
import { addPoint, limitedMeta, type PointMapping, PointOutcome, validName } from './pointRecords.js';

const CUMULATIVE = 2;
const NO_RECORDED_VALUE = 1;

/** A decoded protobuf 64-bit integer (a Long, or a number / string from JSON). */
type Int64 = number | string | { toNumber(): number; toString(): string } | null | undefined;
const num = (v: Int64): number => (v === null || v === undefined ? 0 : typeof v === 'object' ? v.toNumber() : Number(v));
const text = (v: Int64): string => (v === null || v === undefined ? '0' : String(v));

interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64;
  doubleValue?: number | null;
  arrayValue?: { values?: AnyValue[] | null } | null;
  kvlistValue?: { values?: KeyValue[] | null } | null;
  bytesValue?: Uint8Array | null;
}
interface KeyValue {
  key?: string | null;
  value?: AnyValue | null;
}
interface NumberPoint {
  attributes?: KeyValue[] | null;
  startTimeUnixNano?: Int64;
  timeUnixNano?: Int64;
  asDouble?: number | null;
  asInt?: Int64;
  flags?: number | null;
}
interface HistogramPoint extends NumberPoint {
  count?: Int64;
  sum?: number | null;
  min?: number | null;
  max?: number | null;
  bucketCounts?: Int64[] | null;
  explicitBounds?: number[] | null;
  scale?: number | null;
  zeroCount?: Int64;
  zeroThreshold?: number | null;
  positive?: { offset?: number | null; bucketCounts?: Int64[] | null } | null;
  negative?: { offset?: number | null; bucketCounts?: Int64[] | null } | null;
}
interface Metric {
  name?: string | null;
  gauge?: { dataPoints?: NumberPoint[] | null } | null;
  sum?: { dataPoints?: NumberPoint[] | null; aggregationTemporality?: number | null; isMonotonic?: boolean | null } | null;
  histogram?: { dataPoints?: HistogramPoint[] | null; aggregationTemporality?: number | null } | null;
  exponentialHistogram?: { dataPoints?: HistogramPoint[] | null; aggregationTemporality?: number | null } | null;
  summary?: { dataPoints?: unknown[] | null } | null;
}
export interface MetricsRequest {
  resourceMetrics?: {
    resource?: { attributes?: KeyValue[] | null } | null;
    scopeMetrics?: { scope?: { name?: string | null; version?: string | null; attributes?: KeyValue[] | null } | null; metrics?: Metric[] | null }[] | null;
  }[];
}

/** An attribute's value as JSON: strings, numbers, booleans, arrays and objects as they are; bytes as base64. */
function jsonOf(v: AnyValue | null | undefined): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (typeof v.boolValue === 'boolean') return v.boolValue;
  if (v.intValue !== null && v.intValue !== undefined) {
    const n = num(v.intValue);
    return Number.isSafeInteger(n) ? n : text(v.intValue);
  }
  if (typeof v.doubleValue === 'number') return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(jsonOf);
  if (v.kvlistValue) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key ?? '', jsonOf(kv.value)]));
  if (v.bytesValue) return Buffer.from(v.bytesValue).toString('base64');
  return null;
}

const entriesOf = (attributes: KeyValue[] | null | undefined): [string, unknown][] => (attributes ?? []).map((kv) => [kv.key ?? '', jsonOf(kv.value)]);

/** The data points an export request carries, of every kind (counted before any is mapped). */
export function otlpPointCount(request: MetricsRequest): number {
  let points = 0;
  for (const rm of request.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      for (const metric of sm.metrics ?? []) {
        const data = metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
        points += data?.dataPoints?.length ?? 0;
      }
    }
  }
  return points;
}

/** The records of an export request for `workspaceId`, at `now`. */
export function otlpRecords(request: MetricsRequest, workspaceId: string, cumulative: CumulativeSeries, now: number): PointMapping {
  const outcome = new PointOutcome();
  const seen = new Map<string, CumulativePoint>();
  for (const rm of request.resourceMetrics ?? []) {
    const resource = entriesOf(rm.resource?.attributes);
    const service = resource.find(([k]) => k === 'service.name')?.[1];
    const instance = resource.find(([k]) => k === 'service.instance.id')?.[1];
    const rawAgent = service === undefined || service === null ? '' : String(service);
    const agentText = instance === undefined || instance === null ? rawAgent : `${rawAgent}/${String(instance)}`;
    const agent = validName(agentText) ?? DEFAULT_AGENT;
    const resourceRest = resource.filter(([k]) => k !== 'service.name' && k !== 'service.instance.id');
    const resourceKey = JSON.stringify(resource);
    for (const sm of rm.scopeMetrics ?? []) {
      const scopeEntries = entriesOf(sm.scope?.attributes);
      const scopeKey = JSON.stringify([sm.scope?.name ?? '', sm.scope?.version ?? '', scopeEntries]);
      for (const metric of sm.metrics ?? []) {
        const event = validName(metric.name ?? '');
        const data = metric.gauge ?? metric.sum ?? metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
        const dataPoints = (data?.dataPoints ?? []) as HistogramPoint[];
        if (event === null) {
          outcome.refuse('invalid_name', dataPoints.length);
          continue;
        }
        if (metric.summary) {
          outcome.refuse('unsupported', dataPoints.length);
          continue;
        }
        const temporality = (metric.sum ?? metric.histogram ?? metric.exponentialHistogram)?.aggregationTemporality;
        const isCumulative = !metric.gauge && temporality === CUMULATIVE;
        for (const p of dataPoints) {
          if (((p.flags ?? 0) & NO_RECORDED_VALUE) !== 0) {
            outcome.refuse('no_value');
            continue;
          }
          const attributes = entriesOf(p.attributes);
          if (!outcome.pointKeys.has(event))
            outcome.pointKeys.set(
              event,
              attributes.map(([k]) => k),
            );
          const seriesKey = `${resourceKey}\u0000${scopeKey}\u0000${event}\u0000${JSON.stringify(attributes)}`;
          const timeKey = text(p.timeUnixNano);
          const occurredAt = Math.floor(num(p.timeUnixNano) / 1e6);
          const base = { workspaceId, agent, event, seriesKey, timeKey, occurredAt };
          const meta = () => limitedMeta([...attributes, ...scopeEntries, ...resourceRest], outcome);
          const histogram = metric.histogram ? explicitBuckets(p) : metric.exponentialHistogram ? exponentialBuckets(p) : null;
          if (histogram === null) {
            let value = p.asDouble ?? (p.asInt !== null && p.asInt !== undefined ? num(p.asInt) : Number.NaN);
            if (isCumulative) {
              if (!Number.isFinite(value)) {
                outcome.refuse('not_finite');
                continue;
              }
              const point = { timeNs: nanosOf(timeKey), start: text(p.startTimeUnixNano), totals: [value] };
              const increase = increaseOf(seen.get(seriesKey) ?? cumulative.previous(workspaceId, seriesKey), point, metric.sum?.isMonotonic ? 1 : 0);
              if (increase !== null || !seen.has(seriesKey)) seen.set(seriesKey, point);
              if (increase === null) continue;
              value = increase[0]!;
            }
            addPoint(outcome, { ...base, value, meta: meta() }, now);
            continue;
          }
          // Counts beyond 2^53 cannot be held exactly (nor in the rollups' sums): refused, never wrapped or rounded.
          if (!countsInRange(histogram)) {
            outcome.refuse('count_out_of_range');
            continue;
          }
          let { count, sum, buckets } = histogram;
          let { min, max } = histogram;
          if (isCumulative) {
            const point = { timeNs: nanosOf(timeKey), start: text(p.startTimeUnixNano), totals: [count, ...buckets.map((b) => b.count), sum] };
            const increase = increaseOf(seen.get(seriesKey) ?? cumulative.previous(workspaceId, seriesKey), point, buckets.length + 1);
            if (increase !== null || !seen.has(seriesKey)) seen.set(seriesKey, point);
            if (increase === null) continue;
            count = increase[0]!;
            sum = increase[increase.length - 1]!;
            buckets = buckets.map((b, i) => ({ ...b, count: increase[i + 1]! }));
            // min and max of a cumulative point cover its whole start: they bound the interval's, no more.
            min = undefined;
            max = undefined;
          }
          if (count <= 0) continue; // nothing observed in the interval: no record
          const summary: RecordSummary = histogramSummary(count, sum, buckets, min, max);
          addPoint(outcome, { ...base, value: summary.sum, meta: meta(), summary }, now);
        }
      }
    }
  }
  return { outcome, seen };
}

interface HistogramData {
  count: number;
  sum: number;
  min: number | undefined;
  max: number | undefined;
  buckets: HistogramBucket[];
}

/** Whether a histogram's count and bucket counts are integers in [0, 2^53). */
const countsInRange = (h: HistogramData) => isCount(h.count) && h.buckets.every((b) => isCount(b.count));
const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;

const optional = (v: number | null | undefined) => (typeof v === 'number' ? v : undefined);

/** An explicit-bounds histogram point: bucket i holds (bounds[i-1], bounds[i]]. */
function explicitBuckets(p: HistogramPoint): HistogramData {
  const bounds = p.explicitBounds ?? [];
  const counts = (p.bucketCounts ?? []).map(num);
  const buckets = counts.map((count, i) => ({ lower: i === 0 ? -Infinity : bounds[i - 1]!, upper: i < bounds.length ? bounds[i]! : Infinity, count }));
  const count = num(p.count);
  return { count, sum: p.sum ?? Number.NaN, min: optional(p.min), max: optional(p.max), buckets };
}

/** An exponential histogram point: positive bucket i holds (base^(offset+i), base^(offset+i+1)], base = 2^(2^-scale); negative mirrored; and the zero bucket. */
function exponentialBuckets(p: HistogramPoint): HistogramData {
  const base = 2 ** (2 ** -(p.scale ?? 0));
  const buckets: HistogramBucket[] = [];
  const negative = p.negative?.bucketCounts ?? [];
  for (let i = negative.length - 1; i >= 0; i--) {
    const index = (p.negative?.offset ?? 0) + i;
    buckets.push({ lower: -(base ** (index + 1)), upper: -(base ** index), count: num(negative[i]) });
  }
  const zeroThreshold = p.zeroThreshold ?? 0;
  buckets.push({ lower: -zeroThreshold, upper: zeroThreshold, count: num(p.zeroCount) });
  const positive = p.positive?.bucketCounts ?? [];
  for (let i = 0; i < positive.length; i++) {
    const index = (p.positive?.offset ?? 0) + i;
    buckets.push({ lower: base ** index, upper: base ** (index + 1), count: num(positive[i]) });
  }
  return { count: num(p.count), sum: p.sum ?? Number.NaN, min: optional(p.min), max: optional(p.max), buckets };
}
