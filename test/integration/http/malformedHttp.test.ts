// Requests Node's HTTP parser refuses before any route sees them still get the API's JSON
// error shape (they got Node's bare 431 and 400), and the service keeps serving.
import { expect } from 'chai';
import net from 'node:net';
import { startTestService, type TestService } from '../../helpers/service.js';

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Sends bytes as they are on a fresh connection and reads the first response until the server closes. */
function rawExchange(baseUrl: string, bytes: string): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(bytes);
  });
}

function expectJsonError(res: RawResponse, status: number, code: string): void {
  expect(res.status, res.body).to.equal(status);
  expect(res.headers['content-type']).to.match(/^application\/json/);
  const body = JSON.parse(res.body.slice(0, Number(res.headers['content-length'])));
  expect(body.error.code).to.equal(code);
  expect(body.error.message).to.be.a('string').and.not.equal('');
  expect(body.error.details).to.deep.equal([]);
}

describe('requests the HTTP parser refuses', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  before(async () => {
    svc = await startTestService({ env: { LOGS_PORT: '0' } });
    token = await svc.tokenFor('malformed-http-ws');
  });
  after(() => svc.close());

  it('answers a 100 KB query string with 431 in the JSON error shape, on both listeners', async () => {
    for (const base of [svc.url, svc.logsUrl!]) {
      const res = await rawExchange(base, `GET /v1.0/events?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      expectJsonError(res, 431, 'headers_too_large');
    }
    expect((await svc.request('GET', '/v1.0/events', { token })).status).to.equal(200);
  });

  it('answers a Content-Length shorter than the body with 400 in the JSON error shape, and stores nothing', async () => {
    const body = JSON.stringify({ event: 'short.length', agent: 'a' });
    const res = await rawExchange(
      svc.url,
      `POST /v1.0/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n${body}`,
    );
    expectJsonError(res, 400, 'malformed_request');
    const events = await svc.request('GET', '/v1.0/events', { token });
    expect(events.status).to.equal(200);
    expect(events.body).to.deep.equal([]);
  });

  it('answers bytes that are not HTTP at all with 400 in the JSON error shape', async () => {
    const res = await rawExchange(svc.url, 'HELLO THERE\r\n\r\n');
    expectJsonError(res, 400, 'malformed_request');
    expect((await svc.request('GET', '/healthz')).status).to.equal(200);
  });

  it('answers CONNECT with 405 in the JSON error shape (it used to close the connection unanswered), on both listeners', async () => {
    for (const base of [svc.url, svc.logsUrl!]) {
      for (const target of ['example.com:443', '/v1.0/events']) {
        const res = await rawExchange(base, `CONNECT ${target} HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: Bearer ${token}\r\n\r\n`);
        expectJsonError(res, 405, 'method_not_allowed');
        expect(res.headers.connection).to.equal('close');
      }
    }
    expect((await svc.request('GET', '/v1.0/events', { token })).status).to.equal(200);
  });
});
