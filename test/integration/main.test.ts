import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from '../helpers/http.js';
import { runScript, startServiceProcess } from '../../scripts/lib/serviceProcess.js';
import { freshProcessEnv, postgresMode } from '../helpers/stores.js';

const ADMIN_TOKEN = 'process-admin-token-0123456789';

describe(`the service process (Postgres ${postgresMode})`, function () {
  this.timeout(180_000);

  it('serves, stops cleanly on SIGINT and finds its data again', async () => {
    // A DATA_DIR with nothing in it: the very first start, embedded Postgres's initdb included.
    const env = { ...(await freshProcessEnv({ blank: true })), ADMIN_TOKEN };
    const first = await startServiceProcess({ env });
    let token: string;
    try {
      expect((await request(first.url, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
      const issued = await request(first.url, 'POST', '/v1.0/admin/tokens', { token: ADMIN_TOKEN, body: { user_id: 'proc-ws' } });
      expect(issued.status).to.equal(201);
      token = issued.body.token;
      const unknown = await request(first.url, 'GET', '/v1.0/nowhere', { token });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('not_found');

      // A second service on the same DATA_DIR is refused while the first runs.
      if (postgresMode === 'embedded') {
        const second = await runScript('src/main.ts', [], { ...env, PORT: '0', LOG_LEVEL: 'silent' });
        expect(second.code).to.equal(1);
        expect(second.stderr).to.match(/in use by process/);
      }
    } finally {
      const code = await first.stop({ signal: 'SIGINT' });
      expect(code, first.output.join('')).to.equal(0);
    }
    expect(first.output.join('')).to.include('"stopped"');

    const again = await startServiceProcess({ env });
    try {
      expect((await request(again.url, 'GET', '/v1.0/nowhere', { token: token! })).status, 'the token still works').to.equal(404);
    } finally {
      expect(await again.stop({ signal: 'SIGTERM' })).to.equal(0);
    }
  });

  it('is not taken as started on the answers of another process that holds its port', async () => {
    // A port picked free may be bound by another process before the service binds it (the
    // service then exits); that process answering /readyz must not pass for the service. Once
    // a second service refused its DATA_DIR passed for started this way, beside other tests.
    const other = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const env = { ...(await freshProcessEnv()), ADMIN_TOKEN, PORT: String((other.address() as AddressInfo).port) };
      const err = await startServiceProcess({ env }).then(
        async (service) => {
          await service.kill();
          return null;
        },
        (e: Error) => e,
      );
      expect(err?.message).to.include('EADDRINUSE');
    } finally {
      other.close();
    }
  });

  it('refuses to start on bad configuration, naming every problem', async () => {
    const result = await runScript('src/main.ts', [], { PORT: 'http', ROLE: 'everything', DATA_DIR: '/nonexistent-never-used' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('PORT');
    expect(result.stderr).to.include('ROLE');
  });

  it('issues tokens from the command line, through the admin API while the service runs', async () => {
    const env = await freshProcessEnv();
    const offline = await runScript('scripts/token.ts', ['--user', 'cli-ws', '--email', 'cli@example.com'], env);
    expect(offline.code, offline.stderr).to.equal(0);
    const offlineToken = (JSON.parse(offline.stdout) as { token: string }).token;

    const service = await startServiceProcess({ env: { ...env, ADMIN_TOKEN } });
    try {
      expect((await request(service.url, 'GET', '/v1.0/x', { token: offlineToken })).status).to.equal(404);
      const port = new URL(service.url).port;
      const online = await runScript('scripts/token.ts', ['--user', 'cli-ws'], { ...env, ADMIN_TOKEN, PORT: port });
      expect(online.code, online.stderr).to.equal(0);
      const onlineToken = (JSON.parse(online.stdout) as { token: string }).token;
      expect((await request(service.url, 'GET', '/v1.0/x', { token: onlineToken })).status).to.equal(404);
      if (postgresMode === 'embedded') {
        const refused = await runScript('scripts/token.ts', ['--user', 'cli-ws'], { ...env, PORT: port });
        expect(refused.code).to.equal(1);
        expect(refused.stderr).to.include('ADMIN_TOKEN');
      }
    } finally {
      await service.stop();
    }
  });
});
