// A journal frame the writer cannot read back (changed on disk after its append, written by hand
// here) stops nothing but itself: the writer sets it aside under JOURNAL_DIR/damaged, counts it,
// and goes on with the next frames, of every workspace. Before (issue 51) it retried the frame
// for ever ("journal segment N changed on disk"), and no workspace's records reached ClickHouse.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isoMinutesAgo, queryRows } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { testRoot } from '../../helpers/stores.js';

const batch = (event: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ log_id: randomUUID(), event, value: 1, occurred_at: isoMinutesAgo(i % 20) }));

describe('a damaged journal frame in a running service', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('is set aside and counted while ingest goes on for every workspace', async () => {
    const victim = await svc.tokenFor('damaged-a');
    const other = await svc.tokenFor('damaged-b');
    // Straight to the listener: svc.request would wait for the writer, which is held here.
    const post = (token: string, body: unknown) =>
      fetch(`${svc.url}/v1.0/logs`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
    const journalDir = path.join(testRoot, `journal-${svc.storeOptions.clickhouse.database}`);
    const ingestor = svc.services.ingestor!;

    // The writer is held between two inserts while the frame is appended and damaged on disk.
    await ingestor.runExclusive(async () => {
      expect((await post(victim, batch('victim.event', 30))).status).to.equal(200);
      const segment = readdirSync(journalDir)
        .filter((n) => n.endsWith('.seg'))
        .sort()
        .at(-1)!;
      const file = path.join(journalDir, segment);
      const bytes = readFileSync(file);
      const at = bytes.indexOf('victim.event');
      expect(at).to.be.greaterThan(0);
      bytes.write('VICTIM', at);
      writeFileSync(file, bytes);
      expect((await post(victim, batch('after.event', 20))).status).to.equal(200);
      expect((await post(other, batch('other.event', 40))).status).to.equal(200);
    });
    await ingestor.caughtUp();

    const rows = await queryRows<{ workspace_id: string; event: string; n: number }>(
      svc.stores.clickhouse,
      "SELECT workspace_id, event, toUInt32(count()) AS n FROM logs WHERE workspace_id LIKE 'damaged-%' GROUP BY workspace_id, event ORDER BY workspace_id, event",
    );
    expect(rows).to.deep.equal([
      { workspace_id: 'damaged-a', event: 'after.event', n: 20 },
      { workspace_id: 'damaged-b', event: 'other.event', n: 40 },
    ]);
    const [rollup] = await queryRows<{ n: number }>(
      svc.stores.clickhouse,
      "SELECT toUInt32(sum(count)) AS n FROM rollup_minute_v WHERE workspace_id LIKE 'damaged-%'",
    );
    expect(rollup!.n).to.equal(60);
    const metrics = (await svc.request('GET', '/metrics')).text;
    expect(metrics).to.match(/^alertmon_journal_quarantined_frames_total 1$/m);
    expect(metrics).to.match(/^alertmon_journal_quarantined_records_total 30$/m);
    const kept = readdirSync(path.join(journalDir, 'damaged'));
    expect(kept).to.have.length(1);
    expect(readFileSync(path.join(journalDir, 'damaged', kept[0]!)).toString()).to.include('VICTIM');
    // And ingest goes on afterwards.
    expect((await svc.request('POST', '/v1.0/logs', { token: other, body: batch('later.event', 5) })).status).to.equal(200);
    const [later] = await queryRows<{ n: number }>(svc.stores.clickhouse, "SELECT toUInt32(count()) AS n FROM logs WHERE event = 'later.event'");
    expect(later!.n).to.equal(5);
  });
});
