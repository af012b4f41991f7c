// Ingest below HTTP, for tests that write records at chosen instants (the API accepts only
// the last 30 days): an ingestor built the one way the service builds it (openIngestor),
// with a journal of its own, its own cache of event timezones and its own series labeller,
// as another process has.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { SeriesLabeller } from '../../src/dimensions/seriesLabeller.js';
import { EventDirectory } from '../../src/events/eventDirectory.js';
import { prepareBatch, type NewLogRecord } from '../../src/ingest/journaledBatch.js';
import type { Ingestor, InsertListener } from '../../src/ingest/ingestor.js';
import type { LogIngestor } from '../../src/ingest/logIngestor.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { openIngestor } from '../../src/services.js';
import type { Stores } from '../../src/stores/index.js';
import { testRoot } from './stores.js';

export interface TestIngestorOptions {
  /** Extra INGEST_* settings. */
  readonly env?: Record<string, string>;
  /** A journal folder to reopen (restart tests); by default a new one. */
  readonly journalDir?: string;
  readonly metrics?: Metrics;
  /** Told the event ids of each block inserted, from the first block replayed at open. */
  readonly onInserted?: InsertListener;
}

export async function openTestIngestor(stores: Stores, options: TestIngestorOptions = {}): Promise<{ ingestor: LogIngestor; journalDir: string }> {
  const journalDir = options.journalDir ?? mkdtempSync(path.join(testRoot, 'journal-'));
  const config = loadConfig({ ...options.env, JOURNAL_DIR: journalDir });
  const directory = new EventDirectory(stores.postgres, config.events.maxDefinitionsPerWorkspace);
  const metrics = options.metrics ?? createMetrics();
  const logger = createLogger('silent');
  const series = new SeriesLabeller(stores.postgres, config.dimensions.maxSeries, metrics, logger);
  const ingestor = await openIngestor(config, stores, directory, metrics, logger, series, options.onInserted ?? null);
  return { ingestor, journalDir };
}

/** A record as a client sends it to the ingest path: a log_id of its own, no meta, a minute old. */
export const newRecord = (event: string, value: number, agent = 'host'): NewLogRecord => ({
  logId: randomUUID(),
  clientLogId: true,
  agent,
  event,
  value,
  occurredAt: Date.now() - 60_000,
  meta: '',
});

/** Ingests the records in requests of 5,000 and waits until they are in ClickHouse. */
export async function ingestVisible(ingestor: LogIngestor, workspaceId: string, records: readonly NewLogRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += 5000) await ingestor.ingest(prepareBatch(workspaceId, Date.now(), records.slice(i, i + 5000)));
  await ingestor.caughtUp();
}

/**
 * Holds the journal writer between two inserts (runExclusive), so records journaled meanwhile
 * wait unstored and together: resolves once the writer is held, with a function that lets it
 * go on and resolves when it has (calling it again does nothing more).
 */
export async function holdJournalWriter(ingestor: Pick<Ingestor, 'runExclusive'>): Promise<() => Promise<void>> {
  let release!: () => void;
  let held!: Promise<void>;
  await new Promise<void>((isHeld) => {
    held = ingestor.runExclusive(() => {
      isHeld();
      return new Promise<void>((resolve) => (release = resolve));
    });
  });
  return async () => {
    release();
    await held;
  };
}
