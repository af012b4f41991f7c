// Evaluation driven by data (ROLE=worker and ROLE=all): when an insert into ClickHouse
// completes, the enabled policies of the events it touched are evaluated at once, with the
// same planner, rules and writes as the periodic cycle (evaluator.ts), so the verdicts are
// the same; only their moment changes. Signals are coalesced: an event is evaluated at most
// once per MIN_GAP_MS (what arrives meanwhile waits for the next run, which then takes it
// whole), and one run takes at most MAX_EVENTS_PER_RUN events. An open bucket still in its
// grace time is evaluated again when the grace ends. The cycle stays as the safety net, and
// for what no record announces (buckets that close, no_data, reminders, pending runs).
import type { BackgroundTask } from '../backgroundTask.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { PolicyEvaluator } from './evaluator.js';
import type { InsertSignal } from './insertSignal.js';

/** An event is evaluated at most this often: a flood of inserts costs five evaluations a second per event. */
export const MIN_GAP_MS = 200;
/** Events per run: bounds the work (and the Postgres transaction) one signal causes. */
export const MAX_EVENTS_PER_RUN = 2_000;

export interface DataDrivenEvaluationDeps {
  readonly evaluator: PolicyEvaluator;
  readonly signal: InsertSignal;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export function dataDrivenEvaluation({ evaluator, signal, logger, metrics }: DataDrivenEvaluationDeps): BackgroundTask {
  /** Event → the earliest moment (ms) it may be evaluated. */
  const pending = new Map<string, number>();
  /** Event → when its last run started (ms), kept for MIN_GAP_MS. */
  const lastRun = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;
  let running: Promise<void> | null = null;
  let stopped = false;
  let unsubscribe: (() => Promise<void>) | null = null;

  const want = (id: string, at: number) => {
    const earliest = Math.max(at, (lastRun.get(id) ?? -Infinity) + MIN_GAP_MS);
    pending.set(id, Math.min(pending.get(id) ?? Infinity, earliest));
  };

  function announce(ids: readonly string[]): void {
    const now = Date.now();
    for (const id of ids) want(id, now);
    kick();
  }

  function kick(): void {
    if (stopped || running || pending.size === 0) return;
    const now = Date.now();
    let next = Infinity;
    for (const at of pending.values()) next = Math.min(next, at);
    if (next <= now) {
      if (timer) clearTimeout(timer);
      timer = null;
      timerAt = Infinity;
      running = run(now).finally(() => {
        running = null;
        kick();
      });
    } else if (next < timerAt) {
      if (timer) clearTimeout(timer);
      timerAt = next;
      timer = setTimeout(() => {
        timer = null;
        timerAt = Infinity;
        kick();
      }, next - now);
    }
  }

  async function run(now: number): Promise<void> {
    const ids: string[] = [];
    for (const [id, at] of pending) {
      if (at > now) continue;
      ids.push(id);
      if (ids.length === MAX_EVENTS_PER_RUN) break;
    }
    for (const id of ids) {
      pending.delete(id);
      lastRun.set(id, now);
    }
    for (const [id, at] of lastRun) if (at + MIN_GAP_MS <= now) lastRun.delete(id);
    const started = performance.now();
    try {
      const report = await evaluator.evaluateEvents(ids);
      metrics.evaluationSignalRuns.inc();
      metrics.evaluationSignalPolicies.inc(report.policies);
      metrics.evaluations.inc(report.evaluations);
      metrics.policyGroupsTruncated.inc(report.groupsTruncated);
      metrics.evaluationSignalSeconds.observe((performance.now() - started) / 1000);
      for (const [id, at] of report.recheckAt) want(id, at);
      if (report.raised + report.resolved > 0)
        logger.info('evaluation on inserted records', { events: ids.length, raised: report.raised, resolved: report.resolved });
    } catch (err) {
      // Nothing was recorded for these policies; the next signal or the cycle redoes it.
      logger.error('evaluation on inserted records failed', { err, events: ids.length });
    }
  }

  return {
    name: 'data-driven-evaluation',
    start() {
      unsubscribe = signal.subscribe(announce);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await unsubscribe?.();
      await running;
    },
  };
}
