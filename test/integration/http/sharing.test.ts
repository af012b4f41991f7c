import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestResponse } from '../../helpers/http.js';
import { sendLogs, type SentLog } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/waitFor.js';

const EVENT_FIELDS = ['event_id', 'agent', 'event', 'title', 'description', 'unit', 'timezone'];
const ITEM_FIELDS = ['event_id', 'agent', 'event', 'period', 'occurred_at', 'count', 'value', 'squares', 'min', 'max'];

/** A refusal as a client sees it, less what differs per request (the request id). */
const refusal = (res: TestResponse) => ({
  status: res.status,
  body: res.text,
  type: res.headers.get('content-type'),
  cache: res.headers.get('cache-control'),
});

describe('share links', function () {
  this.timeout(60_000);
  let svc: TestService;
  let token: string;
  let otherToken: string;
  let shared: { event_id: string; share_token: string };
  let sharedLogs: SentLog[];

  const createEvent = async (body: Record<string, unknown>, as = token) => {
    const res = await svc.request('POST', '/v1.0/events', { token: as, body });
    expect(res.status, res.text).to.equal(201);
    return res.body as { event_id: string; share_token: string; event: string; agent: string };
  };
  const publicRead = (eventId: string, query: string) => svc.request('GET', `/v1.0/public/events/${eventId}${query}`);
  const sharePage = (eventId: string, query: string) => svc.request('GET', `/share/events/${eventId}${query}`);

  before(async () => {
    svc = await startTestService({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '100000' } });
    token = await svc.tokenFor('sharing-ws');
    otherToken = await svc.tokenFor('sharing-other-ws');
    shared = await createEvent({ event: 'orders.placed', agent: 'shop', title: 'Orders placed', unit: 'orders', description: 'Checkout', public: true });
    // One log a minute for the last 70 minutes and one an hour for the last 50 hours: more
    // than a share link shows of both periods.
    const now = Date.now();
    sharedLogs = [
      ...Array.from({ length: 70 }, (_, i) => ({ agent: 'shop', event: 'orders.placed', value: i, occurred_at: new Date(now - i * 60_000).toISOString() })),
      ...Array.from({ length: 50 }, (_, i) => ({
        agent: 'shop',
        event: 'orders.placed',
        value: 1,
        occurred_at: new Date(now - (i + 2) * 3_600_000).toISOString(),
      })),
    ];
    await sendLogs(svc, token, sharedLogs);
  });
  after(() => svc.close());

  it('presents no share_url without PUBLIC_URL: the listener’s address may not be the one people reach (clients build the link)', async () => {
    const read = await svc.request('GET', `/v1.0/events/${shared.event_id}`, { token });
    expect(read.body).to.include({ public: true, share_url: null });
  });

  it('reads a public event with its token: the display fields and the newest 60 minute, 48 hour and 31 day items', async () => {
    const read = async () => {
      const res = await publicRead(shared.event_id, `?token=${shared.share_token}`);
      const total = (res.body.day as { count: number }[]).reduce((sum, item) => sum + item.count, 0);
      return total === sharedLogs.length ? res : null;
    };
    const res = await waitFor('every log in the day rollup', read);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=10');
    expect(Object.keys(res.body)).to.deep.equal(['event', 'minute', 'hour', 'day']);
    expect(res.body.event).to.deep.equal({
      event_id: shared.event_id,
      agent: 'shop',
      event: 'orders.placed',
      title: 'Orders placed',
      description: 'Checkout',
      unit: 'orders',
      timezone: 'UTC',
    });
    expect(Object.keys(res.body.event)).to.deep.equal(EVENT_FIELDS);
    expect(res.body.minute).to.have.length(60);
    expect(res.body.hour).to.have.length(48);
    expect(res.body.day.length).to.be.within(3, 4);
    for (const period of ['minute', 'hour', 'day'] as const) {
      for (const item of res.body[period]) expect(Object.keys(item)).to.deep.equal(ITEM_FIELDS);
      // The same items, in the same order, as the authenticated rollup read.
      const limit = res.body[period].length;
      const own = await svc.request('GET', `/v1.0/events/${shared.event_id}/logs?period=${period}&limit=${limit}`, { token });
      expect(res.body[period]).to.deep.equal(own.body);
    }
    // Nothing of the workspace: no owner, no token, no flag.
    for (const secret of ['sharing-ws', shared.share_token, 'user_id', 'share_token', 'public']) expect(res.text).to.not.include(secret);
  });

  it('answers every refusal with the same 404, on the read and on the page', async () => {
    const hidden = await createEvent({ event: 'private.metric', title: 'Private metric', public: false });
    const sibling = await createEvent({ event: 'sibling.metric', public: true });
    const t = shared.share_token;
    const cases: [string, string][] = [
      [randomUUID(), `?token=${t}`], // unknown id
      [shared.event_id, `?token=${sibling.share_token}`], // another event's token
      [shared.event_id, `?token=${t.slice(0, -1)}`], // one character short
      [shared.event_id, `?token=${t}x`],
      [shared.event_id, `?token=${t.toUpperCase()}`],
      [shared.event_id, ''], // no token
      [shared.event_id, '?token='],
      [shared.event_id, `?token=${t}&token=${t}`], // given twice
      [shared.event_id, `?share_token=${t}`],
      [shared.event_id, `?token=${'a'.repeat(8000)}`],
      [shared.event_id, `?token=%00${t}`],
      [shared.event_id, `?token=%ED%A0%80`], // a lone surrogate, UTF-8 encoded
      [shared.event_id, `?token[]=${t}`],
      [hidden.event_id, `?token=${hidden.share_token}`], // not public
      ['not-a-uuid', `?token=${t}`],
      [`${shared.event_id}%00`, `?token=${t}`],
      ['%2e%2e%2f%2e%2e%2fetc', `?token=${t}`],
    ];
    const reads = await Promise.all(cases.map(([id, query]) => publicRead(id, query)));
    const pages = await Promise.all(cases.map(([id, query]) => sharePage(id, query)));
    expect(refusal(reads[0]!)).to.deep.equal({
      status: 404,
      body: JSON.stringify({ error: { code: 'not_found', message: 'No such shared event.', details: [] }, message: 'No such shared event.' }),
      type: 'application/json; charset=utf-8',
      cache: 'public, max-age=10',
    });
    for (const [i, res] of reads.entries()) expect(refusal(res), `read ${cases[i]!.join(' ')}`).to.deep.equal(refusal(reads[0]!));
    expect(pages[0]!.status).to.equal(404);
    expect(pages[0]!.text).to.include('<title>Link not found</title>');
    for (const [i, res] of pages.entries()) expect(refusal(res), `page ${cases[i]!.join(' ')}`).to.deep.equal(refusal(pages[0]!));
    for (const res of [...reads, ...pages]) expect(res.text).to.not.match(/Orders placed|Private metric|orders\.placed/);
  });

  it("never shows another workspace's event, and lets no other workspace rotate a token", async () => {
    const theirs = await createEvent({ event: 'their.metric', title: 'Theirs', public: true }, otherToken);
    expect((await publicRead(theirs.event_id, `?token=${theirs.share_token}`)).status).to.equal(200);
    // Our token with their id, their token with our id.
    expect((await publicRead(theirs.event_id, `?token=${shared.share_token}`)).status).to.equal(404);
    expect((await publicRead(shared.event_id, `?token=${theirs.share_token}`)).status).to.equal(404);
    // Their public page shows their event only.
    const page = await sharePage(theirs.event_id, `?token=${theirs.share_token}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Theirs').and.not.include('Orders placed').and.not.include('sharing-other-ws');
    // Rotating, reading or editing their event through our token finds nothing, and changes nothing.
    expect((await svc.request('POST', `/v1.0/events/${theirs.event_id}/share-token`, { token })).status).to.equal(404);
    expect((await publicRead(theirs.event_id, `?token=${theirs.share_token}`)).status).to.equal(200);
  });

  it('rotates the share token: the old link stops at once, the new one works', async () => {
    const event = await createEvent({ event: 'rotated.metric', title: 'Rotated', public: true });
    expect((await publicRead(event.event_id, `?token=${event.share_token}`)).status).to.equal(200);
    const rotated = await svc.request('POST', `/v1.0/events/${event.event_id}/share-token`, { token });
    expect(rotated.status).to.equal(200);
    expect(rotated.body).to.include({ event_id: event.event_id, title: 'Rotated', public: true });
    expect(rotated.body.share_token).to.match(/^[A-Za-z0-9_-]{32}$/);
    expect(rotated.body.share_token).to.not.equal(event.share_token);
    expect((await svc.request('GET', `/v1.0/events/${event.event_id}`, { token })).body.share_token).to.equal(rotated.body.share_token);
    expect((await publicRead(event.event_id, `?token=${event.share_token}`)).status).to.equal(404);
    expect((await sharePage(event.event_id, `?token=${event.share_token}`)).status).to.equal(404);
    expect((await publicRead(event.event_id, `?token=${rotated.body.share_token}`)).status).to.equal(200);
    expect((await sharePage(event.event_id, `?token=${rotated.body.share_token}`)).status).to.equal(200);
    // Making it private closes the new link too, and making it public again reopens it.
    await svc.request('PUT', `/v1.0/events/${event.event_id}`, { token, body: { public: false } });
    expect((await publicRead(event.event_id, `?token=${rotated.body.share_token}`)).status).to.equal(404);
    await svc.request('PUT', `/v1.0/events/${event.event_id}`, { token, body: { public: true } });
    expect((await publicRead(event.event_id, `?token=${rotated.body.share_token}`)).status).to.equal(200);
  });

  it('refuses a rotation with a body, a malformed id, no token or an unknown event', async () => {
    const rotate = (id: string, options: object) => svc.request('POST', `/v1.0/events/${id}/share-token`, options);
    expect((await rotate(shared.event_id, { token, body: { share_token: 'mine' } })).status).to.equal(400);
    expect((await rotate('not-a-uuid', { token })).body.error.code).to.equal('invalid_id');
    expect((await rotate(shared.event_id, {})).status).to.equal(401);
    expect((await rotate(randomUUID(), { token })).status).to.equal(404);
    expect((await svc.request('GET', `/v1.0/events/${shared.event_id}`, { token })).body.share_token).to.equal(shared.share_token);
  });

  it('serves a share page whose HTML names the event, with its data and a framable, script-free policy', async () => {
    const res = await sharePage(shared.event_id, `?token=${shared.share_token}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=10');
    expect(res.text).to.include('<title>Orders placed</title>');
    expect(res.text).to.include('<meta property="og:title" content="Orders placed">');
    expect(res.text).to.include('<meta property="og:description" content="Checkout">');
    expect(res.text).to.include('<script type="module" src="/assets/share.js"></script>');
    // No inline script: the only <script> elements are the module file and the JSON data.
    const scripts = [...res.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!.trim());
    expect(scripts).to.deep.equal(['type="module" src="/assets/share.js"', 'type="application/json" id="share-data"']);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include('frame-ancestors *').and.not.include('unsafe');
    expect(res.headers.get('x-frame-options')).to.equal(null);
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    const data = JSON.parse(/<script type="application\/json" id="share-data">(.*?)<\/script>/s.exec(res.text)![1]!);
    const read = await publicRead(shared.event_id, `?token=${shared.share_token}`);
    expect(data).to.deep.equal(read.body);
  });

  it('escapes what the event says about itself, in the head and in the data', async () => {
    const title = '</title></script><script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const event = await createEvent({ event: 'hostile.metric', title, description: '<b>&amp;</b>', public: true });
    const res = await sharePage(event.event_id, `?token=${event.share_token}`);
    expect(res.status).to.equal(200);
    expect(res.text).to.not.include('<script>alert').and.not.include('<img').and.not.include('<b>');
    expect(res.text).to.include('<title>&#60;/title&#62;&#60;/script&#62;');
    expect(res.text).to.include('<meta property="og:title" content="&#60;/title&#62;&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#62;');
    const data = JSON.parse(/<script type="application\/json" id="share-data">(.*?)<\/script>/s.exec(res.text)![1]!);
    expect(data.event).to.include({ title, description: '<b>&amp;</b>' });
    // Without a title the page is named after the event.
    const untitled = await createEvent({ event: 'untitled.metric', public: true });
    expect((await sharePage(untitled.event_id, `?token=${untitled.share_token}`)).text).to.include('<title>untitled.metric</title>');
  });

  it('keeps analytics behind the workspace token', async () => {
    // No public analytics route: the share token opens nothing there (404, no such route).
    const res = await svc.request(
      'GET',
      `/v1.0/public/events/${shared.event_id}/analytics?view=window&period=1h&previous=previous_window&token=${shared.share_token}`,
    );
    expect(res.status).to.equal(404);
    expect(res.text).to.not.include(shared.event_id);
    const analytics = await svc.request(
      'GET',
      `/v1.0/events/${shared.event_id}/analytics?view=window&period=1h&previous=previous_window&token=${shared.share_token}`,
    );
    expect(analytics.status).to.equal(401);
  });

  it('sends the security headers on API answers too', async () => {
    const res = await svc.request('GET', '/v1.0/events', { token });
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('content-security-policy')).to.include("default-src 'none'").and.include("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
  });
});

describe('share link rate limit', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { PUBLIC_RATE_LIMIT_PER_MINUTE: '4' } });
  });
  after(() => svc.close());

  it('answers 429 with Retry-After past the limit of the address, on both routes, and no other route', async () => {
    const token = await svc.tokenFor('limited-ws');
    const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'limited', public: true } });
    const { event_id: id, share_token: shareToken } = created.body;
    // Refused requests count too: a prober is limited like a reader.
    const answers = [
      await svc.request('GET', `/v1.0/public/events/${id}?token=${shareToken}`),
      await svc.request('GET', `/v1.0/public/events/${randomUUID()}?token=guess`),
      await svc.request('GET', `/share/events/${id}?token=${shareToken}`),
      await svc.request('GET', `/share/events/${id}?token=guess`),
    ];
    expect(answers.map((r) => r.status)).to.deep.equal([200, 404, 200, 404]);
    const limited = await svc.request('GET', `/v1.0/public/events/${id}?token=${shareToken}`);
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('rate_limited');
    // 4 a minute: one more request in 15 s.
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 15);
    expect(limited.headers.get('cache-control')).to.equal('no-store');
    const page = await svc.request('GET', `/share/events/${id}?token=${shareToken}`);
    expect(page.status).to.equal(429);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(Number(page.headers.get('retry-after'))).to.be.within(1, 15);
    // The workspace API is not limited by it.
    expect((await svc.request('GET', `/v1.0/events/${id}`, { token })).status).to.equal(200);
  });
});

describe('share links at PUBLIC_URL', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { PUBLIC_URL: 'https://status.example.com/alertmon/' } });
  });
  after(() => svc.close());

  it('presents a public event with its share link at PUBLIC_URL, which follows a replaced token; a private event has none', async () => {
    const token = await svc.tokenFor('public-url-ws');
    const created = await svc.request('POST', '/v1.0/events', { token, body: { event: 'linked', public: true } });
    expect(created.status, created.text).to.equal(201);
    const link = (e: { event_id: string; share_token: string }) => `https://status.example.com/alertmon/share/events/${e.event_id}?token=${e.share_token}`;
    expect(created.body.share_url).to.equal(link(created.body));
    // The same link from the list, the read and a PUT that sends back what it read.
    const listed = await svc.request('GET', '/v1.0/events', { token });
    expect(listed.body[0].share_url).to.equal(link(created.body));
    const put = await svc.request('PUT', `/v1.0/events/${created.body.event_id}`, { token, body: { ...created.body, title: 'Linked' } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.share_url).to.equal(link(created.body));
    // The link the API presents opens the share page (PUBLIC_URL stripped: it is this service).
    expect((await svc.request('GET', put.body.share_url.slice('https://status.example.com/alertmon'.length))).status).to.equal(200);
    const rotated = await svc.request('POST', `/v1.0/events/${created.body.event_id}/share-token`, { token });
    expect(rotated.body.share_url).to.equal(link(rotated.body)).and.not.equal(created.body.share_url);
    const closed = await svc.request('PUT', `/v1.0/events/${created.body.event_id}`, { token, body: { public: false } });
    expect(closed.body.share_url).to.equal(null);
    const hidden = await svc.request('POST', '/v1.0/events', { token, body: { event: 'hidden' } });
    expect(hidden.body.share_url).to.equal(null);
  });
});
