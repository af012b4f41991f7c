// Policy unit tests (docs/as-code.md, Policy unit tests), as `promtool test rules`: a policy
// judged on exactly the series a test gives, written in promtool's expanding notation, with
// every rule the worker applies (verdict.ts for each bucket, alertChanges.ts for the pending
// run, hysteresis and the alert's life; the backtest's replay). The buckets' numbers come
// from the engine: one ClickHouse query aggregates the given records (count, sum, min, max,
// the t-digest p95 and p99, as the rollups do) from bound parameters, reading no table and
// writing none. Nothing is stored, nothing is sent.
import { validationFailed, type ErrorDetail } from '../errors.js';
import type { Labels } from '../labels/labels.js';
import { bucketAt } from '../rollups/buckets.js';
import type { BucketStats } from '../rollups/model.js';
import type { ClickHouseStore } from '../stores/clickhouse.js';
import { bucketsBetween, replay, type BacktestAlert, type BacktestPolicy } from './backtest.js';
import { dueBucket, judgeDueWith } from './dueBuckets.js';

/** Values one series may expand to, and all series of a test together. */
export const UNIT_TEST_LIMITS = { valuesPerSeries: 10_000, values: 100_000, series: 1000, expectations: 1000 } as const;

/**
 * promtool's expanding notation: `1 2 3` are values, `_` is no record, `a+bxn` (or `a-bxn`)
 * expands to the n+1 values a, a+b, …, a+nb, `axn` to n+1 times a, and `_xn` to n gaps.
 * Null stands for a gap. Throws a message naming the token that is not one.
 */
export function expandValues(text: string, max: number = UNIT_TEST_LIMITS.valuesPerSeries): (number | null)[] {
  const out: (number | null)[] = [];
  const push = (v: number | null, times: number) => {
    if (out.length + times > max) throw new Error(`expands to more than ${max} values`);
    for (let i = 0; i < times; i++) out.push(v);
  };
  for (const token of text
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '')) {
    if (token === '_') {
      push(null, 1);
      continue;
    }
    const gaps = /^_x(\d+)$/.exec(token);
    if (gaps) {
      push(null, Number(gaps[1]));
      continue;
    }
    const number = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';
    const series = new RegExp(`^(${number})(?:([-+])(\\d+\\.?\\d*|\\.\\d+))?x(\\d+)$`).exec(token);
    if (series) {
      const [, a, sign, b, n] = series;
      const start = Number(a);
      const step = b === undefined ? 0 : Number(b) * (sign === '-' ? -1 : 1);
      const count = Number(n) + 1;
      if (out.length + count > max) throw new Error(`expands to more than ${max} values`);
      for (let i = 0; i < count; i++) out.push(start + i * step);
      continue;
    }
    if (new RegExp(`^${number}$`).test(token) && Number.isFinite(Number(token))) {
      push(Number(token), 1);
      continue;
    }
    throw new Error(`"${token.slice(0, 40)}" is not a value, _, a+bxn, axn or _xn`);
  }
  return out;
}

export interface TestSeries {
  readonly agent: string;
  readonly meta?: Readonly<Record<string, string>>;
  readonly start: string;
  /** "30s", "1m", "1h", "1d". */
  readonly interval: string;
  readonly values: string;
}

export interface ExpectedAlert {
  readonly status?: 'triggered';
  readonly labels?: Labels;
  readonly value?: number | null;
}

export interface Expectation {
  readonly at: string;
  readonly alerts: readonly ExpectedAlert[];
}

export interface GotAlert {
  readonly status: 'triggered';
  readonly labels: Labels;
  readonly value: number | null;
}

export interface UnitTestResult {
  readonly passed: boolean;
  readonly results: { at: string; passed: boolean; expected: readonly ExpectedAlert[]; got: GotAlert[] }[];
}

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function intervalMs(text: string): number | null {
  const m = /^(\d+)(s|m|h|d)$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

/** What the test judges: a policy on one definition, or a fleet policy's grouping. */
export type UnitTestSubject =
  | { readonly kind: 'single'; readonly policy: BacktestPolicy }
  | {
      readonly kind: 'fleet';
      readonly policy: BacktestPolicy;
      readonly agents: readonly string[];
      readonly filter: Readonly<Record<string, string | readonly string[]>>;
      readonly groupBy: readonly string[];
    };

interface TestRecord {
  readonly group: string;
  readonly labels: Labels;
  readonly at: number;
  readonly value: number;
}

const agentPattern = (pattern: string) => new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '*' ? '.*' : `\\${c}`))}$`);

/** The records of the series, each with the group it falls in (a policy on one definition: one group). */
function recordsOf(subject: UnitTestSubject, series: readonly TestSeries[]): TestRecord[] {
  const problems: ErrorDetail[] = [];
  const records: TestRecord[] = [];
  let total = 0;
  const agents = subject.kind === 'fleet' ? subject.agents.map(agentPattern) : [];
  series.forEach((s, i) => {
    const step = intervalMs(s.interval);
    if (step === null) problems.push({ path: `/series/${i}/interval`, message: 'must be a whole number of s, m, h or d, e.g. 1m' });
    let values: (number | null)[] = [];
    try {
      values = expandValues(s.values);
    } catch (err) {
      problems.push({ path: `/series/${i}/values`, message: (err as Error).message });
    }
    total += values.length;
    if (total > UNIT_TEST_LIMITS.values)
      problems.push({ path: `/series/${i}/values`, message: `the series expand to more than ${UNIT_TEST_LIMITS.values} values` });
    if (step === null || problems.length > 0) return;
    const all: Labels = { ...s.meta, agent: s.agent };
    if (subject.kind === 'fleet') {
      if (!agents.some((p) => p.test(s.agent))) return;
      const passes = Object.entries(subject.filter).every(([k, v]) => (typeof v === 'string' ? all[k] === v : v.includes(all[k] ?? '\u0000')));
      if (!passes) return;
    }
    const labels: Labels = subject.kind === 'fleet' ? Object.fromEntries(subject.groupBy.map((k) => [k, all[k] ?? ''])) : {};
    const group = JSON.stringify(Object.entries(labels).sort());
    const start = Date.parse(s.start);
    values.forEach((v, k) => {
      if (v !== null) records.push({ group, labels, at: start + k * step, value: v });
    });
  });
  if (problems.length > 0) throw validationFailed(problems);
  return records;
}

/** The numbers of each (group, bucket), aggregated by ClickHouse from the records themselves. */
async function bucketStatsOf(
  clickhouse: ClickHouseStore,
  groups: string[],
  buckets: number[],
  values: number[],
): Promise<Map<string, Map<number, BucketStats>>> {
  const result = await clickhouse.client.query({
    query: `SELECT t.1 AS g, t.2 AS b, count() AS count, sum(t.3) AS sum, min(t.3) AS min, max(t.3) AS max,
              quantilesTDigest(0.95, 0.99)(t.3) AS quantiles
            FROM (SELECT arrayJoin(arrayZip({g:Array(String)}, {b:Array(Int64)}, {v:Array(Float64)})) AS t)
            GROUP BY g, b`,
    query_params: { g: groups, b: buckets, v: values },
    format: 'JSONEachRow',
  });
  const rows = await result.json<{
    g: string;
    b: number | string;
    count: number | string;
    sum: number;
    min: number;
    max: number;
    quantiles: [number, number];
  }>();
  const out = new Map<string, Map<number, BucketStats>>();
  for (const r of rows) {
    if (!out.has(r.g)) out.set(r.g, new Map());
    out.get(r.g)!.set(Number(r.b), { count: Number(r.count), sum: r.sum, min: r.min, max: r.max, p95: r.quantiles[0], p99: r.quantiles[1] });
  }
  return out;
}

const close = (a: number | null, b: number | null) => a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)));

const sameLabels = (a: Labels, b: Labels) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Whether the alerts got are the ones expected, in any order (a value or labels left out of an expectation match any). */
function matches(expected: readonly ExpectedAlert[], got: readonly GotAlert[]): boolean {
  if (expected.length !== got.length) return false;
  const left = [...got];
  for (const e of expected) {
    const i = left.findIndex((g) => (e.labels === undefined || sameLabels(e.labels, g.labels)) && (e.value === undefined || close(e.value, g.value)));
    if (i === -1) return false;
    left.splice(i, 1);
  }
  return true;
}

/**
 * Runs one test: at each `at`, the alerts open once every bucket that closed by then has been
 * judged, from no alert and no run (as a new policy), compared with those expected.
 */
export async function runUnitTest(
  clickhouse: ClickHouseStore,
  subject: UnitTestSubject,
  series: readonly TestSeries[],
  expectations: readonly Expectation[],
): Promise<UnitTestResult> {
  const { policy } = subject;
  const records = recordsOf(subject, series);
  const groupLabels = new Map(records.map((r) => [r.group, r.labels]));
  if (subject.kind === 'single') groupLabels.set(JSON.stringify([]), {});
  const stats = await bucketStatsOf(
    clickhouse,
    records.map((r) => r.group),
    records.map((r) => bucketAt(policy.period, policy.timezone, r.at).start),
    records.map((r) => r.value),
  );
  const starts = records.map((r) => r.at);
  const from = starts.length === 0 ? Math.min(...expectations.map((e) => Date.parse(e.at))) : Math.min(...starts);
  const results = expectations.map((e) => {
    const at = Date.parse(e.at);
    const due = bucketsBetween(policy, bucketAt(policy.period, policy.timezone, from).start, at, at).map((b) => dueBucket(policy, b, false));
    const got: GotAlert[] = [];
    for (const [group, labels] of groupLabels) {
      const buckets = stats.get(group) ?? new Map<number, BucketStats>();
      const alerts: BacktestAlert[] = replay(
        { ...policy, labels: subject.kind === 'fleet' ? labels : policy.labels },
        due.map((d) => judgeDueWith(policy, d, buckets)),
      );
      for (const a of alerts) if (a.resolved_bucket_start === null) got.push({ status: 'triggered', labels, value: a.peak_value });
    }
    return { at: new Date(at).toISOString(), passed: matches(e.alerts, got), expected: e.alerts, got };
  });
  return { passed: results.every((r) => r.passed), results };
}
