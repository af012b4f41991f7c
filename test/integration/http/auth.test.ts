import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { capturingLogger } from '../../helpers/logCapture.js';
import { startTestService, TEST_ADMIN_TOKEN, type TestService } from '../../helpers/service.js';
import { request } from '../../helpers/http.js';

describe('authentication', () => {
  let svc: TestService;
  let logLines: string[];
  before(async () => {
    const capture = capturingLogger();
    logLines = capture.lines;
    svc = await startTestService({ env: { LOGS_PORT: '0' }, logger: capture.logger });
  });
  after(() => svc.close());

  const badHeaders: Record<string, Record<string, string>> = {
    'no Authorization header': {},
    'no Bearer prefix': { authorization: 'alm_abc' },
    'another scheme': { authorization: 'Basic dXNlcjpwYXNz' },
    'an empty token': { authorization: 'Bearer ' },
    'an unknown token': { authorization: 'Bearer alm_thisTokenWasNeverIssued' },
  };

  for (const [what, headers] of Object.entries(badHeaders)) {
    it(`answers 401 on both planes for ${what}, and 404 for a path no route serves`, async () => {
      const served = {
        [svc.url]: [
          ['GET', '/v1.0/events'],
          ['GET', '/v1.0/alerts/0196f7a0-3c1e-7000-8000-000000000001'],
          ['POST', '/v1.0/logs'],
        ],
        [svc.logsUrl!]: [['POST', '/v1.0/logs']],
      };
      for (const [base, routes] of Object.entries(served)) {
        for (const [method, path] of routes) {
          const res = await request(base, method!, path!, { headers });
          expect(res.status, `${method} ${base}${path}`).to.equal(401);
          expect(res.body.error.code).to.equal('unauthorized');
        }
        // The routes are no secret (the OpenAPI document lists them): an unknown path is 404, token or not.
        for (const path of ['/v1.0/anything', '/anything']) {
          const res = await request(base, 'GET', path, { headers });
          expect(res.status, `GET ${base}${path}`).to.equal(404);
          expect(res.body.error.code).to.equal('not_found');
        }
      }
    });
  }

  it('serves the web console page without a token on the control plane only (its API calls carry one)', async () => {
    expect((await request(svc.url, 'GET', '/')).status).to.equal(200);
    expect((await request(svc.logsUrl!, 'GET', '/')).status).to.equal(404);
  });

  it('lets probes and scrapers in without a token', async () => {
    for (const base of [svc.url, svc.logsUrl!]) {
      expect((await request(base, 'GET', '/healthz')).body).to.deep.equal({ status: 'ok' });
      expect((await request(base, 'GET', '/readyz')).status).to.equal(200);
      const metrics = await request(base, 'GET', '/metrics');
      expect(metrics.status).to.equal(200);
      expect(metrics.text).to.include('alertmon_ingested_records_total');
      expect(metrics.text).to.include('alertmon_clickhouse_insert_seconds_bucket');
    }
  });

  it('admits a token issued by the admin API', async () => {
    const token = await svc.tokenFor('auth-ws');
    const res = await svc.request('GET', '/v1.0/anything', { token });
    expect(res.status).to.equal(404);
  });

  // HTTP auth schemes are case-insensitive (RFC 9110 §11.1) and some clients lower-case it.
  it('reads the Bearer scheme in any letter case, on both planes and on the admin API', async () => {
    const token = await svc.tokenFor('auth-case-ws');
    for (const scheme of ['bearer', 'BEARER', 'beArEr']) {
      const authorization = `${scheme} ${token}`;
      const control = await request(svc.url, 'GET', '/v1.0/events', { headers: { authorization } });
      expect(control.status, authorization).to.equal(200);
      const logs = await request(svc.logsUrl!, 'POST', '/v1.0/logs', { headers: { authorization, 'content-type': 'application/json' }, rawBody: '[]' });
      expect(logs.status, `${scheme} on the logs plane`).to.not.equal(401);
      const admin = await request(svc.url, 'POST', '/v1.0/admin/tokens', {
        headers: { authorization: `${scheme} ${TEST_ADMIN_TOKEN}` },
        body: { user_id: 'auth-case-ws' },
      });
      expect(admin.status, `${scheme} on the admin API`).to.equal(201);
    }
  });

  it('keeps only the SHA-256 of a token, and no token in the logs', async () => {
    const token = await svc.tokenFor('hash-ws');
    await svc.request('GET', '/v1.0/anything', { token });
    const rows = await svc.stores.postgres.query<Record<string, unknown>>('SELECT * FROM api_tokens WHERE user_id = $1', ['hash-ws']);
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).not.to.include(token);
    expect(rows[0]!.token_hash).to.equal(createHash('sha256').update(token).digest('hex'));
    const logs = logLines.join('\n');
    expect(logs).to.include('"path":"/v1.0/anything"');
    expect(logs).not.to.include(token);
    expect(logs).not.to.include(TEST_ADMIN_TOKEN);
  });
});

describe('admin API', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('issues a new long random token on every call and updates the owner email', async () => {
    const first = await svc.request('POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'alice', email: 'a@example.com' } });
    expect(first.status).to.equal(201);
    expect(first.body.user_id).to.equal('alice');
    expect(first.body.token).to.be.a('string');
    expect(first.body.token).to.match(/^chp_[A-Za-z0-9_-]{43,}$/);
    const second = await svc.request('POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'alice', email: 'alice@example.org' } });
    expect(second.body.token).to.not.equal(first.body.token);
    for (const t of [first.body.token, second.body.token]) {
      expect((await svc.request('GET', '/v1.0/x', { token: t })).status).to.equal(404);
    }
    const [workspace] = await svc.stores.postgres.query<{ email: string }>('SELECT email FROM workspaces WHERE user_id = $1', ['alice']);
    expect(workspace!.email).to.equal('alice@example.org');
    // Without email the address stays.
    await svc.tokenFor('alice');
    const [again] = await svc.stores.postgres.query<{ email: string }>('SELECT email FROM workspaces WHERE user_id = $1', ['alice']);
    expect(again!.email).to.equal('alice@example.org');
  });

  it('refuses a wrong admin token and a workspace token with 401', async () => {
    const workspaceToken = await svc.tokenFor('bob');
    for (const token of ['wrong-admin-token-xxxxxxxx', workspaceToken]) {
      const res = await svc.request('POST', '/v1.0/admin/tokens', { token, body: { user_id: 'mallory' } });
      expect(res.status).to.equal(401);
    }
    const none = await svc.stores.postgres.query('SELECT 1 FROM workspaces WHERE user_id = $1', ['mallory']);
    expect(none).to.have.length(0);
  });

  it('does not exist without ADMIN_TOKEN', async () => {
    const bare = await startTestService({ env: { ADMIN_TOKEN: '' } });
    try {
      const res = await bare.request('POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'x' } });
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal('not_found');
    } finally {
      await bare.close();
    }
  });
});
