// Escalation chains on the real engines, through real dispatch to a local fake: the steps go
// out at their minutes (a test clock drives the escalation cycles), each exactly once, to
// their own destinations, and stop when the alert is acknowledged, also racing a due step.
import { expect } from 'chai';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';
import { createEscalationPolicy, createWebhook, cycleAt, ESCALATION_TEST_ENV, escalatingPolicy, escalationsOf, MINUTE, raise } from './helpers.js';

describe('escalation chains', function () {
  this.timeout(120_000);
  let svc: TestService;
  let sinkA: FakeHttpServer;
  let sinkB: FakeHttpServer;
  let token: string;
  let destA: string;
  let destB: string;

  before(async function () {
    // Starting the service (the embedded ClickHouse first of all) can take minutes on a loaded machine.
    this.timeout(600_000);
    sinkA = await FakeHttpServer.start();
    sinkB = await FakeHttpServer.start();
    svc = await startTestService({ env: ESCALATION_TEST_ENV });
    token = await svc.tokenFor('escalation-ws');
    destA = await createWebhook(svc, token, `${sinkA.origin}/first`);
    destB = await createWebhook(svc, token, `${sinkB.origin}/second`);
  });
  after(async () => {
    await svc.close();
    await sinkA.close();
    await sinkB.close();
  });

  const positions = async (alertId: string) => (await escalationsOf(svc, alertId)).map((r) => r.alert.escalation);
  const escalatedTo = (sink: FakeHttpServer, alertId: string) =>
    sink.requests.filter((r) => r.json?.type === 'alert.escalated' && r.json.alert.alert_id === alertId);

  it('sends step 1, step 2, step 1, step 2 of a 2-step chain with repeat 1 at their minutes, to their own destinations, and nothing after', async () => {
    const policyId = await escalatingPolicy(
      svc,
      token,
      await createEscalationPolicy(
        svc,
        token,
        [
          [1, [destA]],
          [2, [destB]],
        ],
        1,
      ),
    );
    const alert = await raise(svc, token, policyId);

    await cycleAt(svc, alert, MINUTE - 1);
    expect(await positions(alert.alert_id)).to.deep.equal([]);
    await cycleAt(svc, alert, MINUTE);
    expect(await positions(alert.alert_id)).to.deep.equal([{ step: 1, of: 2, round: 1 }]);
    // Step 2 is 2 minutes after step 1.
    await cycleAt(svc, alert, 3 * MINUTE - 1);
    expect(await positions(alert.alert_id)).to.have.length(1);
    await cycleAt(svc, alert, 3 * MINUTE);
    // Then the chain again from step 1 (1 minute later), and step 2 (2 minutes after that).
    await cycleAt(svc, alert, 4 * MINUTE - 1);
    expect(await positions(alert.alert_id)).to.have.length(2);
    await cycleAt(svc, alert, 4 * MINUTE);
    await cycleAt(svc, alert, 6 * MINUTE - 1);
    expect(await positions(alert.alert_id)).to.have.length(3);
    await cycleAt(svc, alert, 6 * MINUTE);
    await cycleAt(svc, alert, 60 * MINUTE);
    await cycleAt(svc, alert, 600 * MINUTE);
    expect(await positions(alert.alert_id)).to.deep.equal([
      { step: 1, of: 2, round: 1 },
      { step: 2, of: 2, round: 1 },
      { step: 1, of: 2, round: 2 },
      { step: 2, of: 2, round: 2 },
    ]);

    // Delivered through the outbox and the delivery worker: step 1 to A only, step 2 to B only.
    const atA = await waitFor('both step 1 at A', async () => (escalatedTo(sinkA, alert.alert_id).length === 2 ? escalatedTo(sinkA, alert.alert_id) : null));
    const atB = await waitFor('both step 2 at B', async () => (escalatedTo(sinkB, alert.alert_id).length === 2 ? escalatedTo(sinkB, alert.alert_id) : null));
    expect(atA.map((r) => r.json.escalation)).to.deep.equal([
      { step: 1, of: 2, round: 1 },
      { step: 1, of: 2, round: 2 },
    ]);
    expect(atB.map((r) => r.json.escalation)).to.deep.equal([
      { step: 2, of: 2, round: 1 },
      { step: 2, of: 2, round: 2 },
    ]);
    // The webhook body: the alert as the API shows it with its acknowledge link, and the step beside it.
    expect(atA[0]!.json.alert).to.include({ alert_id: alert.alert_id, status: 'triggered' });
    expect(atA[0]!.json.alert.ack_url).to.match(new RegExp(`^${svc.url}/ack/${alert.alert_id}\\?token=[A-Za-z0-9_-]{32,}$`));
    expect(atA[0]!.json.alert).to.not.have.property('ack_token');
    expect(atA[0]!.headers['webhook-signature']).to.match(/^v1,/);

    // Every step is in the alert's delivery history, kind alert.
    const history = await waitFor('4 delivered steps in the history', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
      const steps = res.body.filter((d: { type: string; status: string }) => d.type === 'alert.escalated' && d.status === 'delivered');
      return steps.length === 4 ? steps : null;
    });
    expect(history.every((d: { kind: string }) => d.kind === 'alert')).to.equal(true);
    // Each names its step (attempts written in one dispatch share a time: no order asked); the triggered notification names none.
    expect(history.map((d: { escalation: unknown }) => d.escalation)).to.have.deep.members([
      { step: 2, of: 2, round: 2 },
      { step: 1, of: 2, round: 2 },
      { step: 2, of: 2, round: 1 },
      { step: 1, of: 2, round: 1 },
    ]);
    const whole = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
    for (const d of whole.body.filter((a: { type: string }) => a.type !== 'alert.escalated')) expect(d.escalation).to.equal(null);
  });

  it('stops when the alert is acknowledged between steps', async () => {
    const policyId = await escalatingPolicy(
      svc,
      token,
      await createEscalationPolicy(
        svc,
        token,
        [
          [1, [destA]],
          [1, [destB]],
        ],
        3,
      ),
    );
    const alert = await raise(svc, token, policyId);
    await cycleAt(svc, alert, MINUTE);
    expect(await positions(alert.alert_id)).to.have.length(1);
    expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/acknowledge`, { token })).status).to.equal(200);
    for (let m = 2; m <= 20; m++) await cycleAt(svc, alert, m * MINUTE);
    expect(await positions(alert.alert_id)).to.have.length(1);
  });

  it('stops when the alert is resolved or archived', async () => {
    for (const action of ['resolve', 'archive']) {
      const policyId = await escalatingPolicy(svc, token, await createEscalationPolicy(svc, token, [[1, [destA]]], 5));
      const alert = await raise(svc, token, policyId);
      expect((await svc.request('POST', `/v1.0/alerts/${alert.alert_id}/${action}`, { token })).status).to.equal(200);
      for (let m = 1; m <= 10; m++) await cycleAt(svc, alert, m * MINUTE);
      expect(await positions(alert.alert_id), action).to.deep.equal([]);
    }
  });

  it('never writes a step after an acknowledgement that raced it committed (many rounds)', async () => {
    const escalationPolicyId = await createEscalationPolicy(
      svc,
      token,
      [
        [1, [destA]],
        [1, [destA]],
      ],
      10,
    );
    let sentBeforeAck = 0;
    for (let round = 0; round < 25; round++) {
      const policyId = await escalatingPolicy(svc, token, escalationPolicyId);
      const alert = await raise(svc, token, policyId);
      // The step is due; the acknowledgement and the cycle start together.
      const [ack, cycle] = await Promise.all([
        svc.request('POST', `/v1.0/alerts/${alert.alert_id}/acknowledge`, { token }),
        cycleAt(svc, alert, MINUTE + round),
      ]);
      expect(ack.status).to.equal(200);
      const written = await escalationsOf(svc, alert.alert_id);
      // At most the one step that was due, and only if it was written while the alert was still triggered.
      expect(written.length).to.be.at.most(1);
      expect(cycle.sent).to.equal(written.length);
      for (const row of written) expect(row.alert).to.include({ status: 'triggered', acknowledged_at: null });
      sentBeforeAck += written.length;
      // Nothing after the acknowledgement committed, however long the chain would run.
      for (let m = 2; m <= 30; m += 4) await cycleAt(svc, alert, m * MINUTE);
      expect(await escalationsOf(svc, alert.alert_id)).to.have.length(written.length);
    }
    // Both orders happen across the rounds on a server; on the embedded store one connection serializes them.
    expect(sentBeforeAck).to.be.at.most(25);
  });

  it('records a step inside a silence as silenced, and the chain goes on', async () => {
    const policyId = await escalatingPolicy(
      svc,
      token,
      await createEscalationPolicy(svc, token, [
        [1, [destA]],
        [1, [destB]],
      ]),
    );
    const alert = await raise(svc, token, policyId);
    const silence = await svc.request('POST', '/v1.0/silences', {
      token,
      body: { policy_ids: [policyId], ends_at: new Date(Date.now() + 3_600_000).toISOString(), comment: 'maintenance' },
    });
    expect(silence.status, silence.text).to.equal(201);
    await cycleAt(svc, alert, MINUTE);
    await cycleAt(svc, alert, 2 * MINUTE);
    expect(await positions(alert.alert_id)).to.deep.equal([
      { step: 1, of: 2, round: 1 },
      { step: 2, of: 2, round: 1 },
    ]);
    const steps = await waitFor('two silenced steps', async () => {
      const res = await svc.request('GET', `/v1.0/alerts/${alert.alert_id}/deliveries`, { token });
      const found = res.body.filter((d: { type: string }) => d.type === 'alert.escalated');
      return found.length === 2 ? found : null;
    });
    expect(steps.map((d: { status: string }) => d.status)).to.deep.equal(['silenced', 'silenced']);
    expect(escalatedTo(sinkA, alert.alert_id).concat(escalatedTo(sinkB, alert.alert_id))).to.deep.equal([]);
  });

  it('writes each step once when several workers run cycles at the same instant', async () => {
    const policyId = await escalatingPolicy(
      svc,
      token,
      await createEscalationPolicy(
        svc,
        token,
        [
          [1, [destA]],
          [1, [destA]],
        ],
        2,
      ),
    );
    const alert = await raise(svc, token, policyId);
    for (let m = 1; m <= 8; m++) await Promise.all([cycleAt(svc, alert, m * MINUTE), cycleAt(svc, alert, m * MINUTE), cycleAt(svc, alert, m * MINUTE)]);
    expect(await positions(alert.alert_id)).to.deep.equal([
      { step: 1, of: 2, round: 1 },
      { step: 2, of: 2, round: 1 },
      { step: 1, of: 2, round: 2 },
      { step: 2, of: 2, round: 2 },
      { step: 1, of: 2, round: 3 },
      { step: 2, of: 2, round: 3 },
    ]);
  });
});
