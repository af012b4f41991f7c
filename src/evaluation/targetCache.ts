// The enabled policies the evaluation cycle reads, kept between cycles. Reading 100,000
// targets whole costs a cycle more than half a second; most are as the cycle before left
// them. So a cycle reads every enabled policy's row version and its event's (xmin, which
// every write changes), reads again whole only the rows whose version moved (an edit, a
// new policy, an event's timezone, progress written by another worker or a manual
// evaluation), and which policies have an open alert. The progress this evaluator writes
// and commits is entered with the version it left, so a cycle's own writes are not read back.
import type { Queryable } from '../stores/postgres.js';
import type { WrittenProgress } from './applyOutcomes.js';
import { loadEnabledTargets, loadEnabledTargetsById, loadEnabledTargetVersions, policiesWithOpenAlerts, type EvaluationTarget } from './targets.js';

export class TargetCache {
  private readonly byId = new Map<string, EvaluationTarget>();

  /** Every enabled policy, as loadEnabledTargets would read it now. */
  async enabledTargets(db: Queryable): Promise<EvaluationTarget[]> {
    if (this.byId.size === 0) {
      // Nothing kept (the first cycle, or no policy enabled the last time): one read whole.
      const all = await loadEnabledTargets(db);
      for (const target of all) this.byId.set(target.policy_id, target);
      return all;
    }
    const versions = await loadEnabledTargetVersions(db);
    const stale: string[] = [];
    for (const v of versions) {
      const cached = this.byId.get(v.policy_id);
      if (cached?.snapshot.rowVersion === v.row_version && cached.snapshot.eventVersion === v.event_version) continue;
      stale.push(v.policy_id);
      this.byId.delete(v.policy_id);
    }
    // A row changed again since its version was read is read at its newer version; one disabled meanwhile is not read.
    for (const target of await loadEnabledTargetsById(db, stale)) this.byId.set(target.policy_id, target);
    // Read after the versions: an alert opened since then was written with its policy's
    // progress, which moved that row's version, so no write is made from a stale "no open alert".
    const open = await policiesWithOpenAlerts(db);
    const targets: EvaluationTarget[] = [];
    for (const { policy_id } of versions) {
      let target = this.byId.get(policy_id);
      if (!target) continue;
      const hasOpenAlert = open.has(policy_id);
      if (target.snapshot.hasOpenAlert !== hasOpenAlert) {
        target = { ...target, snapshot: { ...target.snapshot, hasOpenAlert } };
        this.byId.set(policy_id, target);
      }
      targets.push(target);
    }
    // Policies disabled or deleted since the cycle before.
    if (this.byId.size > targets.length) {
      const enabled = new Set(targets.map((t) => t.policy_id));
      for (const id of this.byId.keys()) if (!enabled.has(id)) this.byId.delete(id);
    }
    return targets;
  }

  /**
   * Progress written and committed: a policy kept at the version that write was made from
   * (the same row as its target) becomes the row the write left. Its rule is unchanged: the
   * write was made only if the row was still the version read, or, under lock, still had the
   * rule read (updated_at), and it sets every column of the progress.
   */
  noteWritten(progress: readonly WrittenProgress[]): void {
    for (const { target, evaluatedUntil, state, rowVersion } of progress) {
      const cached = this.byId.get(target.policy_id);
      if (cached?.snapshot.rowVersion !== target.snapshot.rowVersion) continue;
      this.byId.set(target.policy_id, { ...cached, evaluated_until: new Date(evaluatedUntil), snapshot: { ...cached.snapshot, rowVersion, state } });
    }
  }
}
