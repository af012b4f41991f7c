// Controlled data for analytics tests: records at chosen instants, however old, written
// through the ingest pipeline below HTTP (which accepts only the last 30 days), into the
// real logs table and its rollup views.
import { expect } from 'chai';
import { newId } from '../../src/ids.js';
import type { NewLogRecord } from '../../src/ingest/journaledBatch.js';
import type { LogIngestor } from '../../src/ingest/logIngestor.js';
import type { ComparisonNumbers } from '../../src/analytics/windowComparison.js';
import { ingestVisible, openTestIngestor } from './ingest.js';
import type { TestService } from './service.js';

export interface TimedValue {
  readonly at: string;
  readonly value: number;
}

/** An ingestor of its own, with its own cache of event timezones (as another process has). */
export async function directIngestor(svc: TestService): Promise<LogIngestor> {
  return (await openTestIngestor(svc.stores)).ingestor;
}

export async function ingestAt(ingestor: LogIngestor, workspaceId: string, agent: string, event: string, logs: readonly TimedValue[]): Promise<void> {
  const records: NewLogRecord[] = logs.map((l) => ({
    logId: newId(),
    clientLogId: false,
    agent,
    event,
    value: l.value,
    occurredAt: Date.parse(l.at),
    meta: '',
  }));
  await ingestVisible(ingestor, workspaceId, records);
}

/**
 * Keeps rows with fixed (possibly months-old) dates for the life of the test process: the
 * rollup tables drop parts past their TTL in background merges.
 */
export async function stopTtlMerges(svc: TestService): Promise<void> {
  for (const table of ['logs', 'rollups']) await svc.stores.clickhouse.client.command({ query: `SYSTEM STOP TTL MERGES ${table}` });
}

/** Sample standard deviation by two passes over the values: the reference. */
function sampleStddev(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
}

/** The numbers a comparison of these two sets of values must show, computed from the values themselves. */
export function expectedNumbers(current: readonly number[], previous: readonly number[]): ComparisonNumbers | null {
  if (current.length === 0 && previous.length === 0) return null;
  const sum = (vs: readonly number[]) => vs.reduce((s, v) => s + v, 0);
  const mean = (vs: readonly number[]) => (vs.length === 0 ? null : sum(vs) / vs.length);
  const pct = (c: number | null, p: number | null) => (c === null || p === null || p === 0 ? null : ((c - p) / p) * 100);
  const [cm, pm] = [mean(current), mean(previous)];
  return {
    current_value: sum(current),
    current_count: current.length,
    current_mean: cm,
    current_stddev: sampleStddev(current),
    previous_value: sum(previous),
    previous_count: previous.length,
    previous_mean: pm,
    previous_stddev: sampleStddev(previous),
    value_delta: sum(current) - sum(previous),
    count_delta: current.length - previous.length,
    mean_delta: cm === null || pm === null ? null : cm - pm,
    value_pct_change: pct(sum(current), sum(previous)),
    count_pct_change: pct(current.length, previous.length),
    mean_pct_change: pct(cm, pm),
  };
}

/** Every field equal: counts exactly, other numbers to 1e-9 relative, nulls as nulls. */
export function expectSameNumbers(actual: ComparisonNumbers | null, expected: ComparisonNumbers | null): void {
  if (expected === null || actual === null) {
    expect(actual).to.deep.equal(expected);
    return;
  }
  expect(Object.keys(actual).sort()).to.deep.equal(Object.keys(expected).sort());
  for (const [field, want] of Object.entries(expected) as [keyof ComparisonNumbers, number | null][]) {
    const got = actual[field];
    if (want === null) expect(got, field).to.equal(null);
    else
      expect(got, field)
        .to.be.a('number')
        .and.closeTo(want, Math.abs(want) * 1e-9 + 1e-9);
  }
}
