// npm run bench:dedup -- [--inserts 100] [--rows 4000]
// What insert deduplication costs per insert (issue 7): the service's INSERT into logs (with
// its three materialized views) timed with and without it, in two fresh databases of one
// embedded ClickHouse, alternating so that both see the same machine load. "with": the
// tables keep recent block ids (migration 0004) and each insert carries a token;
// "without": the same schema with non_replicated_deduplication_window = 0 and no token.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { insertBody, LOG_COLUMNS, logsInsertSettings } from '../../src/ingest/insertRows.js';
import { payloadOfRecords, type NewLogRecord } from '../../src/ingest/journaledBatch.js';
import { openClickHouse, type ClickHouseStore } from '../../src/stores/clickhouse.js';
import { migrateClickHouse } from '../../src/stores/migrations.js';
import { temporaryDir } from './lib/cleanup.js';
import { runBench } from './lib/runner.js';

const { values } = parseArgs({ options: { inserts: { type: 'string', default: '100' }, rows: { type: 'string', default: '4000' } } });
const inserts = Number(values.inserts);
const rowsPerInsert = Number(values.rows);

/** 50 events, as in a workspace with a few agents. */
const EVENT_IDS = Array.from({ length: 50 }, () => randomUUID());

/** An insert body of `count` rows, made as the journal writer makes them (events in UTC). */
function body(count: number): Buffer {
  const now = Date.now();
  const records: NewLogRecord[] = [];
  for (let i = 0; i < count; i++) {
    const occurredAt = now - Math.floor(Math.random() * 3_600_000);
    records.push({ logId: randomUUID(), clientLogId: true, agent: 'a', event: `e${i % 50}`, value: Math.random() * 100, occurredAt, meta: '' });
  }
  return insertBody([payloadOfRecords('bench', now, now, records, (pair) => EVENT_IDS[Number(pair.event.slice(1))]!)], () => 'UTC');
}

/** The journal writer's insert, with its deduplication settings or none. */
async function timed(store: ClickHouseStore, deduplicated: boolean, rows: Buffer): Promise<number> {
  const settings = deduplicated ? logsInsertSettings(randomUUID()) : {};
  const started = performance.now();
  await store.insertBytes({ table: 'logs', columns: LOG_COLUMNS, format: 'JSONCompactEachRow', settings, body: rows });
  return performance.now() - started;
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, mean: ms.reduce((s, x) => s + x, 0) / ms.length, p90: sorted[Math.floor(sorted.length * 0.9)]! };
};

await runBench('dedup', async () => {
  const dir = path.join(temporaryDir('alertmon-bench-dedup-'), 'clickhouse');
  const withDedup = await openClickHouse({ mode: 'embedded', path: dir, database: 'with_dedup' });
  const without = await openClickHouse({ mode: 'embedded', path: dir, database: 'without_dedup' });
  await migrateClickHouse(withDedup);
  await migrateClickHouse(without);
  for (const table of ['logs', 'rollups']) {
    await without.client.command({ query: `ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 0` });
  }
  const times = { with: [] as number[], without: [] as number[] };
  // A warm-up insert each, not counted.
  await timed(withDedup, true, body(rowsPerInsert));
  await timed(without, false, body(rowsPerInsert));
  for (let i = 0; i < inserts; i++) {
    const rows = body(rowsPerInsert);
    const order = i % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const);
    for (const which of order) {
      times[which].push(which === 'with' ? await timed(withDedup, true, rows) : await timed(without, false, rows));
    }
  }
  const a = stats(times.with);
  const b = stats(times.without);
  const f = (x: number) => x.toFixed(1);
  process.stdout.write(
    `${inserts} inserts of ${rowsPerInsert} rows into logs + 3 rollup views, each way, alternating (embedded chDB)\n` +
      `                       median   mean    p90  (ms per insert)\n` +
      `with deduplication    ${f(a.median).padStart(7)} ${f(a.mean).padStart(6)} ${f(a.p90).padStart(6)}\n` +
      `without               ${f(b.median).padStart(7)} ${f(b.mean).padStart(6)} ${f(b.p90).padStart(6)}\n` +
      `difference (median)   ${f(a.median - b.median).padStart(7)} ms (${f(((a.median - b.median) / b.median) * 100)}%)\n`,
  );
  await withDedup.close();
  await without.close();
});
