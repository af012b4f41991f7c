// The ceiling to compare the service with: the same rows written straight into a fresh
// embedded ClickHouse (same schema, materialized views included) in large bulk inserts,
// in the line format of the journal writer (src/ingest/journaledBatch.ts, insertRows.ts). Only the inserts are timed.
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import { insertBody, LOG_COLUMNS, logsInsertSettings } from '../../../src/ingest/insertRows.js';
import { payloadOfRecords, type NewLogRecord } from '../../../src/ingest/journaledBatch.js';
import { openClickHouse, type ClickHouseStore } from '../../../src/stores/clickhouse.js';
import { migrateClickHouse } from '../../../src/stores/migrations.js';
import type { LogRecordBody, RequestBatch } from './dataset.js';
import { ownCpuSeconds } from './processStats.js';

export interface DirectInsertResult {
  readonly rows: number;
  readonly inserts: number;
  readonly insertSeconds: number;
  /** CPU time of the inserts (ClickHouse runs in this process). */
  readonly insertCpuSeconds: number;
  /** count() of the logs table afterwards. */
  readonly storedRows: number;
}

const WORKSPACE_ID = 'bench';

export async function measureDirectInsert(batches: readonly RequestBatch[], rowsPerInsert: number, dir: string): Promise<DirectInsertResult> {
  const clickhouse = await openClickHouse({ mode: 'embedded', path: path.join(dir, 'clickhouse'), database: 'alertmon' });
  try {
    await migrateClickHouse(clickhouse);
    let rows = 0;
    let inserts = 0;
    let insertMs = 0;
    let insertCpuSeconds = 0;
    for (const chunk of insertChunks(batches, rowsPerInsert)) {
      const cpuBefore = process.cpuUsage();
      insertMs += await timedInsert(clickhouse, chunk.body);
      insertCpuSeconds += ownCpuSeconds(cpuBefore);
      rows += chunk.rows;
      inserts++;
    }
    const result = await clickhouse.client.query({ query: 'SELECT count() AS n FROM logs', format: 'JSONEachRow' });
    const [stored] = await result.json<{ n: number | string }>();
    return { rows, inserts, insertSeconds: insertMs / 1000, insertCpuSeconds, storedRows: Number(stored?.n ?? NaN) };
  } finally {
    await clickhouse.close();
  }
}

async function timedInsert(clickhouse: ClickHouseStore, body: Buffer): Promise<number> {
  const started = performance.now();
  // The journal writer's insert, deduplication token included.
  await clickhouse.insertBytes({ table: 'logs', columns: LOG_COLUMNS, format: 'JSONCompactEachRow', settings: logsInsertSettings(randomUUID()), body });
  return performance.now() - started;
}

/**
 * The rows of the request bodies, `size` at a time, as the journal writer's insert bodies
 * (journaled, then turned into rows; every event in UTC).
 */
function* insertChunks(batches: readonly RequestBatch[], size: number): Generator<{ rows: number; body: Buffer }> {
  const receivedAt = Date.now();
  let rows: NewLogRecord[] = [];
  const chunk = () => ({
    rows: rows.length,
    body: insertBody([payloadOfRecords(WORKSPACE_ID, receivedAt, receivedAt, rows, (pair) => eventIdFor(pair.agent, pair.event))], () => 'UTC'),
  });
  for (const batch of batches) {
    for (const body of JSON.parse(batch.body.toString()) as LogRecordBody[]) {
      rows.push(toNewLogRecord(body));
      if (rows.length === size) {
        yield chunk();
        rows = [];
      }
    }
  }
  if (rows.length > 0) yield chunk();
}

function toNewLogRecord(record: LogRecordBody): NewLogRecord {
  return {
    logId: record.log_id,
    clientLogId: true,
    agent: record.agent,
    event: record.event,
    value: record.value,
    occurredAt: Date.parse(record.occurred_at),
    meta: JSON.stringify(record.meta),
  };
}

const eventIds = new Map<string, string>();

/** A stable UUID per (agent, event), standing in for the definition ids the service keeps in Postgres. */
function eventIdFor(agent: string, event: string): string {
  const key = `${agent}\u0000${event}`;
  let id = eventIds.get(key);
  if (id === undefined) {
    const h = createHash('sha256').update(key).digest('hex');
    id = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
    eventIds.set(key, id);
  }
  return id;
}
