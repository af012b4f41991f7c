// Admission control for POST /v1.0/logs, decided before the body is read, so that refusing
// costs next to nothing however many clients flood the service:
//
// - Concurrency: at most INGEST_MAX_CONCURRENT_REQUESTS log requests are handled at once, and
//   each workspace that sent in the last few seconds may hold its fair share of them. This
//   bounds the CPU that ingest can take from the control plane, and one workspace's flood
//   from another's requests.
// - Rate: each workspace has a token bucket of records. With INGEST_WORKSPACE_RECORDS_PER_S
//   it refills at that rate, always. Unset, it applies only while the service is saturated
//   (requests were refused for concurrency in the last few seconds) and more than one
//   workspace sends, at a fair share of the capacity measured here (records journaled per
//   second in saturated seconds), with headroom so that the estimate can rise: a workspace
//   above its share is held back, one below it is not, and an idle service, or one that
//   serves a single workspace, limits nobody by rate. A request is admitted while the
//   bucket is above zero and its records are taken once counted (the bucket may go below
//   zero), so a batch larger than the burst is still admitted when the workspace has waited.
// Both refusals are 429 with Retry-After; nothing of the batch is read or stored.
import type { IngestConfig } from '../config.js';
import type { Metrics } from '../metrics.js';

const ACTIVE_MS = 5_000;
const SAMPLE_MS = 1_000;
/** How long the fair share applies after the last refusal for concurrency. */
const SATURATED_MS = 3_000;
/** Share of the measured capacity a lone workspace may use: above 1, so the estimate can grow. */
const HEADROOM = 1.25;
const SMOOTHING = 0.3;

interface WorkspaceState {
  tokens: number;
  refilledAt: number;
  inFlight: number;
  lastSeen: number;
}

export interface RateLimitHeaders {
  /** Records per second the workspace may send now. */
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly reset: number;
}

export type Admitted = { readonly admitted: true; readonly headers: RateLimitHeaders | null; debit(records: number): void; leave(): void };
export type Refused = {
  readonly admitted: false;
  readonly reason: 'rate' | 'concurrency';
  readonly retryAfterS: number;
  readonly headers: RateLimitHeaders | null;
};

export class Admission {
  private readonly workspaces = new Map<string, WorkspaceState>();
  private activeCount = 0;
  private activeCountedAt = -Infinity;
  /** Measured records per second the service journals when saturated; null until measured. */
  private capacity: number | null = null;
  private sampleStart: number;
  private sampleRecords = 0;
  private sampleSaturated = false;
  private saturatedUntil = -Infinity;

  constructor(
    private readonly config: IngestConfig,
    private readonly metrics: Metrics,
    private readonly now: () => number = Date.now,
  ) {
    this.sampleStart = now();
  }

  /** Admits or refuses a log request of the workspace, before its body is read. */
  enter(workspaceId: string): Admitted | Refused {
    const now = this.now();
    this.sample(now);
    let ws = this.workspaces.get(workspaceId);
    if (!ws) {
      ws = { tokens: Infinity, refilledAt: now, inFlight: 0, lastSeen: now };
      this.workspaces.set(workspaceId, ws);
      this.activeCountedAt = -Infinity;
    }
    ws.lastSeen = now;
    const rate = this.rate(now);
    const headers = this.refill(ws, rate, now);
    if (ws.tokens <= 0) {
      this.metrics.refusedRequests.inc({ status: '429', reason: 'workspace_rate' });
      return { admitted: false, reason: 'rate', retryAfterS: Math.max(1, Math.ceil(-ws.tokens / rate! + 1e-9)), headers };
    }
    if (ws.inFlight >= Math.max(1, Math.ceil(this.config.maxConcurrentRequests / this.active(now)))) {
      this.sampleSaturated = true;
      this.saturatedUntil = now + SATURATED_MS;
      this.metrics.refusedRequests.inc({ status: '429', reason: 'workspace_concurrency' });
      return { admitted: false, reason: 'concurrency', retryAfterS: 1, headers };
    }
    ws.inFlight++;
    const state = ws;
    let left = false;
    return {
      admitted: true,
      headers,
      debit: (records: number) => {
        state.tokens -= records;
        this.sampleRecords += records;
      },
      leave: () => {
        if (left) return;
        left = true;
        state.inFlight--;
      },
    };
  }

  /**
   * Records per second each workspace may send now; null when unlimited: not saturated, the
   * capacity not yet measured, or a workspace alone (its share is all of it, and the
   * concurrency limit holds it to what the service can do; a rate would only slow it while
   * the estimate catches up).
   */
  private rate(now: number): number | null {
    if (this.config.workspaceRecordsPerS !== null) return this.config.workspaceRecordsPerS;
    const active = this.active(now);
    if (this.capacity === null || now >= this.saturatedUntil || active < 2) return null;
    return (this.capacity * HEADROOM) / active;
  }

  private refill(ws: WorkspaceState, rate: number | null, now: number): RateLimitHeaders | null {
    if (rate === null) {
      ws.tokens = Infinity;
      ws.refilledAt = now;
      return null;
    }
    const burst = rate * this.config.workspaceBurstS;
    ws.tokens = Number.isFinite(ws.tokens) ? Math.min(burst, ws.tokens + ((now - ws.refilledAt) / 1000) * rate) : burst;
    ws.refilledAt = now;
    return { limit: Math.round(rate), remaining: Math.max(0, Math.floor(ws.tokens)), reset: Math.ceil((burst - ws.tokens) / rate) };
  }

  /** Workspaces that sent in the last few seconds (at least 1); recounted at most once a second. */
  private active(now: number): number {
    if (now - this.activeCountedAt >= SAMPLE_MS) {
      this.activeCount = 0;
      for (const [id, ws] of this.workspaces) {
        if (now - ws.lastSeen <= ACTIVE_MS || ws.inFlight > 0) this.activeCount++;
        else if (now - ws.lastSeen > 60_000) this.workspaces.delete(id);
      }
      this.activeCountedAt = now;
    }
    return Math.max(1, this.activeCount);
  }

  /** Each second in which requests were refused for concurrency measures the capacity. */
  private sample(now: number): void {
    const elapsed = now - this.sampleStart;
    if (elapsed < SAMPLE_MS) return;
    // A sample that spans idle time says nothing of the capacity.
    if (this.sampleSaturated && this.sampleRecords > 0 && elapsed < 2 * SAMPLE_MS) {
      const measured = (this.sampleRecords * 1000) / elapsed;
      this.capacity = this.capacity === null ? measured : this.capacity + SMOOTHING * (measured - this.capacity);
      this.metrics.ingestCapacity.set(this.capacity);
    }
    this.sampleStart = now;
    this.sampleRecords = 0;
    this.sampleSaturated = false;
  }
}
