// The Alertmanager API of an alert source (docs/alertmanager.md), under
// /alertmanager/<alert_source_id>: what Prometheus, vmalert and Grafana post their alerts to,
// with the workspace token as Bearer.
import { gettableAlerts, receiverOf, type AlertQuery } from '../../alertsources/gettable.js';
import type { ReceivedLeases } from '../../alertsources/leases.js';
import { parsePostedAlerts, receiveAlerts } from '../../alertsources/receive.js';
import { getAlertSource } from '../../alertsources/operations.js';
import { invalid } from '../../errors.js';
import { compileMatchers } from '../../matchers/match.js';
import { checkApiMatchers } from '../../silences/matchers.js';
import type { Silence } from '../../silences/model.js';
import { createSilence, expireSilence, getSilence, listSilences, updateSilence, type SilencesDeps } from '../../silences/operations.js';
import type { AppContext } from '../context.js';
import type { Matcher } from '../../matchers/model.js';
import { parseMatchers } from '../../matchers/parse.js';
import { packageVersion } from '../../paths.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf } from '../context.js';
import {
  alertQuerySchema,
  gettableAlertsSchema,
  gettableSilenceSchema,
  postableAlertsSchema,
  postableSilenceSchema,
  silenceQuerySchema,
  statusSchema,
} from './schemas.js';

export interface AlertmanagerRoutesDeps {
  readonly postgres: PostgresStore;
  readonly silences: SilencesDeps;
  readonly leases: ReceivedLeases;
}

/** A silence as Alertmanager's API shows it. */
function gettableSilence(s: Silence, now: number) {
  const state = s.ends_at.getTime() <= now ? 'expired' : s.starts_at.getTime() > now ? 'pending' : 'active';
  return {
    id: s.silence_id,
    matchers: (s.matchers ?? []).map((m) => ({ name: m.name, value: m.value, isRegex: m.isRegex, isEqual: m.isEqual })),
    startsAt: s.starts_at.toISOString(),
    endsAt: s.ends_at.toISOString(),
    updatedAt: s.updated_at.toISOString(),
    createdBy: s.created_by,
    comment: s.comment,
    status: { state },
  };
}

const started = Date.now();

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function flag(query: Record<string, string | string[] | undefined>, name: string): boolean {
  const v = asList(query[name]).at(-1);
  if (v === undefined) return true;
  if (v === 'true' || v === 'false') return v === 'true';
  throw invalid('invalid_query', `${name}: "${v}" is not a boolean (true or false)`, [{ path: `/${name}`, message: 'must be true or false' }]);
}

/** Alertmanager's alert query: filter matchers (each a matcher or a {…} list), active, silenced, inhibited (default true). */
function alertQuery(query: Record<string, string | string[] | undefined>): AlertQuery {
  const filter: Matcher[] = asList(query.filter).flatMap((text) => parseMatchers(text));
  return { filter, active: flag(query, 'active'), silenced: flag(query, 'silenced'), inhibited: flag(query, 'inhibited') };
}

const errors = {
  400: { description: 'A filter matcher that does not parse (invalid_matcher, invalid_matcher_regex) or a flag that is not true/false (invalid_query).' },
  404: { description: 'No such alert source in this workspace.' },
} as const;

export function alertmanagerRoutes({ postgres, silences, leases }: AlertmanagerRoutesDeps): ApiRouter {
  const sourceOf = (ctx: AppContext) => getAlertSource(postgres, workspaceOf(ctx), ctx.params.alertSourceID!);
  return new ApiRouter('alertmanager', '/alertmanager/:alertSourceID/api/v2', ['alertSourceID', 'silenceID'])
    .add(
      {
        method: 'get',
        path: '/silences',
        summary: 'The workspace’s silences that have matchers, as Alertmanager’s gettable silences',
        description:
          'Every silence of the workspace with matchers (made here or through /v1.0/silences), whatever its source: silences cover every alert of the workspace their matchers match. Query: filter (matchers that a silence’s equality matchers must satisfy).',
        handlerValidatedQuery: silenceQuerySchema,
        responses: { 200: { description: 'The silences.', schema: { type: 'array', items: gettableSilenceSchema } }, ...errors },
      },
      async (ctx) => {
        await sourceOf(ctx);
        const filter = compileMatchers(asList(ctx.query.filter).flatMap((text) => parseMatchers(text)));
        const now = Date.now();
        const all = await listSilences(postgres, workspaceOf(ctx), { limit: null, offset: 0 });
        ctx.body = all
          .filter((s) => s.matchers !== null)
          .filter((s) => filter(Object.fromEntries(s.matchers!.filter((m) => m.isEqual && !m.isRegex).map((m) => [m.name, m.value]))))
          .map((s) => gettableSilence(s, now));
      },
    )
    .add(
      {
        method: 'post',
        path: '/silences',
        summary: 'Create or update a silence, as Alertmanager',
        description:
          'Alertmanager’s postable silence; with id, that silence of the workspace is updated. It is an alertmon silence (shown in /v1.0/silences) with these matchers, for every alert of the workspace they match.',
        body: postableSilenceSchema,
        responses: {
          200: { description: 'Its id.', schema: { type: 'object', required: ['silenceID'], properties: { silenceID: { type: 'string', format: 'uuid' } } } },
          400: { description: 'validation_failed (a bad time, all matchers matching the empty string), invalid_matcher, invalid_matcher_regex.' },
          404: { description: 'No such alert source, or silence (id), in this workspace.' },
        },
      },
      async (ctx, { body }) => {
        await sourceOf(ctx);
        const fields = {
          matchers: checkApiMatchers(body.matchers),
          starts_at: new Date(body.startsAt),
          ends_at: new Date(body.endsAt),
          comment: body.comment ?? '',
          created_by: body.createdBy ?? '',
        };
        const silence =
          body.id === undefined
            ? await createSilence(silences, workspaceOf(ctx), { ...fields, policy_ids: null })
            : await updateSilence(silences, workspaceOf(ctx), body.id.toLowerCase(), fields);
        ctx.body = { silenceID: silence.silence_id };
      },
    )
    .add(
      {
        method: 'get',
        path: '/silence/:silenceID',
        summary: 'One silence, as Alertmanager',
        responses: {
          200: { description: 'The silence.', schema: gettableSilenceSchema },
          404: { description: 'No such alert source or silence in this workspace.' },
        },
      },
      async (ctx) => {
        await sourceOf(ctx);
        ctx.body = gettableSilence(await getSilence(postgres, workspaceOf(ctx), ctx.params.silenceID!), Date.now());
      },
    )
    .add(
      {
        method: 'delete',
        path: '/silence/:silenceID',
        summary: 'Expire a silence, as Alertmanager',
        description:
          'Expires the silence as Alertmanager does: an active one ends now, a pending one starts and ends now, an expired one is left as it is; it stays, expired, in GET …/silences and /v1.0/silences. Notifications it held go out if their alerts are still open.',
        responses: { 200: { description: 'Ended; an empty body.' }, 404: { description: 'No such alert source or silence in this workspace.' } },
      },
      async (ctx) => {
        await sourceOf(ctx);
        await expireSilence(postgres, workspaceOf(ctx), ctx.params.silenceID!, new Date());
        ctx.status = 200;
        ctx.body = '';
      },
    )
    .add(
      {
        method: 'get',
        path: '/status',
        summary: 'Alertmanager status',
        description:
          'A valid Alertmanager status object, so amtool and Grafana accept the source: alertmon runs no cluster (status "disabled") and has no Alertmanager configuration file (config.original is a comment naming the source).',
        responses: { 200: { description: 'The status.', schema: statusSchema }, 404: errors[404] },
      },
      async (ctx) => {
        // The source only: the status reads no alerts.
        const source = await sourceOf(ctx);
        ctx.body = {
          cluster: { status: 'disabled', peers: [] },
          config: { original: `# alertmon alert source ${source.alert_source_id} (${source.name}): routing, silences and inhibition are set in alertmon.\n` },
          uptime: new Date(started).toISOString(),
          versionInfo: {
            version: packageVersion,
            revision: 'alertmon',
            branch: 'alertmon',
            buildUser: 'alertmon',
            buildDate: '',
            goVersion: 'none (alertmon, Node.js)',
          },
        };
      },
    )
    .add(
      {
        method: 'get',
        path: '/alerts',
        summary: 'The source’s open alerts, as Alertmanager’s gettable alerts',
        description:
          'Query: filter (repeated; Alertmanager matchers, all must match), active, silenced, inhibited (true by default). An acknowledged alert is still open, so listed.',
        handlerValidatedQuery: alertQuerySchema,
        responses: { 200: { description: 'The alerts.', schema: gettableAlertsSchema }, ...errors },
      },
      async (ctx) => {
        const query = alertQuery(ctx.query);
        ctx.body = (await gettableAlerts(postgres, workspaceOf(ctx), ctx.params.alertSourceID!, query, new Date(), (id) => leases.endOf(id))).alerts;
      },
    )
    .add(
      {
        method: 'get',
        path: '/alerts/groups',
        summary: 'The source’s open alerts as one alert group',
        description:
          'alertmon has no routing tree: the group is every open alert of the source that the query keeps, its receiver the source, its labels empty. No alerts, no group.',
        handlerValidatedQuery: alertQuerySchema,
        responses: {
          200: {
            description: 'The groups.',
            schema: {
              type: 'array',
              items: {
                type: 'object',
                required: ['alerts', 'labels', 'receiver'],
                properties: {
                  alerts: gettableAlertsSchema,
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  receiver: { type: 'object', properties: { name: { type: 'string' } } },
                },
              },
            },
          },
          ...errors,
        },
      },
      async (ctx) => {
        const query = alertQuery(ctx.query);
        const { source, alerts } = await gettableAlerts(postgres, workspaceOf(ctx), ctx.params.alertSourceID!, query, new Date(), (id) => leases.endOf(id));
        ctx.body = alerts.length === 0 ? [] : [{ alerts, labels: {}, receiver: receiverOf(source) }];
      },
    )
    .add(
      {
        method: 'post',
        path: '/alerts',
        summary: 'Post alerts, as to an Alertmanager',
        description:
          'Alertmanager’s postable alerts. Each label set is one alert of the source (its fingerprint): a firing one (no endsAt, or a future one) raises it if none is open and notifies; later posts update its annotations and lease without notifying; a past endsAt resolves it, and so does no post for resolve_timeout_minutes (or the last endsAt passing). A re-post of unchanged alerts writes nothing. An acknowledged alert stays acknowledged; one a person resolved is not raised again until a new startsAt.',
        handlerValidatedBody: postableAlertsSchema,
        responses: {
          200: { description: 'Taken; an empty body.' },
          400: {
            description:
              'invalid_alerts (details name each path, the message says what Alertmanager would: "at least one label pair required", "start time must be before end time"…) or too_many_alerts (more than 5,000 in one post).',
          },
          404: { description: 'No such alert source in this workspace.' },
          413: { description: 'The body is larger than 1 MiB: send fewer alerts per post.' },
        },
      },
      async (ctx) => {
        const posted = parsePostedAlerts(ctx.request.body);
        await receiveAlerts(postgres, workspaceOf(ctx), ctx.params.alertSourceID!, posted, new Date(), leases);
        ctx.status = 200;
        ctx.body = '';
      },
    );
}
