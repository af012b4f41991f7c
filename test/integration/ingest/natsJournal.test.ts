// The journal on NATS JetStream (JOURNAL_URL), as users run it: real processes, two stateless
// ROLE=ingest processes and one process that writes the stream into the embedded ClickHouse
// and serves the API, on the Postgres server. Clients spread batches over both ingest
// processes and retry an unanswered batch on the other one, with the same log_ids; each ingest
// process and the writer are killed (-9) several times at random moments. Afterwards `logs`
// and every rollup hold each acknowledged record exactly once. Then NATS itself is killed
// under load (a server of the test's own): 503s meanwhile, every 200 stored, and the service
// recovers when NATS is back without a restart. Each test uses a stream of its own.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { request, type TestResponse } from '../../helpers/http.js';
import { isoMinutesAgo, type SentLog } from '../../helpers/logs.js';
import { MACHINE_NATS_URL, OwnNatsServer, reachable } from '../../helpers/nats.js';
import { startServiceProcess, type ServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode, testRoot, uniqueName } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';
import { seededRandom } from '../../../scripts/lib/seededRandom.js';

const ADMIN_TOKEN = 'nats-admin-token-0123456789';
const WORKSPACE = 'nats-ws';

const batchesOf = (count: number, perBatch: number, offset = 0): SentLog[][] =>
  Array.from({ length: count }, (_, b) =>
    Array.from({ length: perBatch }, (_, i) => ({
      log_id: randomUUID(),
      event: `e${(b + i) % 5}`,
      value: (((b + offset) * perBatch + i) % 9) + 1,
      occurred_at: isoMinutesAgo((b * 7 + i) % 600),
    })),
  );

async function sql(service: ServiceProcess, query: string): Promise<Record<string, number>> {
  const res = await request(service.url, 'POST', '/v1.0/admin/sql', { token: ADMIN_TOKEN, body: { query } });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return Object.fromEntries(Object.entries(res.body[0] as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));
}

/** What `logs` and each rollup hold for the workspace. */
async function stored(service: ServiceProcess) {
  const where = `WHERE workspace_id = '${WORKSPACE}'`;
  return {
    logs: await sql(service, `SELECT count() AS count, sum(value) AS value FROM logs ${where}`),
    unique: await sql(service, `SELECT uniqExact(log_id) AS count FROM logs ${where}`),
    minute: await sql(service, `SELECT sum(count) AS count, sum(value) AS value FROM rollup_minute_v ${where}`),
    hour: await sql(service, `SELECT sum(count) AS count, sum(value) AS value FROM rollup_hour_v ${where}`),
    day: await sql(service, `SELECT sum(count) AS count, sum(value) AS value FROM rollup_day_v ${where}`),
  };
}

const exactlyOnce = (batches: readonly SentLog[][]) => {
  const expected = { count: batches.length * (batches[0]?.length ?? 0), value: batches.flat().reduce((s, r) => s + r.value, 0) };
  return { logs: expected, unique: { count: expected.count }, minute: expected, hour: expected, day: expected };
};

/**
 * Waits until the stream holds no message, read from NATS itself: the writer acknowledges a
 * message only once it is in ClickHouse (a killed writer's messages come back after the
 * 30 s ack wait).
 */
async function drained(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url, timeout: 5_000 });
  try {
    const jsm = await jetstreamManager(nc);
    await waitFor('the stream to drain', async () => ((await jsm.streams.info(stream)).state.messages === 0 ? true : null), 180_000).catch(
      async (err: Error) => {
        const state = (await jsm.streams.info(stream)).state;
        const consumer = await jsm.consumers.info(stream, `${stream}-writer`).catch((e: unknown) => String(e));
        throw new Error(`${err.message}: stream ${JSON.stringify(state)}; consumer ${JSON.stringify(consumer)}`);
      },
    );
  } finally {
    await nc.close();
  }
}

async function deleteStream(url: string, name: string): Promise<void> {
  const nc = await connect({ servers: url, timeout: 2_000 }).catch(() => null);
  if (nc === null) return;
  await (await jetstreamManager(nc)).streams.delete(name).catch(() => {});
  await nc.close();
}

describe(`the journal on NATS JetStream (Postgres ${postgresMode})`, function () {
  this.timeout(900_000);

  before(async function () {
    if (postgresMode !== 'server') {
      console.log('      skipped: several processes share the Postgres server (this file runs again on it)');
      this.skip();
    }
    if (!(await reachable(4222))) {
      console.log('      skipped: no NATS server at 127.0.0.1:4222 (.ci/run starts one; see docs/operations.md)');
      this.skip();
    }
  });

  it('two ingest processes and a writer, each killed -9 at random moments: every acknowledged record once in logs and every rollup', async () => {
    const seed = Number(process.env.NATS_TEST_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const stream = uniqueName('alertmon_t');
    // A database without its schema: the three processes below migrate it at once.
    const base = await freshProcessEnv({ blank: true });
    const shared = { DATABASE_URL: base.DATABASE_URL!, JOURNAL_URL: MACHINE_NATS_URL, JOURNAL_STREAM: stream };
    // A 5 s ack wait: a killed writer's messages come back to the next one within seconds, not half a minute.
    const writerEnv = {
      ...base,
      ...shared,
      ROLE: 'all',
      ADMIN_TOKEN,
      INGEST_INSERT_BLOCK_RECORDS: '1500',
      INGEST_FLUSH_INTERVAL_MS: '40',
      JOURNAL_ACK_WAIT_MS: '5000',
    };
    // Stateless: an ingest process is given a DATA_DIR that must never come to exist.
    const ingestDirs = [path.join(testRoot, uniqueName('ingest-a')), path.join(testRoot, uniqueName('ingest-b'))];
    const ingestEnv = (i: number) => ({ ...shared, ROLE: 'ingest', DATA_DIR: ingestDirs[i]! });

    const batches = batchesOf(240, 100);
    const queue = batches.map((_, i) => i);
    const acknowledged = new Set<number>();
    const figures = { seed, kills: { ingest: 0, writer: 0 }, answered200: 0, refused: 0, unanswered: 0, retriedOnOther: 0, resent: 0 };

    // The three start together, and migrate it under a lock in Postgres.
    const [first, ...ingestProcesses] = await Promise.all([
      startServiceProcess({ env: writerEnv, readyTimeoutMs: 180_000 }),
      ...[0, 1].map((i) => startServiceProcess({ env: ingestEnv(i), readyTimeoutMs: 180_000 })),
    ]);
    let writer = first!;
    const ingest: (ServiceProcess | null)[] = ingestProcesses;
    const token = (await request(writer.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: WORKSPACE } })).body.token as string;

    let scheduleDone = false;
    const restarting: Partial<Record<'ingest0' | 'ingest1' | 'writer', Promise<void>>> = {};
    /** One try on ingest process `i`: true when answered 200. */
    const send = async (i: number, index: number): Promise<boolean> => {
      const target = ingest[i];
      if (!target) return false;
      const res = await request(target.url, 'POST', '/v1.0/logs', { token, body: batches[index] }).catch(() => null);
      if (res === null) figures.unanswered++;
      else if (res.status === 200) return true;
      else if (res.status === 503 || res.status === 429) figures.refused++;
      else throw new Error(`batch ${index}: ${res.status} ${res.text}`);
      return false;
    };
    const client = async (c: number) => {
      for (let k = c; !scheduleDone || queue.length > 0; k++) {
        let index = queue.shift();
        if (index === undefined) {
          // Nothing new: an agent re-sends a batch it was answered for (a time-out after the 200).
          index = [...acknowledged][Math.floor(random() * acknowledged.size)]!;
          figures.resent++;
          await new Promise((r) => setTimeout(r, 30));
        }
        const first = k % 2;
        let ok = await send(first, index);
        if (!ok) {
          figures.retriedOnOther++;
          ok = await send(1 - first, index);
        }
        if (ok) {
          figures.answered200++;
          acknowledged.add(index);
        } else {
          queue.push(index);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };

    try {
      const clients = Promise.all(Array.from({ length: 6 }, (_, c) => client(c)));
      // A killed process starts again while the schedule goes on to the next victim (so two may
      // be down at once); each is back before it is killed again.
      for (const victim of ['ingest0', 'writer', 'ingest1', 'ingest0', 'writer', 'ingest1'] as const) {
        await new Promise((r) => setTimeout(r, 200 + random() * 2_000));
        await restarting[victim];
        if (victim === 'writer') {
          await writer.kill();
          figures.kills.writer++;
          restarting.writer = startServiceProcess({ env: writerEnv, readyTimeoutMs: 180_000 }).then((p) => {
            writer = p;
          });
        } else {
          const i = victim === 'ingest0' ? 0 : 1;
          const process = ingest[i]!;
          ingest[i] = null;
          await process.kill();
          figures.kills.ingest++;
          restarting[victim] = startServiceProcess({ env: ingestEnv(i), readyTimeoutMs: 180_000 }).then((p) => {
            ingest[i] = p;
          });
        }
      }
      await Promise.all(Object.values(restarting));
      scheduleDone = true;
      await clients;
      expect(acknowledged.size).to.equal(batches.length);
      await drained(MACHINE_NATS_URL, stream);
      expect(await stored(writer), JSON.stringify(figures)).to.deep.equal(exactlyOnce(batches));
      expect(
        ingestDirs.filter((dir) => existsSync(dir)),
        'an ingest process wrote to local disk',
      ).to.deep.equal([]);
      expect(figures.retriedOnOther).to.be.greaterThan(0);
      console.log(`      figures: ${JSON.stringify(figures)}`);
    } finally {
      scheduleDone = true;
      queue.length = 0;
      await Promise.allSettled(Object.values(restarting));
      await Promise.all([writer.kill(), ...ingest.map((p) => p?.kill())]);
      await deleteStream(MACHINE_NATS_URL, stream);
    }
  });

  it('NATS killed under load: 503 storage_unavailable meanwhile, every 200 stored once, and recovery without a restart', async () => {
    const nats = await OwnNatsServer.start();
    const base = await freshProcessEnv();
    const env = {
      ...base,
      ROLE: 'all',
      ADMIN_TOKEN,
      JOURNAL_URL: nats.url,
      JOURNAL_STREAM: uniqueName('alertmon_t'),
      INGEST_FLUSH_INTERVAL_MS: '40',
      JOURNAL_ACK_WAIT_MS: '5000',
    };
    const service = await startServiceProcess({ env, readyTimeoutMs: 180_000 });
    const batches = batchesOf(400, 50, 7);
    const queue = batches.map((_, i) => i);
    const acknowledged = new Set<number>();
    const attempted = new Set<number>();
    const statuses = new Map<string, number>();
    let phase: 'before' | 'down' | 'after' = 'before';
    const after200 = { count: 0 };
    try {
      const token = (await request(service.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: WORKSPACE } })).body.token as string;
      let stop = false;
      const clients = Promise.all(
        Array.from({ length: 4 }, async () => {
          while (!stop && queue.length > 0) {
            const index = queue.shift()!;
            attempted.add(index);
            const res = await request(service.url, 'POST', '/v1.0/logs', { token, body: batches[index] });
            const key = `${phase}:${res.status}${res.status === 503 ? `:${res.body.error.code}` : ''}`;
            statuses.set(key, (statuses.get(key) ?? 0) + 1);
            if (res.status === 200) {
              acknowledged.add(index);
              if (phase === 'after') after200.count++;
            } else {
              expect([429, 503]).to.include(res.status);
              queue.push(index);
              await new Promise((r) => setTimeout(r, 50));
            }
          }
        }),
      );
      await waitFor('some batches acknowledged', async () => (acknowledged.size >= 20 ? true : null), 60_000);
      await nats.kill();
      phase = 'down';
      await waitFor('a 503 while NATS is down', async () => ((statuses.get('down:503:storage_unavailable') ?? 0) > 0 ? true : null), 60_000);
      const ready = await request(service.url, 'GET', '/readyz');
      expect(ready.status).to.equal(503);
      await nats.start();
      phase = 'after';
      await waitFor('200s again after NATS is back', async () => (after200.count >= 10 ? true : null), 120_000);
      stop = true;
      await clients;
      // An unanswered batch may be in the stream (its acknowledgement lost with the server): agents retry it.
      for (const index of attempted) {
        if (acknowledged.has(index)) continue;
        const res = await request(service.url, 'POST', '/v1.0/logs', { token, body: batches[index] });
        expect(res.status, res.text).to.equal(200);
        acknowledged.add(index);
      }
      await drained(nats.url, env.JOURNAL_STREAM);
      const sent = batches.filter((_, i) => acknowledged.has(i));
      expect(await stored(service), JSON.stringify([...statuses])).to.deep.equal(exactlyOnce(sent));
      expect((await request(service.url, 'GET', '/readyz')).status).to.equal(200);
      console.log(`      statuses: ${JSON.stringify(Object.fromEntries(statuses))}`);
    } finally {
      await service.kill();
      await nats.kill();
    }
  });

  it('a full stream answers 503 journal_full; a ROLE=ingest process needs no ClickHouse', async () => {
    const stream = uniqueName('alertmon_t');
    const base = await freshProcessEnv();
    const env = {
      DATABASE_URL: base.DATABASE_URL!,
      ROLE: 'ingest',
      JOURNAL_URL: MACHINE_NATS_URL,
      JOURNAL_STREAM: stream,
      INGEST_JOURNAL_MAX_BYTES: String(1024 ** 2),
    };
    const [api, ingest] = await Promise.all([
      startServiceProcess({ env: { ...base, ROLE: 'api', ADMIN_TOKEN }, readyTimeoutMs: 180_000 }),
      startServiceProcess({ env: { ...env, DATA_DIR: path.join(testRoot, uniqueName('ingest-c')) }, readyTimeoutMs: 180_000 }),
    ]);
    try {
      const ready = await request(ingest.url, 'GET', '/readyz');
      expect(ready.body).to.deep.equal({ status: 'ok', checks: { clickhouse: 'none', postgres: 'ok', journal: 'ok' } });
      const tokenFor = async (ws: string) =>
        (await request(api.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: ws } })).body.token as string;
      let token = await tokenFor(WORKSPACE);
      const statuses: number[] = [];
      let full: TestResponse | null = null;
      for (const batch of batchesOf(120, 250)) {
        const res = await request(ingest.url, 'POST', '/v1.0/logs', { token, body: batch });
        statuses.push(res.status);
        // Past half the stream's bytes the workspace filling it gets 429 (the backlog); another goes on filling it.
        if (res.status === 429) token = await tokenFor(`${WORKSPACE}-${statuses.length}`);
        else if (res.status !== 200) {
          full = res;
          break;
        }
      }
      expect(statuses.filter((s) => s === 200).length, String(statuses)).to.be.greaterThan(0);
      expect(full?.status).to.equal(503);
      expect(full?.body.error.code).to.equal('journal_full');
      expect(Number(full?.headers.get('retry-after'))).to.be.greaterThan(0);
      // No writer runs: what was acknowledged waits in the stream, and the backlog gauges say so
      // (the consumer's lag, read from the stream, not the local journal this process does not have).
      const accepted = statuses.filter((s) => s === 200).length * 250;
      const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
      // The gauges are polled once a second: one read while the batches were still arriving may show part of them.
      const backlog = await waitFor('the stream backlog in /metrics', async () => {
        const text = (await request(ingest.url, 'GET', '/metrics')).text;
        const records = gauge(text, 'alertmon_journal_backlog_records');
        return records >= accepted * 0.5 ? { records, bytes: gauge(text, 'alertmon_journal_backlog_bytes') } : null;
      });
      expect(backlog.records).to.be.within(accepted * 0.5, accepted * 1.5);
      expect(backlog.bytes).to.be.greaterThan(0);
    } finally {
      await Promise.all([api.kill(), ingest.kill()]);
      await deleteStream(MACHINE_NATS_URL, stream);
    }
  });
});
