// Acknowledge links (docs/api.md, Acknowledging from the message): /ack/<alert_id>?token=…
// GET shows the alert and a button and changes nothing; POST acknowledges. A malformed id, a
// missing or wrong token, another alert's token, an unknown alert and an alert no longer
// triggered all get the same 404 page; each client address is rate-limited with the share
// links' limiter; nothing is cached.
import { alertJson } from '../../alerts/model.js';
import { acknowledgeFromLink, ackLinkOpens } from '../../alerts/operations.js';
import { notFound } from '../../errors.js';
import { isUuid } from '../../ids.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { ApiRouter } from '../apiRouter.js';
import type { AppContext } from '../context.js';
import { setPageSecurityHeaders } from '../middleware/securityHeaders.js';
import type { AddressRateLimiter } from '../public/addressRateLimit.js';
import { answerLinkPage } from '../public/linkPage.js';
import { ackLinkNotFoundPage, ackPage, acknowledgedPage } from './page.js';

const html = (description: string) => ({ description, contentType: 'text/html', schema: { type: 'string' } }) as const;

const ackQuerySchema = {
  type: 'object',
  properties: { token: { type: 'string', description: 'The token of the link. Missing or wrong: the same 404 as an unknown alert.' } },
} as const;

const responses = (ok: string) =>
  ({
    200: html(ok),
    404: html('The page of a link that does not work, whatever the reason (not_found).'),
    429: html('Too many requests from this client address (rate_limited), with Retry-After in seconds.'),
  }) as const;

export function ackRoutes(postgres: PostgresStore, limiter: AddressRateLimiter): ApiRouter {
  /** Renders the page `render` makes, or the refusal page: every refusal looks the same. */
  const answer = async (ctx: AppContext, render: (alertId: string, token: string) => Promise<string>) => {
    // The form posts back to this page, so the page's policy allows a form to this origin.
    setPageSecurityHeaders(ctx, { framable: false, postsForms: true });
    ctx.set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
    await answerLinkPage(
      ctx,
      async () => {
        limiter.take(ctx.ip);
        const id = ctx.params.alertID!;
        const token = ctx.query.token;
        if (!isUuid(id) || typeof token !== 'string') throw notFound('alert');
        return render(id.toLowerCase(), token);
      },
      ackLinkNotFoundPage,
    );
  };

  return new ApiRouter('acknowledge links', '')
    .add(
      {
        method: 'get',
        path: '/ack/:alertID',
        auth: 'none',
        summary: 'The acknowledge page of an alert',
        description:
          'The page a notification’s acknowledge link opens: the alert and one button, which POSTs to the same link. Changes nothing (link previews and mail scanners follow GETs).',
        handlerValidatedQuery: ackQuerySchema,
        responses: responses('The page with its button.'),
      },
      async (ctx) => {
        await answer(ctx, async (id, token) => ackPage(alertJson(await ackLinkOpens(postgres, id, token))));
      },
    )
    .add(
      {
        method: 'post',
        path: '/ack/:alertID',
        auth: 'none',
        summary: 'Acknowledge an alert from its link',
        description:
          'Acknowledges the alert (as POST /v1.0/alerts/:alertID/acknowledge does; the alert records acknowledged_via "notification_link"), only while it is triggered. Takes no body.',
        handlerValidatedQuery: ackQuerySchema,
        responses: responses('The alert is acknowledged.'),
      },
      async (ctx) => {
        await answer(ctx, async (id, token) => acknowledgedPage(alertJson(await acknowledgeFromLink(postgres, id, token, new Date()))));
      },
    );
}
