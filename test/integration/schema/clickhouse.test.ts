import { expect } from 'chai';
import { DAY_ROW_COLUMNS, DAY_ROWS_FROM_MINUTES } from '../../../src/rollups/dayRebuild.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { queryRows } from '../../helpers/logs.js';
import { freshStoreOptions } from '../../helpers/stores.js';

// A materialized view writes into its target by position: a column order that drifts from
// the table's would corrupt the rollups silently.
describe('ClickHouse schema', () => {
  let stores: Stores;
  before(async () => {
    stores = await openStores(await freshStoreOptions());
  });
  after(() => stores.close());

  it("has every materialized view's columns match its target table by name and order", async () => {
    const views = await queryRows<{ name: string; as_select: string; target: string }>(
      stores.clickhouse,
      `SELECT name, as_select, arrayElement(splitByChar('.', extract(create_table_query, 'TO ([\\\\w.]+)')), -1) AS target
       FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name`,
    );
    expect(views.map((v) => v.name)).to.deep.equal([
      'rollups_day_mv',
      'rollups_day_summary_mv',
      'rollups_hour_mv',
      'rollups_hour_summary_mv',
      'rollups_minute_mv',
      'rollups_minute_summary_mv',
      'series_day_mv',
      'series_day_summary_mv',
      'series_hour_mv',
      'series_hour_summary_mv',
      'series_minute_mv',
      'series_minute_summary_mv',
    ]);
    for (const view of views) {
      const selected = await queryRows<{ name: string }>(stores.clickhouse, `DESCRIBE TABLE (${view.as_select})`);
      const target = await queryRows<{ name: string }>(
        stores.clickhouse,
        'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY position',
        { t: view.target },
      );
      expect(
        selected.map((c) => c.name),
        view.name,
      ).to.deep.equal(target.map((c) => c.name));
    }
  });

  // Rebuilt day rows (a timezone change) are inserted by name: every column of the rollup
  // table, each filled by the SELECT column of the same name, in the same place.
  it('has the day re-bucketing insert name every rollup column, as its SELECT does', async () => {
    const table = await queryRows<{ name: string }>(
      stores.clickhouse,
      "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'rollups' ORDER BY position",
    );
    expect([...DAY_ROW_COLUMNS]).to.deep.equal(table.map((c) => c.name));
    const params = { ws: 'w', event: '00000000-0000-0000-0000-000000000000', tz: 'Europe/Berlin', since: 0 };
    const selected = await queryRows<{ name: string }>(stores.clickhouse, `DESCRIBE TABLE (${DAY_ROWS_FROM_MINUTES})`, params);
    expect(selected.map((c) => c.name)).to.deep.equal([...DAY_ROW_COLUMNS]);
  });

  it('offers an analyst view per rollup', async () => {
    for (const period of ['minute', 'hour', 'day']) {
      const columns = await queryRows<{ name: string }>(stores.clickhouse, `DESCRIBE TABLE rollup_${period}_v`);
      expect(columns.map((c) => c.name)).to.include.members([
        'workspace_id',
        'event_id',
        'bucket',
        'count',
        'value',
        'squares',
        'min',
        'max',
        'mean',
        'stddev',
        'p95',
        'p99',
      ]);
    }
  });

  it('offers an analyst view of the series per period', async () => {
    for (const period of ['minute', 'hour', 'day']) {
      const columns = await queryRows<{ name: string; type: string }>(stores.clickhouse, `DESCRIBE TABLE series_${period}`);
      expect(columns.map((c) => c.name)).to.include.members([
        'workspace_id',
        'event',
        'agent',
        'labels',
        'bucket',
        'count',
        'value',
        'squares',
        'min',
        'max',
        'mean',
        'stddev',
        'p95',
        'p99',
      ]);
      expect(columns.find((c) => c.name === 'labels')?.type).to.match(/^Map\((LowCardinality\()?String\)?, String\)$/);
    }
  });
});
