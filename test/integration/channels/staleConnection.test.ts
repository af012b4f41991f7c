// A webhook target that closes a kept-alive connection just as the next notification is sent
// on it (a server's idle time-out racing the send) still gets that notification at once: the
// send goes again on a new connection, and the delivery history shows one delivered attempt,
// not a failure waiting for the worker's first retry.
import { expect } from 'chai';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { raiseAlert, seedPolicy } from '../../helpers/outbox.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const WS = 'stale-connection-ws';

/** An HTTP/1.1 target that answers the first request of each connection and resets the connection on its second. */
async function resettingTarget() {
  const received: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buffered.slice(0, headEnd))?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const body = buffered.slice(headEnd + 4, headEnd + 4 + length);
        buffered = buffered.slice(headEnd + 4 + length);
        requests += 1;
        if (requests > 1) {
          socket.resetAndDestroy();
          return;
        }
        received.push(body);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

describe('a kept-alive webhook connection closed by the target', function () {
  this.timeout(60_000);
  let svc: TestService;
  let target: Awaited<ReturnType<typeof resettingTarget>>;

  before(async () => {
    target = await resettingTarget();
    // The worker's own retry would come only after a minute: only a resend at once can pass.
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50', DELIVERY_RETRY_SCHEDULE_MS: '60000' } });
    await svc.tokenFor(WS);
    await svc.stores.postgres.query(
      `INSERT INTO destinations (destination_id, workspace_id, channel, url, scope) VALUES (gen_random_uuid(), $1, 'webhook', $2, 'all')`,
      [WS, target.url],
    );
  });
  after(async () => {
    await svc?.close();
    await target?.close();
  });

  it('gets the next notification at once, on a new connection, with one delivered attempt', async () => {
    const policy = await seedPolicy(svc.stores.postgres, WS);
    const first = await raiseAlert(svc.stores.postgres, WS, policy);
    await waitFor('the first notification', async () => (target.received.length === 1 ? true : null));
    const second = await raiseAlert(svc.stores.postgres, WS, await seedPolicy(svc.stores.postgres, WS, 'Second'));
    await waitFor('the second notification', async () => (target.received.length === 2 ? true : null), 10_000);
    const ids = target.received.map((body) => (JSON.parse(body) as { alert: { alert_id: string } }).alert.alert_id);
    expect(ids).to.deep.equal([first.alertId, second.alertId]);
    // Recorded a moment after the send: one attempt, delivered.
    const statuses = async () =>
      (await svc.stores.postgres.query<{ status: string }>(`SELECT status FROM delivery_attempts WHERE alert_id = $1`, [second.alertId])).map((a) => a.status);
    await waitFor('the attempt recorded', async () => ((await statuses()).includes('pending') ? null : true));
    expect(await statuses()).to.deep.equal(['delivered']);
  });
});
