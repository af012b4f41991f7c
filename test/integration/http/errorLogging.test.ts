// A 500's log line says what failed, with message and stack, and never carries a token
// (issue 7: such lines were logged as "err":{}).
import { expect } from 'chai';
import { capturingLogger } from '../../helpers/logCapture.js';
import { startTestService, TEST_ADMIN_TOKEN } from '../../helpers/service.js';
import { describeError } from '../../../src/logger.js';
import { redactSecretShapes } from '../../../src/redaction.js';
import type { Json } from '../../helpers/http.js';

describe('error logging', () => {
  it("logs a 500's error with its message and stack, and without the request's token", async () => {
    const { logger, lines } = capturingLogger();
    const svc = await startTestService({ logger });
    try {
      const token = await svc.tokenFor('logged-ws');
      expect((await svc.request('GET', '/v1.0/events', { token })).status).to.equal(200);
      await svc.stores.postgres.close();
      const res = await svc.request('GET', '/v1.0/events', { token });
      expect(res.status).to.equal(500);

      const unhandled = lines.map((l) => JSON.parse(l) as Record<string, Json>).filter((l) => l.message === 'unhandled error');
      expect(unhandled).to.have.length(1);
      const { err } = unhandled[0]!;
      expect(err.message).to.be.a('string').and.not.equal('');
      expect(err.stack)
        .to.include(err.message)
        .and.to.match(/\n\s+at /);
      expect(err.name).to.be.a('string');
      for (const line of lines) {
        expect(line).not.to.include(token);
        expect(line).not.to.include(TEST_ADMIN_TOKEN);
      }
    } finally {
      await svc.close();
    }
  });

  it('keeps only the safe fields of an error, and abbreviates secrets quoted in its text', () => {
    const token = `chp_${'x'.repeat(43)}`;
    const err = Object.assign(new Error(`refused https://user:hunter2@example.com/services/T0/B0/s3cr3t with Bearer ${token}`), {
      code: 'E_TEST',
      options: { headers: { authorization: `Bearer ${token}` } },
      cause: new Error(`bot token https://api.telegram.org/bot123:ABCsecret/sendMessage`),
    });
    const described = describeError(err);
    const text = JSON.stringify(described);
    expect(Object.keys(described).sort()).to.deep.equal(['cause', 'code', 'message', 'name', 'stack']);
    for (const secret of [token, 'hunter2', 's3cr3t', 'ABCsecret']) expect(text).not.to.include(secret);
    expect(described.message).to.equal('refused https://user:…@example.com/services/T0/B0/… with Bearer …');
    expect(redactSecretShapes(`token ${token}.`)).to.equal('token chp_….');
  });
});
