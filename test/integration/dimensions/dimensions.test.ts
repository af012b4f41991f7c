// The dimensions resource: declare, read, list, replace and remove an event name's keys, each
// scoped to the workspace, and a clear 400 that changes nothing for every bad input.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('dimensions API', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;

  before(async () => {
    svc = await startTestService({ env: { ROLE: 'api' } });
    token = await svc.tokenFor('dimensions-ws');
    otherToken = await svc.tokenFor('dimensions-other');
  });
  after(() => svc.close());

  const path = (event: string) => `/v1.0/dimensions/${encodeURIComponent(event)}`;
  const put = (event: string, body: unknown, as = token) => svc.request('PUT', path(event), { token: as, body: body as object });
  const list = async (as = token) => (await svc.request('GET', '/v1.0/dimensions', { token: as })).body as { event: string; keys: string[] }[];

  it('declares, reads, lists, replaces and removes the keys of an event name', async () => {
    const res = await put('http.requests', { keys: ['route', 'code'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ event: 'http.requests', overflowing: false });
    expect(res.body.keys).to.deep.equal(['route', 'code']);
    expect(res.body.backfill.status).to.be.oneOf(['running', 'done']);
    for (const field of ['created_at', 'updated_at']) expect(res.body[field]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const read = await svc.request('GET', path('http.requests'), { token });
    expect(read.status).to.equal(200);
    expect(read.body.keys).to.deep.equal(['route', 'code']);
    expect((await list()).map((d) => d.event)).to.include('http.requests');

    // A client may send back what it read; the keys are replaced.
    const replaced = await put('http.requests', { ...read.body, keys: ['region'] });
    expect(replaced.status, replaced.text).to.equal(200);
    expect(replaced.body.keys).to.deep.equal(['region']);
    expect(replaced.body.created_at).to.equal(res.body.created_at);

    // None at all is a declaration too (the series are then agents only).
    expect((await put('http.requests', { keys: [] })).body.keys).to.deep.equal([]);

    expect((await svc.request('DELETE', path('http.requests'), { token })).status).to.equal(204);
    expect((await svc.request('GET', path('http.requests'), { token })).status).to.equal(404);
    expect((await svc.request('DELETE', path('http.requests'), { token })).status).to.equal(404);
  });

  it('takes any event name, URL-encoded, slashes and spaces inside included', async () => {
    const name = 'a/b c?d#é';
    expect((await put(name, { keys: ['k'] })).status).to.equal(200);
    expect((await svc.request('GET', path(name), { token })).body.event).to.equal(name);
  });

  it('keeps each workspace to its own declarations', async () => {
    expect((await put('shared.name', { keys: ['mine'] })).status).to.equal(200);
    expect((await svc.request('GET', path('shared.name'), { token: otherToken })).status).to.equal(404);
    expect((await svc.request('DELETE', path('shared.name'), { token: otherToken })).status).to.equal(404);
    expect((await list(otherToken)).map((d) => d.event)).to.not.include('shared.name');
    // The other workspace's declaration of the same name is its own.
    expect((await put('shared.name', { keys: ['theirs'] }, otherToken)).body.keys).to.deep.equal(['theirs']);
    expect((await svc.request('GET', path('shared.name'), { token })).body.keys).to.deep.equal(['mine']);
  });

  it('answers 401 without a token', async () => {
    expect((await svc.request('GET', '/v1.0/dimensions')).status).to.equal(401);
    expect((await svc.request('PUT', path('x'), { body: { keys: [] } })).status).to.equal(401);
  });

  describe('bad input → 400, nothing changed', () => {
    const cases: [string, string, unknown, string][] = [
      ['no body keys', 'ok.name', {}, ''],
      ['keys not an array', 'ok.name', { keys: 'route' }, '/keys'],
      ['a key not a string', 'ok.name', { keys: [5] }, '/keys/0'],
      ['an object as a key', 'ok.name', { keys: [{ a: 1 }] }, '/keys/0'],
      ['nine keys', 'ok.name', { keys: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] }, '/keys'],
      ['ten thousand keys', 'ok.name', { keys: Array.from({ length: 10_000 }, (_, i) => `k${i}`) }, '/keys'],
      ['an empty key', 'ok.name', { keys: [''] }, '/keys/0'],
      ['a key of 65 characters', 'ok.name', { keys: ['k'.repeat(65)] }, '/keys/0'],
      ['a huge key', 'ok.name', { keys: ['k'.repeat(100_000)] }, '/keys/0'],
      ['a key with a space', 'ok.name', { keys: ['a b'] }, '/keys/0'],
      ['a key with NUL', 'ok.name', { keys: ['a\u0000b'] }, '/keys/0'],
      ['a key with a lone surrogate', 'ok.name', { keys: ['a\ud800'] }, '/keys/0'],
      ['a key with a star', 'ok.name', { keys: ['***'] }, '/keys/0'],
      ['agent as a key', 'ok.name', { keys: ['agent'] }, '/keys/0'],
      ['a key twice', 'ok.name', { keys: ['route', 'route'] }, '/keys/1'],
      ['an unknown field', 'ok.name', { keys: [], valeu: 1 }, ''],
      ['an event name of 201 characters', 'e'.repeat(201), { keys: [] }, '/event'],
      ['an event name with spaces around', ' padded ', { keys: [] }, '/event'],
      ['an event name with NUL', 'a\u0000b', { keys: [] }, '/event'],
    ];
    for (const [title, event, body, pathOfProblem] of cases) {
      it(title, async () => {
        const before = await list();
        const res = await put(event, body);
        expect(res.status, res.text).to.equal(400);
        expect(res.body.error.code).to.be.oneOf(['validation_failed', 'invalid_json']);
        if (pathOfProblem !== '') expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include(pathOfProblem);
        expect(await list()).to.deep.equal(before);
        expect((await svc.request('GET', path(event), { token })).status).to.be.oneOf([400, 404]);
      });
    }

    it('a nested value as the body', async () => {
      const rawBody = `{"keys":${'['.repeat(5_000)}"x"${']'.repeat(5_000)}}`;
      const res = await svc.request('PUT', path('ok.name'), { token, rawBody, headers: { 'content-type': 'application/json' } });
      expect(res.status, res.text).to.equal(400);
    });

    it('invalid UTF-8 in the path → 400 (not a name of its six characters), and a bad list page → 400', async () => {
      const res = await svc.request('PUT', '/v1.0/dimensions/%FF%FE', { token, body: { keys: [] } });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).to.include('/event');
      expect((await svc.request('GET', '/v1.0/dimensions?limit=-1', { token })).status).to.equal(400);
      expect((await svc.request('GET', '/v1.0/dimensions?limit=1001', { token })).status).to.equal(400);
    });
  });
});
