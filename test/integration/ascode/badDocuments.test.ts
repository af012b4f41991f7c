// Documents an attacker (or a careless script) sends to plan and apply: too large, too many
// objects, nested too deep, YAML alias bombs, keys given twice: each a 4xx, nothing changed,
// and the service still answers (bounded time and memory: the bombs are refused before they
// expand, not after).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('alerting as code: bad documents', function () {
  this.timeout(180_000);
  let svc: TestService;
  let token: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('ascode-bad-ws');
    await svc.request('POST', '/v1.0/events', { token, body: { event: 'latency', agent: 'web' } });
  });
  after(async () => svc?.close());

  const send = (path: string, text: string, type = 'application/json') =>
    svc.request('POST', `/v1.0/config/${path}`, { token, rawBody: text, headers: { 'Content-Type': type } });

  const unchanged = async () => {
    const doc = (await svc.request('GET', '/v1.0/config', { token })).body;
    for (const kind of ['destinations', 'people', 'schedules', 'escalation_policies', 'alert_sources', 'policies', 'silences'])
      expect(doc[kind], kind).to.deep.equal([]);
  };

  it('refuses a document over 8 MB with 413', async () => {
    const res = await send('apply', JSON.stringify({ version: 1, policies: [], pad: 'x'.repeat(10 * 1024 * 1024) }));
    expect(res.status).to.equal(413);
    await unchanged();
  });

  it('refuses 100,000 objects with 400 before checking them one by one', async () => {
    const res = await send('apply', JSON.stringify({ version: 1, silences: Array.from({ length: 100_000 }, (_, i) => ({ key: `s${i}` })) }));
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    expect(res.body.error.details).to.deep.equal([{ path: '/silences', message: 'must have at most 1000 items' }]);
    await unchanged();
  });

  it('answers at most 100 problems of an invalid document', async () => {
    const res = await send('plan', JSON.stringify({ version: 1, policies: Array.from({ length: 5000 }, (_, i) => ({ key: `p${i}`, threshold: 'x' })) }));
    expect(res.status).to.equal(400);
    expect(res.body.error.details).to.have.length(100);
  });

  it('refuses nesting deeper than 32 levels, in JSON and in YAML, flow or block', async () => {
    const deepJson = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect((await send('plan', `{"version": 1, "policies": ${deepJson}}`)).body.error.code).to.equal('document_too_deep');
    expect((await send('plan', `version: 1\npolicies: ${deepJson}\n`, 'application/yaml')).body.error.code).to.equal('document_too_deep');
    const block = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}a${i}:`).join('\n');
    const res = await send('plan', `version: 1\nx:\n${block.replace(/^/gm, '  ')} 1\n`, 'application/yaml');
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.code).to.equal('document_too_deep');
  });

  it('refuses a YAML alias bomb (a billion laughs) without expanding it', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `version: 1\nx:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
    const before = process.memoryUsage().rss;
    const res = await send('plan', bomb, 'application/yaml');
    expect(res.status, res.text).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_yaml');
    expect(res.body.error.message).to.include('aliases');
    // 9^10 strings were never made: the process grew by far less than one expansion level would take.
    expect(process.memoryUsage().rss - before).to.be.below(512 * 1024 * 1024);
    expect((await svc.request('GET', '/v1.0/config', { token })).status).to.equal(200);
  });

  it('refuses a key given twice in a YAML mapping, and an object key given twice in a kind', async () => {
    const dupYaml = await send('plan', 'version: 1\npolicies: []\npolicies: []\n', 'application/yaml');
    expect(dupYaml.status).to.equal(400);
    expect(dupYaml.body.error.code).to.equal('invalid_yaml');
    const silence = { key: 'same', ends_at: new Date(Date.now() + 3_600_000).toISOString() };
    const dupKey = await send('apply', JSON.stringify({ version: 1, silences: [silence, { ...silence, comment: 'second' }] }));
    expect(dupKey.status).to.equal(400);
    expect(dupKey.body.error.details).to.deep.equal([{ path: '/silences/1/key', message: 'is the key of /silences/0 too; keys are unique in a kind' }]);
    await unchanged();
  });

  it('takes the same key in different kinds (keys are unique per kind)', async () => {
    const res = await send(
      'plan',
      JSON.stringify({
        version: 1,
        alert_sources: [{ key: 'same', name: 'A source' }],
        silences: [{ key: 'same', ends_at: new Date(Date.now() + 3_600_000).toISOString() }],
      }),
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.changes.map((c: { kind: string }) => c.kind)).to.deep.equal(['alert_sources', 'silences']);
  });

  it('refuses text no store can keep (NUL, a lone surrogate) anywhere in a document, with its path, and changes nothing', async () => {
    const documents: [string, Record<string, unknown>][] = [
      ['/alert_sources/0/name', { alert_sources: [{ key: 'src', name: 'a\u0000b' }] }],
      ['/alert_sources/0/severity_label', { alert_sources: [{ key: 'src', name: 'Source', severity_label: 'a\u0000b' }] }],
      ['/policies/0/event', { policies: [{ key: 'p', title: 'P', event: 'a\u0000b', period: 'minute', aggregate: 'sum', condition: 'gt', threshold: 1 }] }],
      ['/people/0/name', { people: [{ key: 'ada', name: 'Ada\ud800', timezone: 'UTC' }] }],
    ];
    for (const [path, document] of documents) {
      for (const route of ['plan', 'apply']) {
        const res = await send(route, JSON.stringify({ version: 1, ...document }));
        expect(res.status, `${route} ${path}: ${res.text.slice(0, 200)}`).to.equal(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(path);
      }
    }
    const yaml = await send('apply', 'version: 1\nalert_sources:\n  - {key: src, name: "a\\0b"}\n', 'application/yaml');
    expect(yaml.status, yaml.text.slice(0, 200)).to.equal(400);
    expect(yaml.body.error.details[0].path).to.equal('/alert_sources/0/name');
    await unchanged();
  });

  it('refuses YAML tags, several documents, other content types and a document that is not one', async () => {
    expect((await send('plan', 'version: 1\nx: !!js/function "x"\n', 'application/yaml')).status).to.equal(400);
    expect((await send('plan', 'version: 1\n---\nversion: 1\n', 'application/yaml')).status).to.equal(400);
    expect((await send('plan', 'version=1', 'text/plain')).status).to.equal(415);
    expect((await send('plan', '[1, 2]')).status).to.equal(400);
    expect((await send('plan', '{"version": 2}')).body.error.details[0].path).to.equal('/version');
    expect((await send('plan', '{"version": 1, "__proto__": {"x": 1}}')).status).to.equal(400);
    expect((await send('plan', 'version: 1\n__proto__: {x: 1}\n', 'application/yaml')).status).to.equal(400);
  });
});
