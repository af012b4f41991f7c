// The journal on a full disk: JOURNAL_DIR on a small file system of its own (a tmpfs this
// test mounts; skipped where it cannot), with segments larger than the whole disk, as the
// probe ran it. Batches past the disk's room get 503 storage_unavailable with Retry-After,
// the process stays up, and once the writer has drained the journal gives the space back
// by itself; every acknowledged record is stored exactly once.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { testRoot, describeInEmbeddedRunOnly } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const DISK_MB = 4;

/** Mounts a tmpfs of `mb` MiB at a new folder; null (with the reason) where this process may not. */
function mountSmallDisk(mb: number): { dir: string } | { reason: string } {
  const dir = path.join(testRoot, `small-disk-${randomUUID()}`);
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (err) {
    return { reason: String((err as { stderr?: Buffer }).stderr ?? err).trim() };
  }
}

// Records with a large meta, so that a few hundred batches fill the disk.
const records = (n: number) => Array.from({ length: n }, (_, i) => ({ log_id: randomUUID(), event: 'disk.fill', value: i, meta: { pad: 'x'.repeat(900) } }));

describeInEmbeddedRunOnly('ingest journal on a full disk', function () {
  this.timeout(180_000);
  let disk: { dir: string } | null = null;
  let svc: TestService | null = null;

  before(function () {
    const mounted = mountSmallDisk(DISK_MB);
    if ('reason' in mounted) {
      console.log(`      skipped: cannot mount a ${DISK_MB} MiB tmpfs for JOURNAL_DIR (needs root): ${mounted.reason}`);
      this.skip();
    }
    disk = mounted;
  });

  after(async () => {
    await svc?.close();
    if (disk) execFileSync('umount', ['-l', disk.dir]);
  });

  it('answers 503 storage_unavailable, stays up, gives the space back once drained and loses nothing acknowledged', async () => {
    svc = await startTestService({
      env: { JOURNAL_DIR: path.join(disk!.dir, 'journal'), INGEST_JOURNAL_SEGMENT_BYTES: String(64 * 1024 ** 2), INGEST_FLUSH_INTERVAL_MS: '50' },
    });
    const token = await svc.tokenFor('full-disk-ws');
    let acknowledged = 0;
    let refused: { status: number; code: string; retryAfter: string | undefined } | null = null;
    // ~250 KB per batch: the 4 MiB disk is full after a few dozen.
    for (let i = 0; i < 200 && refused === null; i++) {
      const res = await svc.request('POST', '/v1.0/logs', { token, body: records(250) });
      if (res.status === 200) acknowledged += 250;
      else refused = { status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get('retry-after') ?? undefined };
    }
    expect(refused, 'a batch beyond the disk is refused').to.deep.include({ status: 503, code: 'storage_unavailable' });
    expect(Number(refused!.retryAfter)).to.be.greaterThan(0);
    expect((await svc.request('GET', '/healthz')).status).to.equal(200);

    // With nothing more in flight the drained segment is deleted, and batches pass again.
    const accepted = await waitFor(
      'a batch accepted again without any space freed by hand',
      async () => {
        const res = await svc!.request('POST', '/v1.0/logs', { token, body: records(250) });
        return res.status === 200 ? res : null;
      },
      60_000,
    );
    expect(accepted.status).to.equal(200);
    acknowledged += 250;
    // And again, many times the disk's size: the space keeps coming back.
    let passed = 0;
    for (let i = 0; i < 30; i++) {
      const res = await svc.request('POST', '/v1.0/logs', { token, body: records(250) });
      if (res.status === 200) passed++;
      else expect(res.status).to.equal(503);
    }
    acknowledged += passed * 250;
    expect(passed).to.be.greaterThan(20);
    await svc.services.ingestor!.caughtUp();
    expect(await storedLogCount(svc.stores.clickhouse, 'full-disk-ws')).to.equal(acknowledged);
    expect(readdirSync(path.join(disk!.dir, 'journal')).filter((n) => n.endsWith('.seg')).length).to.be.at.most(2);
  });
});
