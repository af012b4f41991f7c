// 256 ingest clients overload a service process (each sends 250-record batches as fast as it
// is answered, and waits Retry-After after a 429, as the SDKs do) while a user reads the
// control plane. Every read is answered, none after more than a few seconds (the bound is
// generous on purpose: bench:ingest measures the figure itself).
import { expect } from 'chai';
import http from 'node:http';
import { request } from '../../helpers/http.js';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode } from '../../helpers/stores.js';

const ADMIN_TOKEN = 'overload-admin-token-0123456789';
const CLIENTS = 256;
const OVERLOAD_MS = 6_000;
const READ_EVERY_MS = 100;
const A_FEW_SECONDS_MS = 5_000;

function post(agent: http.Agent, url: URL, token: string, body: Buffer): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { agent, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Number(res.headers['retry-after'] ?? 0) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe(`control plane under a 256-client ingest overload (Postgres ${postgresMode})`, function () {
  this.timeout(180_000);

  it('answers every GET /v1.0/events within a few seconds while ingest clients are refused with 429', async () => {
    const service = await startServiceProcess({ env: { ...(await freshProcessEnv()), ADMIN_TOKEN } });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    try {
      const issue = async (ws: string) =>
        (await request(service.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: ws } })).body.token as string;
      const [ingestToken, readerToken] = [await issue('overload-ws'), await issue('reader-ws')];
      const body = Buffer.from(JSON.stringify(Array.from({ length: 250 }, (_, i) => ({ event: `e${i % 10}`, value: i, meta: { host: `h${i % 7}` } }))));
      const url = new URL('/v1.0/logs', service.url);
      const statuses = new Map<number, number>();
      const until = Date.now() + OVERLOAD_MS;
      const clients = Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < until) {
          const { status, retryAfter } = await post(agent, url, ingestToken, body);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 429 || status === 503) await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        }
      });
      const readsMs: number[] = [];
      const readStatuses = new Set<number>();
      while (Date.now() < until) {
        const started = performance.now();
        readStatuses.add((await request(service.url, 'GET', '/v1.0/events', { token: readerToken })).status);
        readsMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
      }
      await Promise.all(clients);
      const figures = { statuses: Object.fromEntries(statuses), reads: readsMs.length, slowestReadMs: Math.round(Math.max(...readsMs)) };
      expect([...readStatuses], JSON.stringify(figures)).to.deep.equal([200]);
      expect(statuses.get(429) ?? 0, JSON.stringify(figures)).to.be.greaterThan(0);
      expect(statuses.get(500) ?? 0, JSON.stringify(figures)).to.equal(0);
      expect(figures.slowestReadMs, JSON.stringify(figures)).to.be.below(A_FEW_SECONDS_MS);
      console.log(`      figures: ${JSON.stringify(figures)}`);
    } finally {
      agent.destroy();
      await service.kill();
    }
  });
});
