// /v1.0/alert-sources: the resource's life (create with its defaults, every item listed, PUT
// of what was read, DELETE), inhibition rules parsed as Alertmanager's matchers (400 naming
// the path, nothing stored), catastrophic and oversized regexes, bounds, another workspace's
// ids; and what names a source: scope "policies" destinations, escalation policies.
import { expect } from 'chai';
import { newId } from '../../../src/ids.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('alert sources (routes)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let escalationId: string;
  let otherEscalationId: string;
  const path = '/v1.0/alert-sources';

  async function escalationPolicy(tok: string): Promise<string> {
    const dest = await svc.request('POST', '/v1.0/destinations', { token: tok, body: { channel: 'webhook', url: 'https://example.com/hook' } });
    const res = await svc.request('POST', '/v1.0/escalation-policies', {
      token: tok,
      body: { name: 'Night', steps: [{ after_minutes: 5, destination_ids: [dest.body.destination_id] }] },
    });
    expect(res.status, res.text).to.equal(201);
    return res.body.escalation_policy_id;
  }

  before(async function () {
    // Starting the service (the embedded ClickHouse first of all) can take minutes on a loaded machine.
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('sources-ws');
    otherToken = await svc.tokenFor('sources-other');
    escalationId = await escalationPolicy(token);
    otherEscalationId = await escalationPolicy(otherToken);
  });
  after(() => svc.close());

  const list = async (tok = token) => (await svc.request<{ alert_source_id: string }[]>('GET', path, { token: tok })).body;
  const create = async (body: Record<string, unknown>, tok = token) => {
    const res = await svc.request('POST', path, { token: tok, body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  it('creates with the defaults, reads, lists every item, takes back what it read, and deletes', async () => {
    const created = await create({ name: 'Prometheus, production' });
    expect(created).to.include({
      name: 'Prometheus, production',
      severity_label: 'severity',
      default_severity: 'error',
      escalation_policy_id: null,
      renotify_minutes: null,
      resolve_timeout_minutes: 5,
    });
    expect(created.inhibit_rules).to.deep.equal([]);
    expect(created.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const id = created.alert_source_id;
    expect((await svc.request('GET', `${path}/${id}`, { token })).body).to.deep.equal(created);

    const second = await create({
      name: 'vmalert',
      severity_label: 'priority',
      default_severity: 'warning',
      escalation_policy_id: escalationId.toUpperCase(),
      renotify_minutes: 60,
      resolve_timeout_minutes: 1440,
    });
    expect(second).to.include({ severity_label: 'priority', default_severity: 'warning', escalation_policy_id: escalationId, renotify_minutes: 60 });
    // Every item without limit, newest first; limit and offset page.
    const ids = (await list()).map((s) => s.alert_source_id);
    expect(ids.slice(0, 2)).to.deep.equal([second.alert_source_id, id]);
    const page = await svc.request('GET', `${path}?limit=1&offset=1`, { token });
    expect(page.body.map((s: { alert_source_id: string }) => s.alert_source_id)).to.deep.equal([id]);

    const renamed = await svc.request('PUT', `${path}/${id}`, { token, body: { name: 'Prometheus, eu', resolve_timeout_minutes: 10 } });
    expect(renamed.status, renamed.text).to.equal(200);
    expect(renamed.body).to.include({ name: 'Prometheus, eu', resolve_timeout_minutes: 10, severity_label: 'severity' });
    const readBack = await svc.request('PUT', `${path}/${id}`, { token, body: { ...renamed.body, alert_source_id: newId(), user_id: 'x' } });
    expect(readBack.status, readBack.text).to.equal(200);
    expect({ ...readBack.body, updated_at: null }).to.deep.equal({ ...renamed.body, updated_at: null });
    // null clears what may be null.
    const cleared = await svc.request('PUT', `${path}/${second.alert_source_id}`, { token, body: { escalation_policy_id: null, renotify_minutes: null } });
    expect(cleared.body).to.include({ escalation_policy_id: null, renotify_minutes: null, name: 'vmalert' });

    expect((await svc.request('DELETE', `${path}/${id}`, { token })).status).to.equal(204);
    expect((await svc.request('GET', `${path}/${id}`, { token })).status).to.equal(404);
    expect((await svc.request('DELETE', `${path}/${id}`, { token })).status).to.equal(404);
  });

  it('parses inhibition rules as Alertmanager’s matchers and shows one matcher per item', async () => {
    const created = await create({
      name: 'with rules',
      inhibit_rules: [
        {
          source_matchers: ['alertname="NodeDown"', '{severity=~"critical|page", "service.name"!="batch"}'],
          target_matchers: ['severity = warning'],
          equal: ['instance', 'job', 'instance'],
        },
        { source_matchers: ['alertname=~"(a+)+$"'], target_matchers: ['team!~"db|infra"'] },
      ],
    });
    expect(created.inhibit_rules).to.deep.equal([
      {
        source_matchers: ['alertname="NodeDown"', 'severity=~"critical|page"', '"service.name"!="batch"'],
        target_matchers: ['severity="warning"'],
        equal: ['instance', 'job'],
      },
      { source_matchers: ['alertname=~"(a+)+$"'], target_matchers: ['team!~"db|infra"'], equal: [] },
    ]);
    // What it shows parses back to the same rules.
    const again = await svc.request('PUT', `${path}/${created.alert_source_id}`, { token, body: { inhibit_rules: created.inhibit_rules } });
    expect(again.body.inhibit_rules).to.deep.equal(created.inhibit_rules);
  });

  it('refuses bad input with 400 naming the path and the code, and stores nothing', async () => {
    const before = (await list()).length;
    const rule = (source: unknown, target: unknown = ['a="b"']) => ({ name: 'x', inhibit_rules: [{ source_matchers: source, target_matchers: target }] });
    const heavy = (i: number) => `x=~"${'[a-z]{1000}'.repeat(9)}${i}"`;
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, '', 'validation_failed'],
      [{ name: '  ' }, '/name', 'validation_failed'],
      [{ name: 'x'.repeat(201) }, '/name', 'validation_failed'],
      [{ name: 'x', resolve_timeout_minutes: 0 }, '/resolve_timeout_minutes', 'validation_failed'],
      [{ name: 'x', resolve_timeout_minutes: 1441 }, '/resolve_timeout_minutes', 'validation_failed'],
      [{ name: 'x', resolve_timeout_minutes: 1.5 }, '/resolve_timeout_minutes', 'validation_failed'],
      [{ name: 'x', resolve_timeout_minutes: '5' }, '/resolve_timeout_minutes', 'validation_failed'],
      [{ name: 'x', renotify_minutes: 0 }, '/renotify_minutes', 'validation_failed'],
      [{ name: 'x', severity_label: '' }, '/severity_label', 'validation_failed'],
      [{ name: 'x', default_severity: 'fatal' }, '/default_severity', 'validation_failed'],
      [{ name: 'x', escalation_policy_id: 'nope' }, '/escalation_policy_id', 'validation_failed'],
      [{ name: 'x', nmae: 'typo' }, '', 'validation_failed'],
      [{ name: 'x', inhibit_rules: [{ source_matchers: ['a="b"'] }] }, '/inhibit_rules/0/target_matchers', 'validation_failed'],
      [rule([]), '/inhibit_rules/0/source_matchers', 'validation_failed'],
      [rule([''], ['a="b"']), '/inhibit_rules/0/source_matchers/0', 'validation_failed'],
      [rule(['a="b"', 'job="value']), '/inhibit_rules/0/source_matchers/1', 'invalid_matcher'],
      [rule(['a="b"'], ['not a matcher']), '/inhibit_rules/0/target_matchers/0', 'invalid_matcher'],
      [rule(['{}']), '/inhibit_rules/0/source_matchers', 'validation_failed'],
      [rule(['a=~"invalid[regexp"']), '/inhibit_rules/0/source_matchers/0', 'invalid_matcher_regex'],
      [rule(['a=~"(a)\\\\1"']), '/inhibit_rules/0/source_matchers/0', 'invalid_matcher_regex'],
      [rule([`a=~"${'[a-z]{1000}'.repeat(11)}"`]), '/inhibit_rules/0/source_matchers/0', 'invalid_matcher_regex'],
      [rule([Array.from({ length: 21 }, (_, i) => `l${i}="v"`).join(',')]), '/inhibit_rules/0/source_matchers', 'validation_failed'],
      [
        { name: 'x', inhibit_rules: [{ source_matchers: ['a="b"'], target_matchers: ['c="d"'], equal: [''] }] },
        '/inhibit_rules/0/equal/0',
        'validation_failed',
      ],
      // The regexes of one request together: each is fine, twelve are too much to compile.
      [
        { name: 'x', inhibit_rules: Array.from({ length: 12 }, (_, i) => ({ source_matchers: [heavy(i)], target_matchers: ['a="b"'] })) },
        '/inhibit_rules/11/source_matchers/0',
        'invalid_matcher_regex',
      ],
      // The bound on rules: 100.
      [
        { name: 'x', inhibit_rules: Array.from({ length: 1000 }, () => ({ source_matchers: ['a="b"'], target_matchers: ['c="d"'] })) },
        '/inhibit_rules',
        'validation_failed',
      ],
      [
        { name: 'x', inhibit_rules: Array.from({ length: 101 }, () => ({ source_matchers: ['a="b"'], target_matchers: ['c="d"'] })) },
        '/inhibit_rules',
        'validation_failed',
      ],
    ];
    for (const [body, field, code] of cases) {
      const res = await svc.request('POST', path, { token, body });
      const what = `${JSON.stringify(body).slice(0, 120)} → ${res.text.slice(0, 300)}`;
      expect(res.status, what).to.equal(400);
      expect(res.body.error.code, what).to.equal(code);
      if (field !== '')
        expect(
          res.body.error.details.map((d: { path: string }) => d.path),
          what,
        ).to.include(field);
    }
    // Every bad matcher of a request is named at once.
    const both = await svc.request('POST', path, { token, body: rule(['a="b', 'c=~"("'], ['x']) });
    expect(both.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal([
      '/inhibit_rules/0/source_matchers/0',
      '/inhibit_rules/0/source_matchers/1',
      '/inhibit_rules/0/target_matchers/0',
    ]);
    // 100 rules of RE2's catastrophic patterns are fine: they compile, and match in linear time.
    const many = await create({
      name: 'hundred',
      inhibit_rules: Array.from({ length: 100 }, (_, i) => ({ source_matchers: [`a=~"(a+)+$${i}"`], target_matchers: ['b=~"(x|x)*y"'], equal: ['job'] })),
    });
    expect(many.inhibit_rules).to.have.length(100);
    await svc.request('DELETE', `${path}/${many.alert_source_id}`, { token });
    expect((await list()).length).to.equal(before);
  });

  it('refuses huge, deeply nested and malformed bodies, changing nothing', async () => {
    const before = (await list()).length;
    const nested = `{"name": "x", "inhibit_rules": [{"source_matchers": ${'['.repeat(5000)}"a=b"${']'.repeat(5000)}, "target_matchers": ["a=b"]}]}`;
    const huge = JSON.stringify({ name: 'x', inhibit_rules: [{ source_matchers: ['a="b"'], target_matchers: [`c="${'v'.repeat(1_100_000)}"`] }] });
    const answers = [
      await svc.request('POST', path, { token, rawBody: nested, headers: { 'content-type': 'application/json' } }),
      await svc.request('POST', path, { token, rawBody: huge, headers: { 'content-type': 'application/json' } }),
      await svc.request('POST', path, { token, rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } }),
      await svc.request('POST', path, { token, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }),
      await svc.request('POST', path, { token, body: [{ name: 'x' }] }),
    ];
    expect(answers.map((a) => a.status)).to.deep.equal([400, 413, 400, 415, 400]);
    expect((await list()).length).to.equal(before);
  });

  it('keeps each workspace’s sources and escalation policies to itself', async () => {
    const mine = await create({ name: 'mine' });
    const theirs = await create({ name: 'theirs' }, otherToken);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'taken' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await svc.request(method, `${path}/${theirs.alert_source_id}`, { token, body })).status, method).to.equal(404);
    }
    expect((await svc.request('GET', `${path}/${theirs.alert_source_id}`, { token: otherToken })).body.name).to.equal('theirs');
    expect((await list()).map((s) => s.alert_source_id)).not.to.include(theirs.alert_source_id);
    expect((await svc.request('GET', `${path}/not-a-uuid`, { token })).status).to.equal(400);

    const refused = await svc.request('POST', path, { token, body: { name: 'x', escalation_policy_id: otherEscalationId } });
    expect(refused.status, refused.text).to.equal(404);
    expect((await svc.request('POST', path, { token, body: { name: 'x', escalation_policy_id: newId() } })).status).to.equal(404);
    const put = await svc.request('PUT', `${path}/${mine.alert_source_id}`, { token, body: { name: 'changed', escalation_policy_id: otherEscalationId } });
    expect(put.status).to.equal(404);
    expect((await svc.request('GET', `${path}/${mine.alert_source_id}`, { token })).body).to.deep.equal(mine);
  });

  it('may be named by scope "policies" destinations, only in its own workspace', async () => {
    const source = await create({ name: 'routed' });
    const theirs = await create({ name: 'theirs' }, otherToken);
    const body = (ids: string[]) => ({ channel: 'webhook', url: 'https://example.com/routed', scope: 'policies', policy_ids: ids });
    const made = await svc.request('POST', '/v1.0/destinations', { token, body: body([source.alert_source_id]) });
    expect(made.status, made.text).to.equal(201);
    expect(made.body.policy_ids).to.deep.equal([source.alert_source_id]);
    const refused = await svc.request('POST', '/v1.0/destinations', { token, body: body([source.alert_source_id, theirs.alert_source_id]) });
    expect(refused.status).to.equal(400);
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['/policy_ids/1']);
    const put = await svc.request('PUT', `/v1.0/destinations/${made.body.destination_id}`, { token, body: { policy_ids: [theirs.alert_source_id] } });
    expect(put.status).to.equal(400);
    expect((await svc.request('GET', `/v1.0/destinations/${made.body.destination_id}`, { token })).body.policy_ids).to.deep.equal([source.alert_source_id]);
  });

  it('keeps an escalation policy a source names from being deleted (409), until it names none', async () => {
    const esc = await escalationPolicy(token);
    const source = await create({ name: 'escalating', escalation_policy_id: esc });
    const refused = await svc.request('DELETE', `/v1.0/escalation-policies/${esc}`, { token });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('escalation_policy_in_use');
    expect(refused.body.error.message).to.include(source.alert_source_id);
    await svc.request('PUT', `${path}/${source.alert_source_id}`, { token, body: { escalation_policy_id: null } });
    expect((await svc.request('DELETE', `/v1.0/escalation-policies/${esc}`, { token })).status).to.equal(204);
  });

  it('creates once for a retried Idempotency-Key', async () => {
    const before = (await list()).length;
    const send = (name: string) => svc.request('POST', path, { token, body: { name }, headers: { 'idempotency-key': 'source-once' } });
    const first = await send('once');
    const retry = await send('once');
    expect([first.status, retry.status]).to.deep.equal([201, 201]);
    expect(retry.body).to.deep.equal(first.body);
    expect((await send('another')).status).to.equal(422);
    expect((await list()).length).to.equal(before + 1);
  });
});
