// Security headers on every response. An API answer (JSON) may load nothing and be framed by
// nobody; the HTML pages (the console, a share page) load their scripts, styles and data from
// this origin only, with no inline script. A share page may be framed (embedded in a wiki or
// a dashboard); the console, which holds a workspace token, never.
import type { Middleware } from 'koa';
import type { AppContext, AppState } from '../context.js';

const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function securityHeaders(): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.set({
      'Content-Security-Policy': API_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    await next();
  };
}

/**
 * The headers of an HTML page: its own scripts and styles only; `framable` lets any site
 * embed it; `postsForms` lets its forms post to this origin (an acknowledge page's button).
 */
export function setPageSecurityHeaders(ctx: AppContext, { framable, postsForms = false }: { framable: boolean; postsForms?: boolean }): void {
  const policy = postsForms ? PAGE_POLICY.replace("form-action 'none'", "form-action 'self'") : PAGE_POLICY;
  ctx.set('Content-Security-Policy', `${policy}; frame-ancestors ${framable ? '*' : "'none'"}`);
  if (framable) ctx.remove('X-Frame-Options');
}
