// The calendar feed of a schedule (docs/oncall.md#calendar-feed): its shifts of the next
// 60 days as RFC 5545, for calendar applications to subscribe to. Read with the schedule's
// ical_token instead of a workspace token; every refusal (malformed id, missing or wrong
// token, a replaced token, no such schedule) is the same 404, and each client address is
// rate-limited with the share links' limiter.
import ical from 'ical-generator';
import { notFound } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { type CalendarFeed, readCalendarFeed } from '../../oncall/onCall.js';
import type { Queryable } from '../../stores/postgres.js';
import { ApiRouter } from '../apiRouter.js';
import type { AddressRateLimiter } from '../public/addressRateLimit.js';

const feedQuerySchema = {
  type: 'object',
  properties: { token: { type: 'string', description: "The schedule's ical_token. Missing or wrong: the same 404 as an unknown schedule." } },
} as const;

/** How long a calendar application may keep a copy: handoffs move by edits and overrides, so not long. */
const MAX_AGE_SECONDS = 300;

/** The feed as RFC 5545 text: one event per shift, its UID the same on every fetch while the shift is unchanged, times in UTC. */
export function calendarText({ schedule, shifts, names }: CalendarFeed): string {
  const calendar = ical({
    name: `On call: ${schedule.name}`,
    prodId: { company: 'alertmon', product: 'on-call schedules', language: 'EN' },
    ttl: MAX_AGE_SECONDS,
  });
  for (const s of shifts) {
    const name = names.get(s.person_id) ?? 'Someone';
    calendar.createEvent({
      id: `shift-${new Date(s.starts_at).toISOString().replace(/[-:.]/g, '')}-${s.person_id}@${schedule.schedule_id}`,
      start: new Date(s.starts_at),
      end: new Date(s.ends_at),
      summary: `On call: ${name}`,
      description: `${name} is on call for ${schedule.name} (${s.layer === 'override' ? 'an override' : `layer ${s.layer}`}).`,
    });
  }
  return calendar.toString();
}

export function calendarRoutes(db: Queryable, limiter: AddressRateLimiter, now: () => number = Date.now): ApiRouter {
  return new ApiRouter('calendar feeds', '').add(
    {
      method: 'get',
      path: '/ical/schedules/:scheduleID.ics',
      auth: 'none',
      summary: 'A schedule’s calendar feed',
      description:
        'RFC 5545: one VEVENT per shift of the next 60 days (UID stable while the shift is unchanged, DTSTART/DTEND in UTC, SUMMARY with the person’s name), read with the schedule’s ical_token instead of a workspace token. ' +
        `An unknown or malformed id and a missing, wrong or replaced token all answer the same 404. Rate-limited per client address; Cache-Control: private, max-age=${MAX_AGE_SECONDS}.`,
      handlerValidatedQuery: feedQuerySchema,
      responses: {
        200: { description: 'The calendar.', contentType: 'text/calendar', schema: { type: 'string' } },
        404: { description: 'No such calendar (not_found), whatever the reason.' },
        429: { description: 'Too many requests from this client address (rate_limited), with Retry-After in seconds.' },
      },
    },
    async (ctx) => {
      limiter.take(ctx.ip);
      ctx.set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex' });
      const id = ctx.params.scheduleID!;
      const token = ctx.query.token;
      if (!isUuid(id) || typeof token !== 'string' || token.length > 200) throw notFound('calendar');
      const text = calendarText(await readCalendarFeed(db, id.toLowerCase(), token, now()));
      ctx.set('Cache-Control', `private, max-age=${MAX_AGE_SECONDS}`);
      ctx.type = 'text/calendar; charset=utf-8';
      ctx.body = text;
    },
  );
}
