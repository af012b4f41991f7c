// A batch's (agent, event) pairs resolved to event definitions before it is journaled, created
// when new; a batch refused afterwards withdraws the definitions it created. Shared by both
// journals (logIngestor.ts, stream/streamIngestor.ts).
import { invalid, type ErrorDetail } from '../errors.js';
import type { EventDirectory, ResolvedPair } from '../events/eventDirectory.js';
import { DefinitionLimitError } from '../events/model.js';
import type { Metrics } from '../metrics.js';
import type { LogPair, PreparedBatch } from './journaledBatch.js';

export interface ResolvedPairs {
  readonly resolved: Map<LogPair, ResolvedPair>;
  /** Each pair's event id, in the batch's order of pairs. */
  readonly eventIds: string[];
}

/** The event definition of each (agent, event) pair of the batch, created when new; and each pair's event id. */
export async function resolvePairs(directory: EventDirectory, metrics: Metrics, batch: PreparedBatch): Promise<ResolvedPairs> {
  const { pairs } = batch;
  const answers = await directory.resolveAll(batch.workspaceId, pairs);
  const resolved = new Map<LogPair, ResolvedPair>();
  answers.forEach((answer, i) => {
    if (!(answer instanceof Error)) resolved.set(pairs[i]!, answer);
  });
  if (resolved.size === pairs.length) return { resolved, eventIds: answers.map((answer) => (answer as ResolvedPair).eventId) };

  await withdrawCreated(directory, batch, resolved);
  const failures = pairs.flatMap((pair, i) => (answers[i] instanceof Error ? [{ pair, reason: answers[i] as Error }] : []));
  const overLimit = failures.filter((f) => f.reason instanceof DefinitionLimitError);
  if (overLimit.length !== failures.length) throw failures.find((f) => !(f.reason instanceof DefinitionLimitError))!.reason;
  const limit = (overLimit[0]!.reason as DefinitionLimitError).limit;
  metrics.rejectedRecords.inc({ reason: 'definition_limit' }, batch.records);
  const details: ErrorDetail[] = overLimit.map((f) => ({
    path: `/${f.pair.index}/event`,
    message: `would create a new event definition beyond the workspace's limit of ${limit}`,
  }));
  throw invalid(
    'event_definition_limit',
    `The workspace has reached its limit of ${limit} event definitions; nothing of the batch was stored. Logs of existing (agent, event) pairs are still accepted.`,
    details,
  );
}

/** Withdraws the definitions this batch created (see EventDirectory.withdraw). */
export async function withdrawCreated(directory: EventDirectory, batch: PreparedBatch, resolved: ReadonlyMap<LogPair, ResolvedPair>): Promise<void> {
  const created = [...resolved].filter(([, r]) => r.created);
  await Promise.all(created.map(([pair, r]) => directory.withdraw(batch.workspaceId, pair.agent, pair.event, r.eventId)));
}
