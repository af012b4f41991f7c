// Alerting as code (docs/as-code.md): export, plan and apply, on a workspace holding one object of
// every kind with every field set. Export → plan has no changes; apply creates, updates field
// by field and, with prune, deletes; an invalid object anywhere refuses the whole document;
// drift is 409; secrets are never exported and survive a round trip; racing applies.
import { expect } from 'chai';
import { parse } from 'yaml';
import { KEYED_KINDS } from '../../../src/ascode/keys.js';
import { configDocumentSchema } from '../../../src/http/config/schemas.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { makeEvents, makeFixture, type Fixture } from './fixture.js';

import type { Json } from '../../helpers/http.js';

type Doc = Json;

describe('alerting as code: export, plan, apply', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;
  let fixture: Fixture;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('ascode-ws');
    fixture = await makeFixture(svc, token);
  });
  after(async () => svc?.close());

  const exportDoc = async (as = token): Promise<Doc> => {
    const res = await svc.request('GET', '/v1.0/config', { token: as });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const plan = (doc: unknown, as = token, query = '') => svc.request('POST', `/v1.0/config/plan${query}`, { token: as, body: doc });
  const apply = (doc: unknown, as = token, query = '') => svc.request('POST', `/v1.0/config/apply${query}`, { token: as, body: doc });
  /** Everything the API answers about the workspace's configuration, for "nothing changed". */
  const everything = async (as = token) => {
    const paths = [
      '/v1.0/destinations',
      '/v1.0/people',
      '/v1.0/schedules',
      '/v1.0/escalation-policies',
      '/v1.0/alert-sources',
      '/v1.0/policies',
      '/v1.0/silences',
      '/v1.0/dimensions',
    ];
    const lists = await Promise.all(paths.map(async (p) => (await svc.request('GET', p, { token: as })).body));
    // A declaration's backfill moves on by itself.
    return JSON.stringify(lists, (k, v) => (k === 'active' || k === 'backfill' ? undefined : v));
  };

  it('exports every kind, and every field of each kind, with no ids, timestamps or secrets', async () => {
    const doc = await exportDoc();
    const kinds = ['dimensions', ...Object.keys(KEYED_KINDS)];
    expect(Object.keys(doc).sort()).to.deep.equal(['version', ...kinds].sort());
    const secretOrOptional = new Set(['url', 'credentials']);
    for (const kind of kinds) {
      expect(doc[kind], kind).to.have.length.greaterThan(0);
      const item = (configDocumentSchema.properties as Json)[kind].items;
      const fields = new Set(doc[kind].flatMap((o: object) => Object.keys(o)));
      for (const field of Object.keys(item.properties)) if (!secretOrOptional.has(field)) expect([...fields], `${kind}.${field}`).to.include(field);
    }
    const text = JSON.stringify(doc);
    expect(text).not.to.match(/_id"|created_at|updated_at/);
    expect(text).not.to.include('fixture-secret');
    expect(text).not.to.include('abcdefghijklmnop');
    expect(text).not.to.include('hooks.slack.com');
    expect(doc.policies.find((p: Doc) => p.key === 'checkout-slow').event_definition).to.deep.equal({ agent: 'web', event: 'checkout.latency_ms' });
    expect(doc.destinations.find((d: Doc) => d.key === 'ops-hook').policies).to.deep.equal(['checkout-slow']);
    expect(doc.destinations.find((d: Doc) => d.key === 'ops-hook').alert_sources).to.deep.equal(['prometheus']);
    expect(doc.dimensions).to.deep.equal([{ event: 'checkout.latency_ms', keys: ['route', 'code'] }]);
  });

  it('export → plan has no changes; export → apply → export is identical (JSON and YAML)', async () => {
    const doc = await exportDoc();
    const planned = await plan(doc);
    expect(planned.status, planned.text).to.equal(200);
    expect(planned.body.changes).to.deep.equal([]);
    expect(planned.body.unmanaged).to.deep.equal([]);
    const applied = await apply(doc);
    expect(applied.status, applied.text).to.equal(200);
    expect(applied.body.changes).to.deep.equal([]);
    expect(await exportDoc()).to.deep.equal(doc);

    const yaml = await svc.request('GET', '/v1.0/config', { token, headers: { Accept: 'application/yaml' } });
    expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(parse(yaml.text)).to.deep.equal(doc);
    const yamlPlan = await svc.request('POST', '/v1.0/config/plan', { token, rawBody: yaml.text, headers: { 'Content-Type': 'application/yaml' } });
    expect(yamlPlan.status, yamlPlan.text).to.equal(200);
    expect(yamlPlan.body.changes).to.deep.equal([]);
  });

  it('applies the export to another workspace (secrets given as values): its export is the same', async () => {
    const other = await svc.tokenFor('ascode-copy-ws');
    await makeEvents(svc, other);
    const doc = await exportDoc();
    const withSecrets = {
      ...doc,
      destinations: doc.destinations.map((d: Doc) => (d.key === 'ops-slack' ? { ...d, url: fixture.slackUrl } : d)),
    };
    const applied = await apply(withSecrets, other);
    expect(applied.status, applied.text).to.equal(200);
    expect(applied.body.changes.every((c: Doc) => c.action === 'create')).to.equal(true);
    // Every kind, a second policy and a second destination, and the dimension.
    expect(applied.body.changes).to.have.length(Object.values(KEYED_KINDS).length + 3);
    expect(await exportDoc(other)).to.deep.equal(doc);
    expect((await plan(withSecrets, other)).body.changes).to.deep.equal([]);
  });

  it('plans and applies a change field by field, and keeps the secrets the document leaves out', async () => {
    const doc = await exportDoc();
    const edited = {
      ...doc,
      policies: doc.policies.map((p: Doc) => (p.key === 'checkout-slow' ? { ...p, threshold: 25, description: 'changed' } : p)),
    };
    const planned = await plan(edited);
    expect(planned.body.changes).to.deep.equal([{ kind: 'policies', key: 'checkout-slow', action: 'update', fields: ['description', 'threshold'] }]);
    const applied = await apply({ ...edited, expected_version: planned.body.version });
    expect(applied.status, applied.text).to.equal(200);
    const policy = (await svc.request('GET', `/v1.0/policies/${fixture.ids.policy}`, { token })).body;
    expect([policy.threshold, policy.description, policy.policy_id]).to.deep.equal([25, 'changed', fixture.ids.policy]);
    // The secrets were left out of every document applied: still there.
    const slack = (await svc.request('GET', `/v1.0/destinations/${fixture.ids.slack}`, { token })).body;
    expect(slack.url).to.be.a('string').and.to.include('hooks.slack.com');
    const hook = (await svc.request('GET', `/v1.0/destinations/${fixture.ids.hook}`, { token })).body;
    expect(hook.credentials.authorization).to.match(/^Bear/);
    expect((await plan(edited)).body.changes).to.deep.equal([]);
  });

  it("resets a policy's evaluation as a PUT would: a new threshold keeps its progress, a new period restarts it", async () => {
    const pg = svc.stores.postgres;
    const progress = async () =>
      (
        await pg.query<{ e: Date | null; run: number }>('SELECT evaluated_until AS e, breach_run AS run FROM policies WHERE policy_id = $1', [
          fixture.ids.policy,
        ])
      )[0]!;
    await pg.query("UPDATE policies SET evaluated_until = now() - interval '1 hour', breach_run = 2 WHERE policy_id = $1", [fixture.ids.policy]);
    const doc = await exportDoc();
    const edit = (fields: Doc) => ({ ...doc, policies: doc.policies.map((p: Doc) => (p.key === 'checkout-slow' ? { ...p, ...fields } : p)) });
    expect((await apply(edit({ description: 'only words' }))).status).to.equal(200);
    expect(await progress())
      .to.include({ run: 2 })
      .and.to.have.property('e').that.is.not.null;
    expect((await apply(edit({ description: 'only words', threshold: 30 }))).status).to.equal(200);
    const rejudged = await progress();
    expect([rejudged.run, rejudged.e === null]).to.deep.equal([0, false]);
    expect((await apply(edit({ description: 'only words', threshold: 30, period: 'minute' }))).status).to.equal(200);
    expect((await progress()).e).to.equal(null);
    expect((await apply(doc)).status).to.equal(200);
  });

  it("a policy's severity left out of the document is the create's default, warning (as every field left out is)", async () => {
    const doc = await exportDoc();
    const policy = doc.policies.find((p: Doc) => p.severity !== 'warning');
    expect(policy, 'the fixture holds a policy of another severity').to.not.equal(undefined);
    const { severity: _left, ...withoutSeverity } = policy;
    const planned = await plan({ ...doc, policies: doc.policies.map((p: Doc) => (p === policy ? withoutSeverity : p)) });
    expect(planned.body.changes).to.deep.equal([{ kind: 'policies', key: policy.key, action: 'update', fields: ['severity'] }]);
  });

  it('creates what is new, lists what the document lacks as unmanaged, and deletes it only with prune', async () => {
    const doc = await exportDoc();
    const trimmed = {
      ...doc,
      silences: [],
      policies: [
        ...doc.policies.filter((p: Doc) => p.key !== 'jobs-slow'),
        {
          key: 'new-one',
          event_definition: { agent: 'web', event: 'checkout.latency_ms' },
          title: 'New',
          period: 'minute',
          aggregate: 'count',
          condition: 'lt',
          threshold: 1,
          severity: 'info',
        },
      ],
    };
    const planned = await plan(trimmed);
    expect(planned.body.changes).to.deep.equal([
      {
        kind: 'policies',
        key: 'new-one',
        action: 'create',
        fields: ['event_definition', 'title', 'period', 'aggregate', 'condition', 'threshold', 'severity'],
      },
    ]);
    expect(planned.body.unmanaged).to.deep.include.members([
      { kind: 'policies', key: 'jobs-slow' },
      { kind: 'silences', key: 'weekly-maintenance' },
    ]);
    const pruned = await plan(trimmed, token, '?prune=true');
    expect(pruned.body.changes.filter((c: Doc) => c.action === 'delete')).to.deep.equal([
      { kind: 'policies', key: 'jobs-slow', action: 'delete', fields: [] },
      { kind: 'silences', key: 'weekly-maintenance', action: 'delete', fields: [] },
    ]);
    const applied = await apply(trimmed, token, '?prune=true');
    expect(applied.status, applied.text).to.equal(200);
    expect((await svc.request('GET', `/v1.0/policies/${fixture.ids.fleet}`, { token })).status).to.equal(404);
    expect((await svc.request('GET', `/v1.0/silences/${fixture.ids.silence}`, { token })).status).to.equal(404);
    const after = await exportDoc();
    expect(after.policies.map((p: Doc) => p.key).sort()).to.deep.equal(['checkout-slow', 'new-one']);
    // Put the fixture back for the tests after.
    const restored = await apply(doc, token, '?prune=true');
    expect(restored.status, restored.text).to.equal(200);
  });

  it('refuses the whole document when one object anywhere is invalid, with its path, and changes nothing', async () => {
    const doc = await exportDoc();
    const before = await everything();
    const cases: [Doc, string, number][] = [
      // Caught by the document's schema (the resources' own).
      [{ ...doc, policies: [...doc.policies, { ...doc.policies[0], key: 'bad', threshold: 'high' }] }, `/policies/${doc.policies.length}/threshold`, 400],
      // Caught by a resource's operation, after earlier objects were written in the transaction.
      [
        {
          ...doc,
          people: doc.people.map((p: Doc) => ({ ...p, name: 'Renamed' })),
          schedules: doc.schedules.map((s: Doc) => ({ ...s, timezone: 'Mars/Olympus' })),
        },
        '/schedules/0/timezone',
        400,
      ],
      // A new policy the policies' own rule checks refuse (created with the others in one insert).
      [
        { ...doc, policies: [...doc.policies, { ...doc.policies[0], key: 'bad-rule', recovery_threshold: 1000 }] },
        `/policies/${doc.policies.length}/recovery_threshold`,
        400,
      ],
      [{ ...doc, silences: [{ ...doc.silences[0], key: 'late', ends_at: '2001-01-01T00:00:00Z' }] }, '/silences/0/ends_at', 400],
      [{ ...doc, policies: [{ ...doc.policies[0], key: 'x', event_definition: { agent: 'nope', event: 'nope' } }] }, '/policies/0/event_definition', 400],
      [{ ...doc, people: [{ ...doc.people[0], key: 'y', destinations: ['no-such-destination'] }] }, '/people/0/destinations/0', 400],
      [{ ...doc, policies: [...doc.policies, doc.policies[0]] }, `/policies/${doc.policies.length}/key`, 400],
      // A dimension the rules of PUT /v1.0/dimensions/:event refuse, and an event name declared twice.
      [{ ...doc, dimensions: [...doc.dimensions, { event: 'jobs.duration_ms', keys: ['agent'] }] }, '/dimensions/1/keys/0', 400],
      [{ ...doc, dimensions: [...doc.dimensions, { event: 'jobs.duration_ms', keys: ['a b'] }] }, '/dimensions/1/keys/0', 400],
      [{ ...doc, dimensions: [...doc.dimensions, { ...doc.dimensions[0], keys: ['route'] }] }, '/dimensions/1/event', 400],
    ];
    for (const [bad, path, status] of cases) {
      const res = await apply(bad);
      expect(res.status, `${path}: ${res.text}`).to.equal(status);
      expect(
        res.body.error.details.map((d: Doc) => d.path),
        res.text,
      ).to.include(path);
      expect(await everything(), path).to.equal(before);
    }
  });

  it('refuses an apply at a version the configuration has moved from: 409 config_changed', async () => {
    const doc = await exportDoc();
    const { version } = (await plan(doc)).body;
    const moved = await svc.request('PUT', `/v1.0/policies/${fixture.ids.policy}`, { token, body: { description: 'edited in the console' } });
    expect(moved.status).to.equal(200);
    const before = await everything();
    const res = await apply({ ...doc, expected_version: version });
    expect(res.status, res.text).to.equal(409);
    expect(res.body.error.code).to.equal('config_changed');
    expect(await everything()).to.equal(before);
    const drift = (await plan(doc)).body.changes;
    expect(drift).to.deep.equal([{ kind: 'policies', key: 'checkout-slow', action: 'update', fields: ['description'] }]);
    expect((await apply({ ...doc, expected_version: (await plan(doc)).body.version })).status).to.equal(200);
  });

  it('two applies racing at the same version: one wins, the other gets 409, nothing half-applied', async () => {
    const doc = await exportDoc();
    const { version } = (await plan(doc)).body;
    const edit = (threshold: number) => ({
      ...doc,
      expected_version: version,
      policies: doc.policies.map((p: Doc) => ({ ...p, threshold, description: `set to ${threshold}` })),
    });
    const [a, b] = await Promise.all([apply(edit(101)), apply(edit(202))]);
    expect([a.status, b.status].sort()).to.deep.equal([200, 409]);
    const winner = a.status === 200 ? 101 : 202;
    const after = await exportDoc();
    for (const p of after.policies) expect([p.threshold, p.description]).to.deep.equal([winner, `set to ${winner}`]);
  });

  it("never resolves a key to another workspace's object", async () => {
    const other = await svc.tokenFor('ascode-stranger-ws');
    const res = await apply(
      {
        version: 1,
        people: [{ key: 'eve', name: 'Eve', destinations: ['ops-hook'] }],
        silences: [{ key: 's', policies: ['checkout-slow'], ends_at: new Date(Date.now() + 3_600_000).toISOString() }],
      },
      other,
    );
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.details.map((d: Doc) => d.path)).to.deep.equal(['/people/0/destinations/0', '/silences/0/policies/0']);
    expect((await exportDoc(other)).people).to.deep.equal([]);
  });
});
