import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { hashToken, issueToken, TokenAuthenticator } from '../../../src/auth/tokens.js';
import type { Queryable } from '../../../src/stores/postgres.js';
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

  it('looked up by many requests at once, are read from Postgres once', async () => {
    let lookups = 0;
    const counted: Queryable = {
      query: (text, params) => {
        lookups++;
        return svc.stores.postgres.query(text, params);
      },
    };
    const authenticator = new TokenAuthenticator(counted);
    const { token } = await issueToken(svc.stores.postgres, 'crowd-ws', undefined);
    const answers = await Promise.all(Array.from({ length: 50 }, () => authenticator.authenticate(token)));
    expect(answers).to.deep.equal(Array(50).fill('crowd-ws'));
    expect(lookups).to.equal(1);

    // An unknown token is shared while looked up, never remembered: once issued, it works.
    const later = `chp_${randomBytes(32).toString('base64url')}`;
    expect(await Promise.all([authenticator.authenticate(later), authenticator.authenticate(later)])).to.deep.equal([null, null]);
    expect(lookups).to.equal(2);
    await svc.stores.postgres.query('INSERT INTO api_tokens (token_hash, user_id, token_prefix) VALUES ($1, $2, $3)', [
      hashToken(later),
      'crowd-ws',
      later.slice(0, 8),
    ]);
    expect(await authenticator.authenticate(later)).to.equal('crowd-ws');
  });
});
