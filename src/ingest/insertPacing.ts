// When a journal writer (the local journal's or the stream's) inserts the records that wait:
// at most one insert every `intervalMs` (INGEST_FLUSH_INTERVAL_MS), counted from the start of
// the last one. Records that arrive after a quiet spell, when the last insert began that long
// ago or none has, go in at once; records that arrive while the writer is busy or soon after
// an insert wait for the rest of the interval with whatever else comes. The interval bounds
// how many parts ClickHouse is given a second, as before; it no longer delays the first
// batch after a quiet spell, which is the one a page waits for (docs/alert-path.md).
// A full block (`blockRecords`) goes at once either way: that is the writer's to decide.
export class InsertPacing {
  private lastStartedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly intervalMs: number) {}

  /** Milliseconds until an insert of records that wait is due; ≤ 0: due now. */
  dueIn(now = Date.now()): number {
    return this.lastStartedAt + this.intervalMs - now;
  }

  /** An insert starts now. */
  started(now = Date.now()): void {
    this.lastStartedAt = now;
  }
}
