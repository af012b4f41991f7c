// Leases of received alerts on the real engines (src/alertsources/leases.ts): re-posts of an
// unchanged alert write no row however its endsAt moves (until the durable bound, half an
// hour on); after a restart (the exact ends in memory gone) an alert still re-posted stays
// open and one whose sender stopped resolves about a resolve timeout after the first post the
// restarted process takes (it adopts the source's open alerts), or at the durable bound where
// another process takes posts too; two processes taking posts of one source leave the alert to
// the one that saw it last. The clock is given to the domain
// functions, so nothing here waits for a lease to pass.
import { expect } from 'chai';
import { LEASE_SLACK_MS, ReceivedLeases } from '../../../src/alertsources/leases.js';
import { receiveAlerts, resolveExpiredLeases } from '../../../src/alertsources/receive.js';
import { labelsFingerprint } from '../../../src/labels/labels.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const MINUTE = 60_000;

describe('leases of received alerts', function () {
  this.timeout(120_000);
  let svc: TestService;
  let token: string;
  let sink: FakeHttpServer;
  const workspace = 'am-leases-ws';

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } });
    token = await svc.tokenFor(workspace);
    const dest = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(dest.status, dest.text).to.equal(201);
  });
  after(async () => {
    await svc?.close();
    await sink?.close();
  });

  const newSource = async (name: string): Promise<string> => {
    const res = await svc.request('POST', '/v1.0/alert-sources', { token, body: { name } });
    expect(res.status, res.text).to.equal(201);
    return res.body.alert_source_id;
  };
  const row = async (fingerprint: string) =>
    (
      await svc.stores.postgres.query<{ status: string; version: string; closed_by: string | null; ends_at: Date | null }>(
        'SELECT status, xmin::text AS version, closed_by, ends_at FROM alerts WHERE fingerprint = $1 ORDER BY triggered_at DESC LIMIT 1',
        [fingerprint],
      )
    )[0]!;
  /** Waits for the raise's delivery to set alerted_at (one write, and a lock the worker's SKIP LOCKED would skip). */
  const alerted = (fingerprint: string) =>
    waitFor('alerted_at', async () => {
      const [r] = await svc.stores.postgres.query<{ alerted_at: Date | null }>('SELECT alerted_at FROM alerts WHERE fingerprint = $1', [fingerprint]);
      return r?.alerted_at ?? null;
    });
  /** A Prometheus-shaped post at `now`: endsAt four one-minute re-send intervals ahead. */
  const posted = (labels: Record<string, string>, now: number) => [
    { labels, annotations: { summary: 'disk full' }, startsAt: new Date(0), endsAt: new Date(now + 4 * MINUTE), generatorURL: null },
  ];
  const take = (leases: ReceivedLeases, source: string, labels: Record<string, string>, now: number) =>
    receiveAlerts(svc.stores.postgres, workspace, source, posted(labels, now), new Date(now), leases);

  it('writes no row for re-posts of an unchanged alert while its endsAt moves on, and shows the latest end', async () => {
    const source = await newSource('steady');
    const labels = { alertname: 'DiskFull', instance: 'steady-1' };
    const fp = labelsFingerprint(labels);
    const t0 = Date.now();
    const res = await svc.request('POST', `/alertmanager/${source}/api/v2/alerts`, {
      token,
      body: [{ labels, annotations: { summary: 'disk full' }, startsAt: new Date(0).toISOString(), endsAt: new Date(t0 + 4 * MINUTE).toISOString() }],
    });
    expect(res.status, res.text).to.equal(200);
    await alerted(fp);
    const first = await row(fp);
    // 25 rounds of one-minute re-sends, as Prometheus makes them, through this service's memory.
    let last = t0;
    for (let i = 1; i <= 25; i++) {
      last = t0 + i * MINUTE;
      const result = await take(svc.services.receivedLeases, source, labels, last);
      expect(result, `round ${i}`).to.deep.equal({ raised: 0, updated: 0, resolved: 0, unchanged: 1 });
    }
    expect((await row(fp)).version, 'the row was not rewritten').to.equal(first.version);
    const read = await svc.request('GET', `/alertmanager/${source}/api/v2/alerts`, { token });
    expect(read.status, read.text).to.equal(200);
    expect(read.body[0].endsAt, 'the exact end this process holds').to.equal(new Date(last + 4 * MINUTE).toISOString());
  });

  it('after a restart, keeps an alert that is still re-posted and resolves one whose sender stopped about a resolve timeout after the first post', async () => {
    const source = await newSource('restart');
    const kept = { alertname: 'Kept', instance: 'r-1' };
    const stopped = { alertname: 'Stopped', instance: 'r-2' };
    const t0 = Date.now();
    const before = new ReceivedLeases();
    await take(before, source, kept, t0);
    await take(before, source, stopped, t0);
    // The raise's delivery sets alerted_at (one write); the writes counted below are the re-posts'.
    await alerted(labelsFingerprint(kept));
    // The restart, a few seconds on (a deploy): a process with no memory of either, whose first
    // post (of Kept) adopts Stopped. The mark the process before left seconds ago does not stop it.
    const after = new ReceivedLeases();
    const first = t0 + 3000;
    const versions: string[] = [];
    let resolvedBy = 0;
    for (let t = first; t <= t0 + 90 * MINUTE; t += MINUTE) {
      await take(after, source, kept, t);
      versions.push((await row(labelsFingerprint(kept))).version);
      resolvedBy += await after.resolveDue(svc.stores.postgres, new Date(t + 30_000));
      await resolveExpiredLeases(svc.stores.postgres, new Date(t + 30_000));
    }
    expect((await row(labelsFingerprint(kept))).status, 'still re-posted: open').to.equal('triggered');
    expect(new Set(versions).size, 'the re-posted alert was written only as its durable bound moved').to.be.at.most(3);
    expect(resolvedBy, 'resolved by the restarted process, not the durable bound').to.equal(1);
    const [gone] = await svc.stores.postgres.query<{ status: string; closed_by: string; ends_at: Date; resolved_at: Date }>(
      'SELECT status, closed_by, ends_at, resolved_at FROM alerts WHERE fingerprint = $1',
      [labelsFingerprint(stopped)],
    );
    expect(gone).to.include({ status: 'resolved', closed_by: 'timeout' });
    // The source's resolve timeout (5 min, longer than the 4-minute leases given) after the first post, plus the marks' 10 s; polled each minute.
    expect(gone!.resolved_at.getTime() - first, 'about a resolve timeout after the first post').to.be.within(5 * MINUTE + 10_000, 6 * MINUTE + 10_000);
    expect(gone!.ends_at.getTime(), 'resolved with the last end written').to.equal(t0 + 4 * MINUTE);
    expect(LEASE_SLACK_MS * 1.5 + 4 * MINUTE, 'the test runs past the latest bound').to.be.below(90 * MINUTE);
  });

  it('after a restart, leaves the alerts it adopted to the durable bound when another process takes posts of the source', async () => {
    const source = await newSource('restart, two processes');
    const kept = { alertname: 'Kept', instance: 'rt-1' };
    const stopped = { alertname: 'Stopped', instance: 'rt-2' };
    const t0 = Date.now();
    await take(new ReceivedLeases(), source, stopped, t0);
    const a = new ReceivedLeases();
    const b = new ReceivedLeases();
    await take(a, source, kept, t0 + 5 * MINUTE); // adopts Stopped
    await take(b, source, kept, t0 + 5 * MINUTE + 30_000); // B may hold later ends of the source's alerts
    expect(await a.resolveDue(svc.stores.postgres, new Date(t0 + 12 * MINUTE))).to.equal(0);
    expect((await row(labelsFingerprint(stopped))).status).to.equal('triggered');
    // The worker skips a row the raise's delivery holds locked: wait for it first.
    await alerted(labelsFingerprint(stopped));
    await resolveExpiredLeases(svc.stores.postgres, new Date(t0 + 4 * MINUTE + LEASE_SLACK_MS * 1.5));
    expect(await row(labelsFingerprint(stopped))).to.include({ status: 'resolved', closed_by: 'timeout' });
  });

  it('leaves the exact end to the process that took the last post when two take posts of one source', async () => {
    const source = await newSource('two processes');
    const labels = { alertname: 'Shared', instance: 's-1' };
    const fp = labelsFingerprint(labels);
    const t0 = Date.now();
    const a = new ReceivedLeases();
    const b = new ReceivedLeases();
    await take(a, source, labels, t0);
    await take(b, source, labels, t0 + 30_000);
    // A's own end (t0 + 4 min) passed, but B took a later post: A leaves it.
    expect(await a.resolveDue(svc.stores.postgres, new Date(t0 + 4 * MINUTE + 1000))).to.equal(0);
    expect((await row(fp)).status).to.equal('triggered');
    // B's end passes, and no one took a post of the source after B: resolved at B's end.
    expect(await b.resolveDue(svc.stores.postgres, new Date(t0 + 30_000 + 4 * MINUTE + 1000))).to.equal(1);
    const resolved = await row(fp);
    expect(resolved).to.include({ status: 'resolved', closed_by: 'timeout' });
    expect(resolved.ends_at!.getTime()).to.equal(t0 + 30_000 + 4 * MINUTE);
  });
});
