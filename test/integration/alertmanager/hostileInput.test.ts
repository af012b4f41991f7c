// Hostile input through every route that takes matchers, on the real engines: regexes that
// make a backtracking engine run for ever (`(a+)+$`, `(x+x+)+y`) in silences (/v1.0/silences
// and the tools' API), in a source's inhibition rules, and in the tools' `filter`, matched
// against label values as long as a post allows; label sets of 1,000 labels; 100,000 alerts in
// one post; another workspace's source or silence. Each answer is a 2xx or a clear 4xx, never
// a 500 or a hang (RE2 semantics, linear time: src/matchers/regex.ts); a refused request
// changes nothing. Performance itself is not asserted: the generous mocha timeout only turns a
// hang into a failure.
import { expect } from 'chai';
import { RECEIVE_LIMITS } from '../../../src/alertsources/receive.js';
import { labelsFingerprint } from '../../../src/labels/labels.js';
import { FakeHttpServer } from '../../helpers/fakeProviders.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const CATASTROPHIC = ['(a+)+$', '(x+x+)+y', '(a|a)*b', '(a|aa)+$', '(.*a){20}'];

describe('hostile input to the Alertmanager routes', function () {
  this.timeout(180_000);
  let svc: TestService;
  let sink: FakeHttpServer;
  let token: string;
  let otherToken: string;
  let sourceId: string;

  before(async function () {
    this.timeout(600_000);
    sink = await FakeHttpServer.start();
    svc = await startTestService({ env: { ALLOW_PRIVATE_TARGETS: '1', DELIVERY_POLL_INTERVAL_MS: '50' } });
    token = await svc.tokenFor('am-hostile-ws');
    otherToken = await svc.tokenFor('am-hostile-other');
    const source = await svc.request('POST', '/v1.0/alert-sources', {
      token,
      body: {
        name: 'Hostile',
        inhibit_rules: CATASTROPHIC.map((re) => ({ source_matchers: [`a=~"${re}"`], target_matchers: [`x=~"${re}"`], equal: ['instance'] })),
      },
    });
    expect(source.status, source.text).to.equal(201);
    sourceId = source.body.alert_source_id;
    const dest = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: `${sink.origin}/hook` } });
    expect(dest.status, dest.text).to.equal(201);
  });
  after(async () => {
    await svc?.close();
    await sink?.close();
  });

  const prefix = () => `/alertmanager/${sourceId}/api/v2`;
  const count = async (table: string) => (await svc.stores.postgres.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
  /** Label values as long as a post allows, each one character short of what the patterns above need. */
  const max = RECEIVE_LIMITS.labelValueLength;
  const hostileLabels = (instance: string) => ({
    alertname: 'Hostile',
    instance,
    a: `${'a'.repeat(max - 1)}!`,
    x: 'x'.repeat(max),
  });

  it('matches catastrophic regexes of silences, inhibition rules and filters against the longest label values, in bounded time', async () => {
    // Silences by both APIs, with every pattern.
    for (const re of CATASTROPHIC) {
      const own = await svc.request('POST', '/v1.0/silences', {
        token,
        body: { matchers: [`a=~"${re}"`, `x=~"${re}"`], ends_at: new Date(Date.now() + 3_600_000).toISOString() },
      });
      expect(own.status, own.text).to.equal(201);
      const tools = await svc.request('POST', `${prefix()}/silences`, {
        token,
        body: {
          matchers: [{ name: 'x', value: re, isRegex: true, isEqual: true }],
          startsAt: new Date().toISOString(),
          endsAt: new Date(Date.now() + 3_600_000).toISOString(),
          createdBy: 'test',
          comment: re,
        },
      });
      expect(tools.status, tools.text).to.equal(200);
    }
    // Alerts whose labels every silence and inhibition rule is matched against.
    const alerts = Array.from({ length: 20 }, (_, i) => ({ labels: hostileLabels(`h-${i}`) }));
    const posted = await svc.request('POST', `${prefix()}/alerts`, { token, body: alerts });
    expect(posted.status, posted.text).to.equal(200);
    const fp = labelsFingerprint(hostileLabels('h-0'));
    await waitFor('the first alert notified (no pattern matches its labels)', async () =>
      sink.requests.some((r) => r.json?.alert?.fingerprint === fp) ? true : null,
    );
    // The tools' filters, on alerts, groups and silences.
    for (const re of CATASTROPHIC) {
      for (const path of ['/alerts', '/alerts/groups', '/silences']) {
        for (const filter of [`a=~"${re}"`, `{x=~"${re}",a!~"${re}"}`]) {
          const res = await svc.request('GET', `${prefix()}${path}?filter=${encodeURIComponent(filter)}`, { token });
          expect(res.status, `${path} ${filter}: ${res.text.slice(0, 200)}`).to.equal(200);
        }
      }
    }
    const all = await svc.request('GET', `${prefix()}/alerts`, { token });
    expect(all.status).to.equal(200);
    expect(all.body).to.have.length(20);
    const none = await svc.request('GET', `${prefix()}/alerts?filter=${encodeURIComponent('a=~"(a+)+$"')}`, { token });
    expect(none.body, 'no value matches').to.deep.equal([]);
    const some = await svc.request('GET', `${prefix()}/alerts?filter=${encodeURIComponent('x=~"(x+x+)+"')}`, { token });
    expect(some.body, 'and a pattern that matches still does').to.have.length(20);
  });

  it('refuses matchers that do not compile or are too large with a 400, in every route, and changes nothing', async () => {
    const silences = await count('silences');
    const sources = await count('alert_sources');
    for (const bad of ['a=~"(x"', `a=~"${'(a+)'.repeat(5000)}"`, 'a=~"[a-z]{1000}{1000}"', 'a=~"(?P<n>a)(?P<n>b)"']) {
      const own = await svc.request('POST', '/v1.0/silences', { token, body: { matchers: [bad], ends_at: new Date(Date.now() + 3_600_000).toISOString() } });
      expect(own.status, `${bad.slice(0, 40)}: ${own.text.slice(0, 200)}`).to.equal(400);
      const rule = await svc.request('POST', '/v1.0/alert-sources', {
        token,
        body: { name: 'bad rule', inhibit_rules: [{ source_matchers: [bad], target_matchers: ['b="c"'], equal: [] }] },
      });
      expect(rule.status, rule.text.slice(0, 200)).to.equal(400);
      const filter = await svc.request('GET', `${prefix()}/alerts?filter=${encodeURIComponent(bad)}`, { token });
      // A filter longer than the request line allows is refused before it is read (431).
      expect(filter.status, filter.text.slice(0, 200)).to.equal(bad.length > 8000 ? 431 : 400);
    }
    expect(await count('silences')).to.equal(silences);
    expect(await count('alert_sources')).to.equal(sources);
  });

  it('bounds posts: 1,000 labels, over-long values and 100,000 alerts get a 4xx and store nothing', async () => {
    const alerts = await count('alerts');
    const thousand = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`l${i}`, 'v']));
    const tooMany = await svc.request('POST', `${prefix()}/alerts`, { token, body: [{ labels: thousand }] });
    expect(tooMany.status, tooMany.text.slice(0, 200)).to.equal(400);
    const tooLong = await svc.request('POST', `${prefix()}/alerts`, { token, body: [{ labels: { alertname: 'Long', a: 'a'.repeat(10_000) } }] });
    expect(tooLong.status, tooLong.text.slice(0, 200)).to.equal(400);
    const storm = Array.from({ length: 100_000 }, (_, i) => ({ labels: { alertname: 'Storm', i: String(i) } }));
    expect((await svc.request('POST', `${prefix()}/alerts`, { token, body: storm })).status, 'over the 1 MiB body').to.equal(413);
    // Under 1 MiB but over the count per post.
    const many = Array.from({ length: RECEIVE_LIMITS.alertsPerPost + 1 }, (_, i) => ({ labels: { i: String(i) } }));
    expect((await svc.request('POST', `${prefix()}/alerts`, { token, body: many })).status).to.equal(400);
    expect(await count('alerts')).to.equal(alerts);
  });

  it('refuses text no store can keep (NUL, a lone surrogate) in a label, an annotation or generatorURL with a 400 naming it, storing nothing', async () => {
    const alerts = await count('alerts');
    const valid = { labels: { alertname: 'Text', instance: 'a' }, annotations: { summary: 's' }, generatorURL: 'http://prometheus/graph' };
    for (const text of ['a\u0000b', 'a\ud800b']) {
      const posts: [string, unknown][] = [
        ['/1/labels/alertname', { ...valid, labels: { alertname: text } }],
        ['/1/annotations/summary', { ...valid, annotations: { summary: text } }],
        ['/1/generatorURL', { ...valid, generatorURL: text }],
      ];
      for (const [path, alert] of posts) {
        // The valid alert before it is not stored either: a post is taken whole or not at all.
        const res = await svc.request('POST', `${prefix()}/alerts`, { token, body: [valid, alert] });
        expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_alerts');
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(path);
      }
    }
    expect(await count('alerts')).to.equal(alerts);
  });

  it('answers another workspace’s source and silences with a 404 on every route, changing nothing', async () => {
    const silence = await svc.request('POST', `${prefix()}/silences`, {
      token,
      body: {
        matchers: [{ name: 'alertname', value: 'Mine', isRegex: false }],
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(silence.status, silence.text).to.equal(200);
    const id = silence.body.silenceID as string;
    const before = (await svc.request('GET', `${prefix()}/silence/${id}`, { token })).body;
    const other = { token: otherToken };
    const routes: [string, string, unknown?][] = [
      ['GET', '/status'],
      ['GET', '/alerts'],
      ['GET', '/alerts/groups'],
      ['GET', '/silences'],
      ['GET', `/silence/${id}`],
      ['DELETE', `/silence/${id}`],
      ['POST', '/alerts', [{ labels: { alertname: 'Theirs' } }]],
      [
        'POST',
        '/silences',
        { matchers: [{ name: 'a', value: 'b', isRegex: false }], startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 60_000).toISOString() },
      ],
    ];
    for (const [method, path, body] of routes) {
      const res = await svc.request(method, `${prefix()}${path}`, { ...other, ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}: ${res.text.slice(0, 200)}`).to.equal(404);
    }
    // Their own source cannot reach this workspace's silence either.
    const theirs = await svc.request('POST', '/v1.0/alert-sources', { token: otherToken, body: { name: 'Theirs' } });
    expect(theirs.status, theirs.text).to.equal(201);
    const theirPrefix = `/alertmanager/${theirs.body.alert_source_id}/api/v2`;
    expect((await svc.request('GET', `${theirPrefix}/silence/${id}`, other)).status).to.equal(404);
    expect((await svc.request('DELETE', `${theirPrefix}/silence/${id}`, other)).status).to.equal(404);
    const update = await svc.request('POST', `${theirPrefix}/silences`, {
      ...other,
      body: {
        id,
        matchers: [{ name: 'a', value: 'b', isRegex: false }],
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(update.status, update.text).to.equal(404);
    expect((await svc.request('GET', `${prefix()}/silence/${id}`, { token })).body).to.deep.equal(before);
  });
});
