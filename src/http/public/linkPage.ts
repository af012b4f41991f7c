// What every page opened from a link shares (a share page, an acknowledge page): the HTML
// document around its body, with the public pages' stylesheet, and the answer to a refused
// link. Every refusal of a link (malformed id, missing or wrong token, nothing there) is
// one page that says nothing about why, so a link cannot be probed; an address over the
// public rate limit gets a page too, with Retry-After.
import { AppError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { retryAfterHeaders } from '../httpError.js';

/** Text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface LinkPageParts {
  readonly title: string;
  /** Further elements of <head> (meta tags, a script), already escaped. */
  readonly head?: string;
  /** Classes of the <main> element. */
  readonly mainClass: string;
  /** The content of <main>, already escaped. */
  readonly body: string;
}

/** A whole public page, styled by /assets/share.css, never indexed. */
export function linkPage({ title, head = '', mainClass, body }: LinkPageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/share.css">${head}
</head>
<body>
<main class="${escapeHtml(mainClass)}">
${body}
</main>
</body>
</html>
`;
}

export function tooManyRequestsPage(retryAfterSeconds: string): string {
  return linkPage({
    title: 'Too many requests',
    mainClass: 'share',
    body: `<h1>Too many requests</h1>
<p>Too many requests came from your address. Try again in ${escapeHtml(retryAfterSeconds)} seconds.</p>`,
  });
}

/**
 * Answers a link's page: the page `render` makes (it takes the address's rate limit and
 * reads what the link names), or `refusedPage` with 404 when it finds nothing (a not_found
 * AppError), or the rate limit's page with 429 and Retry-After. Other errors go on to the
 * error middleware.
 */
export async function answerLinkPage(ctx: AppContext, render: () => Promise<string>, refusedPage: () => string): Promise<void> {
  ctx.type = 'html';
  try {
    ctx.body = await render();
  } catch (err) {
    if (err instanceof AppError && err.kind === 'busy') {
      const headers = retryAfterHeaders(err.options.retryAfterSeconds ?? 60);
      ctx.status = 429;
      ctx.set(headers);
      ctx.body = tooManyRequestsPage(headers['Retry-After']!);
    } else if (err instanceof AppError && err.kind === 'not_found') {
      ctx.status = 404;
      ctx.body = refusedPage();
    } else {
      throw err;
    }
    ctx.type = 'html';
  }
}
