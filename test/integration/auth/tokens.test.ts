import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../../src/auth/tokens.js';
import { storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';

// The official SDKs (chirpier-js, chirpier-py) refuse a key that does not start with chp_.
describe('workspace tokens', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const sendOne = (token: string, event: string) => svc.request('POST', '/v1.0/logs', { token, body: [{ event, value: 1 }] });

  it('are issued as chp_ and at least 256 random bits in base64url, and store logs', async () => {
    const token = await svc.tokenFor('sdk-ws');
    expect(token).to.match(/^chp_[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token.slice('chp_'.length), 'base64url').length * 8).to.be.at.least(256);
    const res = await sendOne(token, 'sdk.sent');
    expect(res.status).to.equal(200);
    expect(await storedLogCount(svc.stores.clickhouse, 'sdk-ws')).to.equal(1);
  });

  it('issued earlier with the alm_ prefix keep working', async () => {
    const oldToken = `alm_${randomBytes(32).toString('base64url')}`;
    await svc.stores.postgres.query('INSERT INTO workspaces (user_id) VALUES ($1)', ['legacy-ws']);
    await svc.stores.postgres.query('INSERT INTO api_tokens (token_hash, user_id, token_prefix) VALUES ($1, $2, $3)', [
      hashToken(oldToken),
      'legacy-ws',
      oldToken.slice(0, 8),
    ]);
    const res = await sendOne(oldToken, 'legacy.sent');
    expect(res.status).to.equal(200);
    expect(await storedLogCount(svc.stores.clickhouse, 'legacy-ws')).to.equal(1);
  });
});
