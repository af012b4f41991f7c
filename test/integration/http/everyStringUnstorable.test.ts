// Text no store can keep (a NUL character, a lone UTF-16 surrogate) put into every string of a
// request that is otherwise valid, as a careless client or an attacker would: every string of
// the exported alerting-as-code document (planned and applied), and every string of every
// object of the workspace PUT back as read (what the SDKs do). Each is a 400 naming that string,
// never a 5xx, and nothing changes. A route that checks its body itself (a document, not a
// schema of the router) once let such text through to Postgres, which answered 500.
import { expect } from 'chai';
import { pointerSegment } from '../../../src/errors.js';
import type { Json } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';
import { makeFixture } from '../ascode/fixture.js';

const UNSTORABLE = ['a\u0000b', 'a\ud800b'] as const;

/** JSON Pointers of every string in `value`, object keys aside. */
function stringPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, `${path}/${i}`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => stringPaths(v, `${path}/${pointerSegment(k)}`));
  return [];
}

/** A copy of `value` with the string at `pointer` replaced. */
function withString(value: unknown, pointer: string, text: string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
  let at: Record<string, unknown> = copy;
  for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[keys[keys.length - 1]!] = text;
  return copy;
}

/** The resources a workspace's objects are read from and PUT back to: list path and id field. */
const RESOURCES = [
  ['/v1.0/events', 'event_id'],
  ['/v1.0/policies', 'policy_id'],
  ['/v1.0/destinations', 'destination_id'],
  ['/v1.0/silences', 'silence_id'],
  ['/v1.0/people', 'person_id'],
  ['/v1.0/schedules', 'schedule_id'],
  ['/v1.0/escalation-policies', 'escalation_policy_id'],
  ['/v1.0/alert-sources', 'alert_source_id'],
  ['/v1.0/dimensions', 'event'],
] as const;

describeInOneRun('every string of a valid request given text no store can keep', function () {
  this.timeout(300_000);
  let svc: TestService;
  let token: string;

  before(async function () {
    this.timeout(600_000);
    svc = await startTestService();
    token = await svc.tokenFor('every-string-ws');
    await makeFixture(svc, token);
  });
  after(async () => svc?.close());

  const expectRefused = (res: { status: number; text: string; body: Json }, what: string, pointer: string) => {
    expect(res.status, `${what}: ${res.text.slice(0, 300)}`).to.equal(400);
    expect(
      (res.body.error.details as { path: string }[]).map((d) => d.path),
      what,
    ).to.include(pointer);
  };

  it('refuses it in every string of the exported document, in a plan and an apply, and changes nothing', async () => {
    const exported = await svc.request('GET', '/v1.0/config', { token });
    expect(exported.status, exported.text).to.equal(200);
    const paths = stringPaths(exported.body);
    // The fixture's objects of every kind, each with every field set: a document of many strings.
    expect(paths.length).to.be.greaterThan(50);
    for (const pointer of paths) {
      for (const text of UNSTORABLE) {
        const body = withString(exported.body, pointer, text);
        for (const route of ['plan', 'apply']) {
          expectRefused(await svc.request('POST', `/v1.0/config/${route}`, { token, body }), `${route} ${pointer} ${JSON.stringify(text)}`, pointer);
        }
      }
    }
    const after = await svc.request('GET', '/v1.0/config', { token });
    expect(after.body).to.deep.equal(exported.body);
    expect(after.headers.get('alertmon-config-version')).to.equal(exported.headers.get('alertmon-config-version')).and.to.be.a('string');
  });

  it('refuses it in every string of every object PUT back as read, and changes nothing', async () => {
    let tried = 0;
    for (const [list, idField] of RESOURCES) {
      const objects = (await svc.request('GET', list, { token })).body as Record<string, unknown>[];
      expect(objects.length, list).to.be.greaterThan(0);
      for (const object of objects) {
        const path = `${list}/${encodeURIComponent(String(object[idField]))}`;
        const before = (await svc.request('GET', path, { token })).body;
        for (const pointer of stringPaths(object)) {
          for (const text of UNSTORABLE) {
            expectRefused(await svc.request('PUT', path, { token, body: withString(object, pointer, text) }), `PUT ${path} ${pointer}`, pointer);
            tried++;
          }
        }
        expect((await svc.request('GET', path, { token })).body, path).to.deep.equal(before);
      }
    }
    expect(tried).to.be.greaterThan(100);
  });
});
