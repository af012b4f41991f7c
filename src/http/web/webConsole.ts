// The web console at / and the browser code of the console and the share pages at /assets/,
// built by scripts/buildWeb.ts into dist/web/. Files are read once, on first use, and kept in
// memory with their gzip form and an ETag; browsers revalidate them on each load (no-cache),
// so a new build is picked up by the next page load after a restart.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Middleware } from 'koa';
import { webAssetsDir } from '../../paths.js';
import type { AppState } from '../context.js';
import { HttpError } from '../httpError.js';
import { setPageSecurityHeaders } from '../middleware/securityHeaders.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
}

function loadAssets(dir: string): Map<string, Asset> | null {
  if (!existsSync(path.join(dir, 'console.html'))) return null;
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(path.join(dir, name));
    assets.set(name, { type, body, gzipped: gzipSync(body), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return assets;
}

const CONSOLE_FILE = /^\/assets\/([A-Za-z]+(?:\.[A-Za-z]+)+)$/;

/** The paths the console serves, for the route guard (middleware/routeGuard.ts). */
export const consolePaths = {
  methodsAt: (path: string): readonly string[] => (path === '/' || CONSOLE_FILE.test(path) ? ['GET', 'HEAD'] : []),
};

/** GET / (the console) and GET /assets/<file> (404 for a file not built); anything else goes on. */
export function webConsole(dir = webAssetsDir): Middleware<AppState> {
  let assets: Map<string, Asset> | null = null;
  return async (ctx, next) => {
    const isPage = ctx.path === '/';
    const file = isPage ? 'console.html' : CONSOLE_FILE.exec(ctx.path)?.[1];
    if (file === undefined || (!isPage && file.endsWith('.html')) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    assets ??= loadAssets(dir);
    if (assets === null) throw new HttpError(503, 'console_not_built', 'The web console is not built: run npm run build (npm start does).');
    const asset = assets.get(file);
    if (asset === undefined) throw new HttpError(404, 'not_found', 'No such file.');
    if (isPage) setPageSecurityHeaders(ctx, { framable: false });
    ctx.set({ 'Cache-Control': 'no-cache', ETag: asset.etag, Vary: 'Accept-Encoding' });
    ctx.type = asset.type;
    if (ctx.get('If-None-Match') === asset.etag) {
      ctx.status = 304;
      return;
    }
    const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (gzip) ctx.set('Content-Encoding', 'gzip');
    ctx.body = gzip ? asset.gzipped : asset.body;
  };
}
