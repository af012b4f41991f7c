// Share links (docs/console.md#share-links): a public event read by anyone holding its
// event id and share token, as JSON and as a page. Every refusal (malformed id, missing or
// wrong token, unknown or private event) is the same 404, so a link cannot be probed; each
// client address is rate-limited; answers may be cached for 10 s.
import { notFound } from '../../errors.js';
import { readSharedEvent, type EventsDeps } from '../../events/operations.js';
import { isUuid } from '../../ids.js';
import { ApiRouter } from '../apiRouter.js';
import type { AppContext } from '../context.js';
import { setPageSecurityHeaders } from '../middleware/securityHeaders.js';
import type { AddressRateLimiter } from './addressRateLimit.js';
import { sharedEventJson } from './representation.js';
import { shareLinkQuerySchema, sharedEventSchema } from './schemas.js';
import { answerLinkPage } from './linkPage.js';
import { linkNotFoundPage, sharePage } from './sharePage.js';

const html = (description: string) => ({ description, contentType: 'text/html', schema: { type: 'string' } }) as const;
const tooMany = 'Too many requests from this client address (rate_limited), with Retry-After in seconds.';

/** `limiter`: the per-address limit of every public route (share links and acknowledge links share it). */
export function publicRoutes(deps: Pick<EventsDeps, 'postgres' | 'clickhouse'>, limiter: AddressRateLimiter): ApiRouter {
  const readShared = async (ctx: AppContext) => {
    limiter.take(ctx.ip);
    ctx.set({ 'Cache-Control': 'public, max-age=10', 'X-Robots-Tag': 'noindex' });
    const id = ctx.params.eventID!;
    const token = ctx.query.token;
    if (!isUuid(id) || typeof token !== 'string') throw notFound('shared event');
    return sharedEventJson(await readSharedEvent(deps, id.toLowerCase(), token));
  };

  return new ApiRouter('sharing', '')
    .add(
      {
        method: 'get',
        path: '/v1.0/public/events/:eventID',
        auth: 'none',
        summary: 'Read a shared event',
        description:
          'A public event, read with its share token instead of a workspace token: its display fields and its newest 60 minute, 48 hour and 31 day ' +
          'rollup items. An unknown or malformed id, a missing or wrong token and an event that is not public all answer the same 404. ' +
          'Rate-limited per client address; Cache-Control: public, max-age=10.',
        handlerValidatedQuery: shareLinkQuerySchema,
        responses: {
          200: { description: 'The shared event.', schema: sharedEventSchema },
          404: { description: 'No such shared event (not_found), whatever the reason.' },
          429: { description: tooMany },
        },
      },
      async (ctx) => {
        ctx.body = await readShared(ctx);
      },
    )
    .add(
      {
        method: 'get',
        path: '/share/events/:eventID',
        auth: 'none',
        summary: 'The share page of an event',
        description:
          'An HTML page with the title of the event (also in its <title> and Open Graph tags) and a chart of its rollups that refreshes itself. ' +
          'Refused exactly like the shared event read, with an HTML page. Other sites may frame it.',
        handlerValidatedQuery: shareLinkQuerySchema,
        responses: {
          200: html('The share page.'),
          404: html('The page of a link that does not work, whatever the reason.'),
          429: html(tooMany),
        },
      },
      async (ctx) => {
        setPageSecurityHeaders(ctx, { framable: true });
        await answerLinkPage(ctx, async () => sharePage(await readShared(ctx)), linkNotFoundPage);
      },
    );
}
