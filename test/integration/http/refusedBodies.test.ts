// A body refused while it is read (too large as sent, too large once inflated, chunked past
// the limit, in a bad encoding) leaves its connection able to serve the next request: a pooled
// client sent its next request on it and got nothing for 66 s, then ECONNRESET. Checked on
// every route that takes a body, as the routers list them, with a client that keeps one
// connection alive (Node's http.Agent, as SDKs and exporters use).
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { apiRouters, everyRoute } from '../../../src/app.js';
import type { DocumentedRoute } from '../../../src/http/apiRouter.js';
import { DRAIN_MAX_BYTES } from '../../../src/http/requestBody.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly reusedSocket: boolean;
  readonly socket: net.Socket;
}

const MB = 1024 * 1024;

interface Body {
  readonly name: string;
  readonly bytes: Buffer;
  readonly headers: Record<string, string>;
  readonly chunked: boolean;
}

const BODIES: readonly Body[] = [
  // 200 MB of spaces, about 200 KB on the wire.
  { name: 'a gzip bomb', bytes: gzipSync(Buffer.alloc(200 * MB, 0x20)), headers: { 'content-encoding': 'gzip' }, chunked: false },
  { name: 'a 10 MB body', bytes: Buffer.alloc(10 * MB, 0x20), headers: {}, chunked: false },
  { name: 'a 10 MB chunked body', bytes: Buffer.alloc(10 * MB, 0x20), headers: {}, chunked: true },
  { name: 'a body that is not the gzip it says', bytes: Buffer.alloc(512 * 1024, 0x7b), headers: { 'content-encoding': 'gzip' }, chunked: false },
];

/** The answer each route gives each body; every other route and body: 413, or 400 for the bad gzip. */
const EXPECTED: Readonly<Record<string, Partial<Record<string, number>>>> = {
  // Takes no body: the alert is unknown, and the body is left unread.
  '/ack/:alertID': { 'a gzip bomb': 404, 'a 10 MB body': 404, 'a 10 MB chunked body': 404, 'a body that is not the gzip it says': 404 },
  // A snappy block whatever Content-Encoding says: gzip bytes are not one.
  '/api/v1/write': { 'a gzip bomb': 400 },
};
const expectedStatus = (route: DocumentedRoute, body: Body) =>
  EXPECTED[route.fullPath]?.[body.name] ?? (body.name.startsWith('a body that is not') ? 400 : 413);

function exchange(agent: http.Agent, base: string, method: string, path: string, headers: Record<string, string>, body: Body | null): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    // Node's client frames a DELETE's body only when told to.
    const lengthHeader = body === null ? {} : body.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.bytes.length) };
    const req = http.request({ host: hostname, port, method, path, agent, headers: { ...headers, ...body?.headers, ...lengthHeader } }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode!, connection: res.headers.connection, reusedSocket: req.reusedSocket, socket: req.socket as net.Socket }),
      );
    });
    // A hang is the failure looked for: say so rather than wait for mocha's time-out.
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)));
    req.on('error', reject);
    if (body === null) req.end();
    else if (body.chunked) {
      for (let at = 0; at < body.bytes.length; at += 64 * 1024) req.write(body.bytes.subarray(at, at + 64 * 1024));
      req.end();
    } else req.end(body.bytes);
  });
}

describeInOneRun('bodies refused while they are read', function () {
  this.timeout(600_000);
  let svc: TestService;
  let token: string;
  let bodyRoutes: DocumentedRoute[];

  before(async () => {
    svc = await startTestService();
    token = await svc.tokenFor('refused-bodies-ws');
    bodyRoutes = everyRoute(apiRouters(svc.services)).filter((route) => route.spec.method !== 'get');
  });
  after(() => svc.close());

  const pathOf = (route: DocumentedRoute) => route.fullPath.replace(/:\w+ID\b/g, () => randomUUID()).replace(/:\w+/g, 'x');
  const headersFor = (route: DocumentedRoute): Record<string, string> => {
    const auth = route.spec.auth ?? 'workspace';
    const bearer = auth === 'admin' ? TEST_ADMIN_TOKEN : auth === 'workspace' ? token : null;
    return {
      'content-type': route.fullPath === '/api/v1/write' ? 'application/x-protobuf' : 'application/json',
      ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
    };
  };

  it('covers every route that takes a body: control plane, logs, OTLP, remote-write, admin, acknowledge links', () => {
    const paths = new Set(bodyRoutes.map((r) => r.fullPath));
    for (const path of ['/v1.0/events', '/v1.0/logs', '/v1/metrics', '/api/v1/write', '/v1.0/admin/tokens', '/ack/:alertID']) {
      expect(paths, path).to.include(path);
    }
  });

  for (const body of BODIES) {
    it(`answers ${body.name} on every body route, then the next request on the same kept-alive connection`, async () => {
      for (const route of bodyRoutes) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const what = `${route.spec.method.toUpperCase()} ${route.fullPath}, ${body.name}`;
          const refused = await exchange(agent, svc.url, route.spec.method.toUpperCase(), pathOf(route), headersFor(route), body);
          expect(refused.status, what).to.equal(expectedStatus(route, body));
          // Within the drain's bounds the rest of the body is read and dropped: the connection stays usable.
          expect(refused.connection, what).to.equal('keep-alive');
          const next = await exchange(agent, svc.url, 'GET', '/healthz', {}, null);
          expect([next.status, next.reusedSocket], what).to.deep.equal([200, true]);
          expect(next.socket, what).to.equal(refused.socket);
        } finally {
          agent.destroy();
        }
      }
    });
  }

  it('closes the connection after answering a body too large even to drain, rather than leave it hanging', async () => {
    const { hostname, port } = new URL(svc.url);
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /v1.0/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${DRAIN_MAX_BYTES + MB}\r\n\r\n{"event": "`,
    );
    await closed;
    const answer = Buffer.concat(received).toString('utf8');
    expect(answer).to.match(/^HTTP\/1\.1 413 /);
    expect(answer).to.match(/\r\nConnection: close\r\n/i);
    expect(answer).to.include('"payload_too_large"');
    // Nothing was stored, and the service serves on.
    expect((await svc.request('GET', '/v1.0/events', { token })).body).to.deep.equal([]);
  });
});
