// The series of records replayed from the journal at start (issue 52): a record journaled
// before a kill -9 and inserted by the next process belongs to its declared series as if it
// had been inserted before the kill. The journal writer starts replaying as the ingestor
// opens; the series labeller must be its own from then on, or the first blocks land in `logs`
// and the event rollups without labels and the series rollups never see them (the crash test,
// with CRASH_TEST_SEED=131323, showed one block of 1,500 missing so). Each restart here is one
// more chance for that: the records of every round wait in the journal when the kill comes.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { request } from '../../helpers/http.js';
import { isoMinutesAgo, type SentLog } from '../../helpers/logs.js';
import { startServiceProcess, type ServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'series-replay-admin-token-0123456789';
const WORKSPACE = 'series-replay-ws';
const ROUNDS = 2;
const BATCHES_PER_ROUND = 4;
const PER_BATCH = 250;

describe(`series rollups of records replayed after kill -9 (Postgres ${postgresMode})`, function () {
  this.timeout(300_000);

  it('labels the records the journal replays at start: the series rollups sum to the event rollups', async () => {
    // One insert every 10 s at most: a round's batches after its first wait in the journal, acknowledged, when the kill comes.
    const env = { ...(await freshProcessEnv()), ADMIN_TOKEN, INGEST_FLUSH_INTERVAL_MS: '10000', INGEST_INSERT_BLOCK_RECORDS: '1000000' };
    const batches: SentLog[][] = Array.from({ length: ROUNDS * BATCHES_PER_ROUND }, (_, b) =>
      Array.from({ length: PER_BATCH }, (_, i) => ({
        log_id: randomUUID(),
        event: `e${(b + i) % 3}`,
        value: (i % 7) + 1,
        occurred_at: isoMinutesAgo((b * 11 + i) % 180),
        meta: { shard: `s${i % 4}` },
      })),
    );
    const expected = { count: batches.length * PER_BATCH, value: batches.flat().reduce((s, r) => s + r.value, 0) };

    let service: ServiceProcess = await startServiceProcess({ env });
    try {
      const token = (await request(service.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: WORKSPACE } })).body.token as string;
      for (let e = 0; e < 3; e++)
        expect((await request(service.url, 'PUT', `/v1.0/dimensions/e${e}`, { token, body: { keys: ['shard'] } })).status).to.equal(200);
      for (let round = 0; round < ROUNDS; round++) {
        for (const body of batches.slice(round * BATCHES_PER_ROUND, (round + 1) * BATCHES_PER_ROUND)) {
          const res = await request(service.url, 'POST', '/v1.0/logs', { token, body });
          expect(res.status, res.text).to.equal(200);
        }
        await service.kill();
        service = await startServiceProcess({ env });
      }

      // Visible once the journal has drained; the backlog metric says how far behind it is.
      await waitFor(
        'the journal replay',
        async () => (/^alertmon_journal_backlog_records 0$/m.test((await request(service.url, 'GET', '/metrics')).text) ? true : null),
        60_000,
      );
      const sql = async (query: string) => {
        const res = await request(service.url, 'POST', '/v1.0/admin/sql', { token: ADMIN_TOKEN, body: { query } });
        expect(res.status, res.text).to.equal(200);
        return Object.fromEntries(Object.entries(res.body[0] as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));
      };
      const where = `WHERE workspace_id = '${WORKSPACE}'`;
      const figures = (view: string) => sql(`SELECT sum(count) AS count, sum(value) AS value FROM ${view} ${where}`);
      expect({
        logs: await sql(`SELECT count() AS count, sum(value) AS value FROM logs ${where}`),
        labelled: await sql(`SELECT count() AS count, sum(value) AS value FROM logs ${where} AND notEmpty(labels)`),
        minute: await figures('rollup_minute_v'),
        series_minute: await figures('series_minute'),
        series_hour: await figures('series_hour'),
        series_day: await figures('series_day'),
      }).to.deep.equal({ logs: expected, labelled: expected, minute: expected, series_minute: expected, series_hour: expected, series_day: expected });
    } finally {
      await service.stop();
    }
  });
});
