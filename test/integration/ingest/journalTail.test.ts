// A service process killed with acknowledged batches still in its journal, whose newest
// segment then ends badly: half a frame (a torn append: cut off, everything acknowledged is
// stored) or a complete last frame whose checksum fails (damage: reported loudly, its bytes
// kept, the frames before it stored). Either way the service starts, replays what is valid
// exactly once into logs and the rollups, and takes new batches.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeFrame, scanFrames } from '../../../src/ingest/journal/frames.js';
import { request } from '../../helpers/http.js';
import { isoMinutesAgo } from '../../helpers/logs.js';
import { startServiceProcess, type ServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { describeInEmbeddedRunOnly, freshProcessEnv } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

const ADMIN_TOKEN = 'journal-tail-admin-token-0123456789';
const BATCHES = 6;
const PER_BATCH = 50;

async function sql(service: ServiceProcess, query: string): Promise<number[]> {
  const res = await request(service.url, 'POST', '/v1.0/admin/sql', { token: ADMIN_TOKEN, body: { query } });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return Object.values(res.body[0] as Record<string, unknown>).map(Number);
}

/** The newest segment file of a journal folder. */
function newestSegment(dataDir: string): string {
  const dir = path.join(dataDir, 'journal');
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.seg'))
    .sort();
  return path.join(dir, names.at(-1)!);
}

/**
 * Sends BATCHES acknowledged batches to a process whose journal writer waits (10 s or a
 * million records), kills it, and hands the newest segment to `damage`; then restarts and
 * returns the stored counts once the journal has drained.
 */
async function crashWithTail(workspace: string, damage: (segment: string) => void) {
  const dataEnv: Record<string, string> = { ...(await freshProcessEnv()), ADMIN_TOKEN };
  const first = await startServiceProcess({ env: { ...dataEnv, INGEST_FLUSH_INTERVAL_MS: '10000', INGEST_INSERT_BLOCK_RECORDS: '1000000' } });
  let token: string;
  try {
    token = (await request(first.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: workspace } })).body.token;
    for (let b = 0; b < BATCHES; b++) {
      const body = Array.from({ length: PER_BATCH }, (_, i) => ({ log_id: randomUUID(), event: 'tail', value: b + 1, occurred_at: isoMinutesAgo(i) }));
      const res = await request(first.url, 'POST', '/v1.0/logs', { token, body });
      expect(res.status, res.text).to.equal(200);
    }
  } finally {
    await first.kill();
  }
  const segment = newestSegment(dataEnv.DATA_DIR!);
  expect(scanFrames(readFileSync(segment)).frames, 'every batch still in the journal').to.have.length(BATCHES);
  damage(segment);

  const second = await startServiceProcess({ env: dataEnv });
  try {
    await waitFor('the journal replay', async () =>
      /^alertmon_journal_backlog_records 0$/m.test((await request(second.url, 'GET', '/metrics')).text) ? true : null,
    );
    const where = `WHERE workspace_id = '${workspace}'`;
    const [logs, value] = await sql(second, `SELECT count(), sum(value) FROM logs ${where}`);
    const rollups: number[] = [];
    for (const view of ['rollup_minute_v', 'rollup_hour_v', 'rollup_day_v']) rollups.push(...(await sql(second, `SELECT sum(count) FROM ${view} ${where}`)));
    const metrics = (await request(second.url, 'GET', '/metrics')).text;
    const damagedBytes = Number(/^alertmon_journal_damaged_bytes_total (\S+)$/m.exec(metrics)?.[1] ?? NaN);
    const next = await request(second.url, 'POST', '/v1.0/logs', { token, body: [{ event: 'tail', value: 1 }] });
    return { logs, value, rollups, damagedBytes, output: second.output.join(''), nextStatus: next.status };
  } finally {
    await second.kill();
  }
}

describeInEmbeddedRunOnly('ingest journal tail after a crash', function () {
  this.timeout(120_000);

  it('cuts off half a frame at the end (a torn append) and stores every acknowledged record exactly once', async () => {
    const result = await crashWithTail('torn-tail-ws', (segment) => {
      appendFileSync(segment, encodeFrame([Buffer.from('never acknowledged')]).subarray(0, 20));
    });
    const all = BATCHES * PER_BATCH;
    expect({ logs: result.logs, value: result.value, rollups: result.rollups }).to.deep.equal({
      logs: all,
      value: PER_BATCH * ((BATCHES * (BATCHES + 1)) / 2),
      rollups: [all, all, all],
    });
    expect(result.output).to.include('torn write');
    expect(result.output).not.to.include('DAMAGED DATA');
    expect(result.damagedBytes).to.equal(0);
    expect(result.nextStatus).to.equal(200);
  });

  it('reports a corrupt last frame loudly, keeps its bytes, and stores the frames before it exactly once', async () => {
    let dataDir = '';
    const result = await crashWithTail('corrupt-tail-ws', (segment) => {
      dataDir = path.dirname(segment);
      const bytes = readFileSync(segment);
      const last = scanFrames(bytes).frames.at(-1)!;
      bytes.writeUInt8(bytes.readUInt8(last.end - 3) ^ 0xff, last.end - 3); // a byte of the last record changed on disk
      writeFileSync(segment, bytes);
    });
    const kept = (BATCHES - 1) * PER_BATCH;
    expect({ logs: result.logs, value: result.value, rollups: result.rollups }).to.deep.equal({
      logs: kept,
      value: PER_BATCH * (((BATCHES - 1) * BATCHES) / 2),
      rollups: [kept, kept, kept],
    });
    expect(result.output).to.include('DAMAGED DATA');
    expect(result.output).not.to.include('torn write');
    expect(result.damagedBytes).to.be.greaterThan(0);
    expect(readdirSync(path.join(dataDir, 'damaged'))).to.have.length(1);
    expect(result.nextStatus).to.equal(200);
  });
});
