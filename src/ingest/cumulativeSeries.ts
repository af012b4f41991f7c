// The last point of each cumulative series (an OpenTelemetry cumulative sum or histogram, a
// Prometheus counter), so that each new point can be stored as the increase since the one
// before. Held in memory, per process, for at most `maxSeries` series (least recently seen
// dropped first). After a restart, or once a series was dropped, its next point only primes it
// again: the increase over that one interval is not stored (docs/ingest-standards.md).
//
// A request reads the state while it maps its points and commits what it saw only once its
// records are durable, so a request refused (429, 503) and retried computes the same increases.

/** The last point of a series: its time, its start (a new start means the series was reset), its totals. */
export interface CumulativePoint {
  /**
   * Nanoseconds since the epoch, OTLP's precision (remote-write's milliseconds × 10⁶): two
   * points of a series exported within one millisecond are two points, not a retry.
   */
  readonly timeNs: bigint;
  readonly start: string;
  /** The running total (a sum), or the count, sum and bucket counts of a histogram. */
  readonly totals: readonly number[];
}

export class CumulativeSeries {
  private readonly last = new Map<string, CumulativePoint>();

  constructor(private readonly maxSeries: number) {}

  get size(): number {
    return this.last.size;
  }

  previous(workspaceId: string, key: string): CumulativePoint | undefined {
    return this.last.get(`${workspaceId}\u0000${key}`);
  }

  /** Records points seen by a request whose records are now durable; an older point than the one held changes nothing. */
  commit(workspaceId: string, seen: ReadonlyMap<string, CumulativePoint>): void {
    for (const [key, point] of seen) {
      const full = `${workspaceId}\u0000${key}`;
      const held = this.last.get(full);
      if (held !== undefined && held.timeNs > point.timeNs) continue;
      // Deleted first so that the series moves to the end: the map's order is least recently seen first.
      this.last.delete(full);
      this.last.set(full, point);
    }
    for (const key of this.last.keys()) {
      if (this.last.size <= this.maxSeries) break;
      this.last.delete(key);
    }
  }
}

/**
 * The increases of `point` over `previous`, or null when the point only primes the series (the
 * first seen) or is not newer than the one held (a retry, or out of order). A new start, or
 * one of the first `monotonicTotals` totals gone down (a counter, a histogram's count and
 * buckets), is a reset: the point's totals are the increase.
 */
export function increaseOf(previous: CumulativePoint | undefined, point: CumulativePoint, monotonicTotals: number): number[] | null {
  if (previous === undefined || point.timeNs <= previous.timeNs) return null;
  let restarted = point.start !== previous.start;
  for (let i = 0; i < monotonicTotals && !restarted; i++) restarted = point.totals[i]! < (previous.totals[i] ?? 0);
  if (restarted || previous.totals.length !== point.totals.length) return [...point.totals];
  return point.totals.map((t, i) => t - previous.totals[i]!);
}

/** Nanoseconds from the decimal text of a 64-bit integer (OTLP's time_unix_nano); 0 for anything else. */
export function nanosOf(decimal: string): bigint {
  return /^-?\d{1,20}$/.test(decimal) ? BigInt(decimal) : 0n;
}
