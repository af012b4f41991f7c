// npm run sql -- "SELECT …" [--json]
// Runs an analyst's read-only query on ClickHouse: through the admin API when the service
// runs (the embedded engine lives in its process), else on the stores directly.
import { parseArgs } from 'node:util';
import { runAnalystQuery } from '../src/analytics/analystSql.js';
import { AppError } from '../src/errors.js';
import { configOrExit, fail, postToAdminApi, withStores } from './lib/adminOrStores.js';

type Row = Record<string, unknown>;

const usage = 'usage: npm run sql -- "SELECT …" [--json]';
let parsed: ReturnType<typeof parseArgs<{ options: { json: { type: 'boolean'; default: false } }; allowPositionals: true }>>;
try {
  parsed = parseArgs({ options: { json: { type: 'boolean', default: false } }, allowPositionals: true });
} catch (err) {
  fail(`${(err as Error).message}\n${usage}`);
}
const query = parsed.positionals.join(' ').trim();
if (query === '') fail(usage);

const config = configOrExit();
const rows =
  (await postToAdminApi<Row[]>(config, '/sql', { query })) ??
  (await withStores(config, async (stores) => {
    try {
      return await runAnalystQuery(stores.clickhouse, query);
    } catch (err) {
      if (err instanceof AppError) fail(err.message);
      throw err;
    }
  }));
process.stdout.write(parsed.values.json ? rows.map((r) => JSON.stringify(r)).join('\n') + '\n' : table(rows));

/** Rows as an aligned text table, like a SQL console. */
function table(data: Row[]): string {
  if (data.length === 0) return '(no rows)\n';
  const columns = Object.keys(data[0]!);
  const cell = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  const widths = columns.map((c) => Math.max(c.length, ...data.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return (
    [line(columns), line(widths.map((w) => '-'.repeat(w))), ...data.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n') + `\n(${data.length} rows)\n`
  );
}
