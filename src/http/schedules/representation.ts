// Schedules, overrides and shifts as the API shows them.
import { layerAsWritten } from '../../oncall/checks.js';
import type { Override, Schedule, Shift } from '../../oncall/model.js';
import type { OnCall, Timeline } from '../../oncall/onCall.js';
import type { PublicLinks } from '../../publicLinks.js';
import { isoString } from '../../time/isoString.js';
import { personJson } from '../people/representation.js';

export function scheduleJson(s: Schedule, links: PublicLinks) {
  return {
    schedule_id: s.schedule_id,
    key: s.key,
    name: s.name,
    timezone: s.timezone,
    layers: s.layers.map((l) => layerAsWritten(l)),
    notify_handoffs: s.notify_handoffs,
    ical_token: s.ical_token,
    ical_url: links.presentedCalendarUrl(s),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

export function overrideJson(o: Override) {
  return {
    override_id: o.override_id,
    schedule_id: o.schedule_id,
    person_id: o.person_id,
    starts_at: o.starts_at.toISOString(),
    ends_at: o.ends_at.toISOString(),
    created_at: o.created_at.toISOString(),
  };
}

/** 10000-01-01: isoString's fast path covers the instants before it (a shift at the stores' last day may end after). */
const YEAR_10000 = 253_402_300_800_000;
const iso = (ms: number) => (ms >= 0 && ms < YEAR_10000 ? isoString(ms) : new Date(ms).toISOString());

/** A shift as the API shows it (thousands in one answer: the instants are formatted the fast way). */
export function shiftJson(s: Shift) {
  return { person_id: s.person_id, starts_at: iso(s.starts_at), ends_at: iso(s.ends_at), layer: s.layer };
}

export function onCallJson(at: Date, o: OnCall | undefined) {
  return {
    at: at.toISOString(),
    person: o?.person ? personJson(o.person) : null,
    layer: o?.layer ?? null,
    until: o?.until?.toISOString() ?? null,
  };
}

export function timelineJson(timezone: string, t: Timeline) {
  return {
    timezone,
    layers: t.layers.map((l) => ({ name: l.name, shifts: l.shifts.map(shiftJson) })),
    overrides: t.overrides.map(shiftJson),
    final: t.final.map(shiftJson),
  };
}
