import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

// npm test builds dist/web/ before the runs (scripts/test.ts).
describeInOneRun('web console files', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('serves the console at / without a token, unframable, loading only its own script and stylesheet', async () => {
    const res = await svc.request('GET', '/');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.text).to.include('<script type="module" src="/assets/console.js"></script>');
    expect(res.text).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'").and.include("default-src 'none'").and.not.include('unsafe');
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
  });

  it('serves the built assets with their type, an ETag, gzip, and 304 when unchanged', async () => {
    const js = await svc.request('GET', '/assets/console.js', { headers: { 'accept-encoding': 'identity' } });
    expect(js.status).to.equal(200);
    expect(js.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).to.equal('no-cache');
    const etag = js.headers.get('etag')!;
    expect(etag).to.match(/^"[A-Za-z0-9_-]{22}"$/);
    const zipped = await fetch(`${svc.url}/assets/console.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).to.equal('gzip');
    expect(await zipped.text()).to.equal(js.text); // fetch inflates it
    const again = await svc.request('GET', '/assets/console.js', { headers: { 'if-none-match': etag } });
    expect(again.status).to.equal(304);
    for (const name of ['console.css', 'share.js', 'share.css']) expect((await svc.request('GET', `/assets/${name}`)).status, name).to.equal(200);
  });

  it('answers 404 for a file that is not an asset, and 405 for another method', async () => {
    for (const path of ['/assets/nope.js', '/assets/console.html', '/assets/..%2fconsole.html', '/assets/%2e%2e/package.json']) {
      const res = await svc.request('GET', path);
      expect(res.status, path).to.be.oneOf([401, 404]);
      expect(res.text, path).to.not.include('<html');
    }
    expect((await svc.request('GET', '/assets/nope.js')).status).to.equal(404);
    const post = await svc.request('POST', '/', { body: {} });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
  });

  it('is served by the API role only', async () => {
    const ingest = await startTestService({ env: { ROLE: 'ingest' } });
    try {
      expect((await ingest.request('GET', '/')).status).to.equal(404);
      expect((await ingest.request('GET', '/assets/console.js')).status).to.equal(404);
    } finally {
      await ingest.close();
    }
  });
});
