// A kill -9 of the service between a firing post and its notification: the post's 200 means
// the alert and its outbox row are committed together, so the next process sends the
// notification, once; the sender's re-post after the restart notifies nothing more.
import { expect } from 'chai';
import { startServiceProcess } from '../../../scripts/lib/serviceProcess.js';
import { labelsFingerprint } from '../../../src/labels/labels.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { request } from '../../helpers/http.js';
import { TEST_ADMIN_TOKEN } from '../../helpers/service.js';
import { freshProcessEnv } from '../../helpers/stores.js';
import { waitFor } from '../../helpers/waitFor.js';

describe('received alerts across a kill -9 of the service', function () {
  this.timeout(240_000);

  it('sends the notification of a committed post once, after the restart', async () => {
    const sink = await FakeHttpServer.start();
    const env = { ...(await freshProcessEnv()), ALLOW_PRIVATE_TARGETS: '1', ADMIN_TOKEN: TEST_ADMIN_TOKEN, EVAL_INTERVAL_MS: '86400000' };
    // First an API process only: nothing would send the notification before the kill.
    const api = await startServiceProcess({ env: { ...env, ROLE: 'api' } });
    const tokenRes = await request(api.url, 'POST', '/v1.0/admin/tokens', { token: TEST_ADMIN_TOKEN, body: { user_id: 'am-kill-ws' } });
    expect(tokenRes.status, tokenRes.text).to.equal(201);
    const token: string = tokenRes.body.token;
    const source = await request(api.url, 'POST', '/v1.0/alert-sources', { token, body: { name: 'Prometheus' } });
    const dest = await request(api.url, 'POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(dest.status, dest.text).to.equal(201);
    const path = `/alertmanager/${source.body.alert_source_id}/api/v2/alerts`;
    const labels = { alertname: 'Crash', instance: 'k1' };
    const startsAt = new Date().toISOString();
    expect((await request(api.url, 'POST', path, { token, body: [{ labels, startsAt }] })).status).to.equal(200);
    await api.kill();

    const all = await startServiceProcess({ env: { ...env, ROLE: 'all' } });
    try {
      const [sent] = await sink.waitForRequests(1, 60_000);
      expect(sent!.json.type).to.equal('alert.triggered');
      expect(sent!.json.alert.fingerprint).to.equal(labelsFingerprint(labels));
      // The sender re-sends (its next cycle): nothing more.
      expect((await request(all.url, 'POST', path, { token, body: [{ labels, startsAt }] })).status).to.equal(200);
      const history = await waitFor('the delivery recorded', async () => {
        const res = await request(all.url, 'GET', `/v1.0/alerts/${sent!.json.alert.alert_id}/deliveries`, { token });
        return res.body.some((a: { status: string }) => a.status === 'delivered') ? res.body : null;
      });
      expect(history.map((a: { status: string }) => a.status)).to.deep.equal(['delivered']);
      expect(sink.requests).to.have.length(1);
    } finally {
      expect(await all.stop()).to.equal(0);
      await sink.close();
    }
  });
});
