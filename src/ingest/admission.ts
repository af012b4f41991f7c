// Admission control for POST /v1.0/logs, decided before the body is read, so that refusing
// costs next to nothing however many clients flood the service:
//
// - Concurrency, work-conserving: while fewer than INGEST_MAX_CONCURRENT_REQUESTS log
//   requests are in flight, every request is admitted, however many workspaces sent
//   recently. At the limit, a workspace is refused only when it holds its fair share of the
//   limit or more (the limit divided among the workspaces with requests in flight, itself
//   included): a flood is held there, and another workspace's request still goes in at
//   once. This bounds the CPU that ingest can take from the control plane (the flooders'
//   requests stay at the limit; the others add at most their share each), and one
//   workspace's flood from another's requests.
// - Rate: each workspace has a token bucket of records. With INGEST_WORKSPACE_RECORDS_PER_S
//   it refills at that rate, always. Unset, it applies only while the service is saturated
//   (requests were refused for concurrency in the last few seconds) and more than one
//   workspace sends, at a max-min fair share of the capacity measured here (records
//   journaled per second in saturated seconds), with headroom so that the estimate can
//   rise: workspaces sending less than an equal share keep what they send, the rest is
//   divided equally among the others. A workspace above its share is held back, one below
//   it is not, and an idle service, or one that serves a single workspace, limits nobody by
//   rate. A request is admitted while the
//   bucket is above zero and its records are taken once counted (the bucket may go below
//   zero), so a batch larger than the burst is still admitted when the workspace has waited.
// - Backlog: once the journal holds more than half of INGEST_JOURNAL_MAX_BYTES not yet in
//   ClickHouse (the writer falls behind), a workspace sending at least an equal share of
//   what the active workspaces send is refused, so the flood slows before the journal is full
//   (503 journal_full, for everyone); the others still go in.
// Every refusal is 429 with Retry-After; nothing of the batch is read or stored.
import type { IngestConfig } from '../config.js';
import type { Metrics } from '../metrics.js';

const ACTIVE_MS = 5_000;
const SAMPLE_MS = 1_000;
/** How long the fair share applies after the last refusal for concurrency. */
const SATURATED_MS = 3_000;
/** Share of the measured capacity a lone workspace may use: above 1, so the estimate can grow. */
const HEADROOM = 1.25;
const SMOOTHING = 0.3;
/** Share of INGEST_JOURNAL_MAX_BYTES the backlog may reach before its largest senders get 429. */
export const BACKLOG_SHARE = 0.5;
const BACKLOG_RETRY_S = 2;

interface WorkspaceState {
  tokens: number;
  refilledAt: number;
  inFlight: number;
  lastSeen: number;
  /** Records admitted since the last recount, and their rate then (records per second). */
  records: number;
  sent: number;
}

export interface RateLimitHeaders {
  /** Records per second the workspace may send now. */
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly reset: number;
}

export type Admitted = {
  readonly admitted: true;
  readonly headers: RateLimitHeaders | null;
  /** Charges the batch's records; the headers as they stand after it. */
  debit(records: number): RateLimitHeaders | null;
  leave(): void;
};
export type Refused = {
  readonly admitted: false;
  readonly reason: 'rate' | 'concurrency' | 'backlog';
  readonly retryAfterS: number;
  readonly headers: RateLimitHeaders | null;
};

export class Admission {
  private readonly workspaces = new Map<string, WorkspaceState>();
  private activeCount = 0;
  private activeCountedAt = -Infinity;
  /** The max-min fair share of the capacity among the active workspaces, as a fraction of it (recounted with them). */
  private fairFraction = 1;
  /** Log requests in flight, and the workspaces they belong to. */
  private inFlight = 0;
  private sendingWorkspaces = 0;
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
      ws = { tokens: Infinity, refilledAt: now, inFlight: 0, lastSeen: now, records: 0, sent: 0 };
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
    if (this.fillsBacklog(ws, now)) {
      this.metrics.refusedRequests.inc({ status: '429', reason: 'journal_backlog' });
      return { admitted: false, reason: 'backlog', retryAfterS: BACKLOG_RETRY_S, headers };
    }
    if (this.overShare(ws)) {
      this.sampleSaturated = true;
      this.saturatedUntil = now + SATURATED_MS;
      this.metrics.refusedRequests.inc({ status: '429', reason: 'workspace_concurrency' });
      return { admitted: false, reason: 'concurrency', retryAfterS: 1, headers };
    }
    if (ws.inFlight++ === 0) this.sendingWorkspaces++;
    this.inFlight++;
    const state = ws;
    let left = false;
    return {
      admitted: true,
      headers,
      debit: (records: number) => {
        state.tokens -= records;
        state.records += records;
        this.sampleRecords += records;
        return this.headersOf(state, rate);
      },
      leave: () => {
        if (left) return;
        left = true;
        this.inFlight--;
        if (--state.inFlight === 0) this.sendingWorkspaces--;
      },
    };
  }

  /**
   * Refused for the backlog: only while the journal holds more than BACKLOG_SHARE of its cap,
   * and only a workspace that sends at least an equal share of what the active ones send.
   */
  private fillsBacklog(ws: WorkspaceState, now: number): boolean {
    const backlog = this.metrics.journalBacklog();
    if (backlog === null || backlog.bytes <= this.config.journalMaxBytes * BACKLOG_SHARE) return false;
    const active = this.active(now);
    let total = 0;
    for (const other of this.workspaces.values()) if (now - other.lastSeen <= ACTIVE_MS || other.inFlight > 0) total += other.sent + other.records;
    const own = ws.sent + ws.records;
    return own > 0 && own >= total / active;
  }

  /**
   * Refused for concurrency: only while the service's log requests in flight are at their
   * limit, and only a workspace holding its fair share of them or more.
   */
  private overShare(ws: WorkspaceState): boolean {
    const limit = this.config.maxConcurrentRequests;
    if (this.inFlight < limit) return false;
    const sharers = this.sendingWorkspaces + (ws.inFlight === 0 ? 1 : 0);
    return ws.inFlight >= Math.max(1, Math.floor(limit / sharers));
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
    return this.capacity * HEADROOM * this.fairFraction;
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
    return this.headersOf(ws, rate);
  }

  private headersOf(ws: WorkspaceState, rate: number | null): RateLimitHeaders | null {
    if (rate === null) return null;
    const burst = rate * this.config.workspaceBurstS;
    return { limit: Math.round(rate), remaining: Math.max(0, Math.floor(ws.tokens)), reset: Math.max(0, Math.ceil((burst - ws.tokens) / rate)) };
  }

  /**
   * Workspaces that sent in the last few seconds (at least 1), and the max-min fair share of
   * the capacity among them; recounted at most once a second.
   */
  private active(now: number): number {
    if (now - this.activeCountedAt >= SAMPLE_MS) {
      const elapsedS = Math.max(SAMPLE_MS, now - this.activeCountedAt) / 1000;
      const sent: number[] = [];
      for (const [id, ws] of this.workspaces) {
        const rate = Number.isFinite(elapsedS) ? ws.records / elapsedS : 0;
        ws.sent = ws.sent === 0 ? rate : ws.sent + SMOOTHING * (rate - ws.sent);
        ws.records = 0;
        if (now - ws.lastSeen <= ACTIVE_MS || ws.inFlight > 0) sent.push(ws.sent);
        else if (now - ws.lastSeen > 60_000) this.workspaces.delete(id);
      }
      this.activeCount = sent.length;
      this.fairFraction = this.capacity === null ? 1 / Math.max(1, sent.length) : fairFraction(sent, this.capacity * HEADROOM);
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

/**
 * Max-min fairness (water-filling): the rate each workspace sending more than it may is held
 * to, as a fraction of `capacity`, given what each active workspace sent. Workspaces that
 * sent less than an equal share of what is left keep it; the rest divide the remainder.
 */
export function fairFraction(sent: readonly number[], capacity: number): number {
  if (sent.length === 0 || capacity <= 0) return 1;
  const ascending = [...sent].sort((a, b) => a - b);
  let left = capacity;
  for (let i = 0; i < ascending.length; i++) {
    const equal = left / (ascending.length - i);
    if (ascending[i]! > equal) return equal / capacity;
    left -= ascending[i]!;
  }
  // Every workspace sent less than an equal share: the largest may still grow into what is left.
  return Math.min(1, (ascending.at(-1)! + left) / capacity);
}
