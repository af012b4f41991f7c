// Evaluation driven by records across processes on a Postgres server: a ROLE=ingest service
// announces its inserts through NOTIFY, and a ROLE=worker service, which LISTENs, evaluates
// them at once (its cycle is set to a day). The two share the stores as two processes would
// (ClickHouse is embedded in this process, so they are two services here, each with its own
// Postgres connections: the signal travels through the server). Server stores only: embedded
// stores belong to one process, which signals itself directly.
import { expect } from 'chai';
import path from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { startService, type Service } from '../../../src/service.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { testRoot } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createEvent, createPolicy } from './helpers.js';

describe('evaluation driven by records, across processes (LISTEN/NOTIFY)', function () {
  this.timeout(120_000);
  let api: TestService;
  const services: Service[] = [];
  let token: string;

  const start = (role: string) =>
    startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        ROLE: role,
        EVAL_INTERVAL_MS: '86400000',
        JOURNAL_DIR: path.join(testRoot, `journal-${api.storeOptions.clickhouse.database}-${role}`),
      }),
      createLogger('silent'),
      { stores: api.stores },
    );

  before(async function () {
    api = await startTestService({ env: { ROLE: 'api' } });
    if (api.stores.postgres.mode !== 'server') {
      await api.close();
      this.skip();
    }
    token = await api.tokenFor('signal-processes-ws');
  });
  after(async () => {
    for (const s of services.reverse()) await s.close();
    await api?.close();
  });

  it('a record ingested by one process raises its alert in the worker process without a cycle', async () => {
    const worker = await start('worker');
    services.push(worker);
    const ingest = await start('ingest');
    services.push(ingest);
    const eventId = await createEvent(api, token, 'remote.depth_items', 'UTC', 'remote');
    const policyId = await createPolicy(api, token, { event_id: eventId, aggregate: 'max', condition: 'gt', threshold: 100 });
    const sent = await api.requestTo(ingest.url, 'POST', '/v1.0/logs', { token, body: [{ agent: 'remote', event: 'remote.depth_items', value: 500 }] });
    expect(sent.status, sent.text).to.equal(200);
    const alert = await waitFor(
      'the alert',
      async () => (await api.request<{ policy_id: string; value: number }[]>('GET', '/v1.0/alerts', { token })).body.find((a) => a.policy_id === policyId),
      30_000,
    );
    expect(alert).to.include({ value: 500 });
    // The run is counted when it returns, after its alert is committed (the fleet policies of
    // the same events come in between), so an alert can be read before its run is counted.
    const runs = async () =>
      Number(/ (\d+)$/m.exec(await worker.services.metrics.registry.getSingleMetricAsString('alertmon_evaluation_signal_runs_total'))?.[1]);
    await waitFor('the worker to count its run on inserted records', async () => ((await runs()) >= 1 ? true : null), 10_000);
    expect(await ingest.services.metrics.registry.getSingleMetricAsString('alertmon_evaluation_signal_runs_total')).to.match(/ 0$/m);
  });
});
