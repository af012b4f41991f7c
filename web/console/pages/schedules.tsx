// On-call schedules: who is on call now in each, and for the one chosen a two-week timeline
// (each layer, the overrides, the final line), its overrides and the calendar link. Every
// time is shown in the schedule's timezone, which the page names.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, errorText, listAll } from '../api.js';
import { formatTime } from '../../shared/time.js';
import { failureOf, type FormFailure, noFailure, Time } from '../components.js';
import { DataTable, type ListColumn } from '../dataTable.js';
import { navigate, useLoad } from '../hooks.js';
import type { PageProps } from '../types.js';
import { DAY_NAMES } from '../words.js';
import type { Person } from './people.js';
import { ManagedNotice } from '../managed.js';

interface Layer {
  name: string;
  start: string;
  rotation: { type: 'daily' | 'weekly' | 'hours'; length: number; handoff: string | null };
  members: string[];
  restrict_to: { days: string[]; start: string; end: string } | null;
}
interface Schedule {
  schedule_id: string;
  name: string;
  timezone: string;
  layers: Layer[];
  ical_token: string;
  ical_url: string | null;
}
interface Shift {
  person_id: string;
  starts_at: string;
  ends_at: string;
  layer: string;
}
interface OnCall {
  person: Person | null;
  layer: string | null;
  until: string | null;
}
interface Timeline {
  layers: { name: string; shifts: Shift[] }[];
  overrides: Shift[];
  final: Shift[];
}
interface Override {
  override_id: string;
  person_id: string;
  starts_at: string;
  ends_at: string;
}

const DAY = 86_400_000;
/** A time in the schedule's zone, which it names: "Jan 5, 2027, 09:00 (Europe/Berlin)". */
const timeIn = (zone: string, iso: string) => formatTime(iso, zone);

/** The rotation in words. */
function rotationText(l: Layer): string {
  const { type, length, handoff } = l.rotation;
  const every =
    type === 'hours'
      ? `Every ${length} hour${length === 1 ? '' : 's'}`
      : `Every ${length === 1 ? '' : `${length} `}${type === 'daily' ? 'day' : 'week'}${length === 1 ? '' : 's'}, handing off at ${handoff}`;
  const only = l.restrict_to ? `; only ${l.restrict_to.days.map((d) => DAY_NAMES[d]).join(', ')} ${l.restrict_to.start}–${l.restrict_to.end}` : '';
  return every + only;
}

/** The UTC instant of a local date-time ("2027-01-05T09:00") in `zone`. */
function zonedToIso(local: string, zone: string): string {
  const [d, t = '00:00'] = local.split('T');
  const [y, m, day] = d!.split('-').map(Number);
  const [h, min] = t.split(':').map(Number);
  const wall = Date.UTC(y!, m! - 1, day!, h!, min!);
  const offsetAt = (at: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(new Date(at))
      .reduce<Record<string, number>>((acc, p) => {
        if (p.type !== 'literal') acc[p.type] = Number(p.value);
        return acc;
      }, {});
    return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) - Math.floor(at / 60_000) * 60_000;
  };
  let guess = wall - offsetAt(wall);
  guess = wall - offsetAt(guess);
  return new Date(guess).toISOString();
}

export function SchedulesPage({ route }: PageProps): JSX.Element {
  const schedules = useLoad(() => listAll<Schedule>('/v1.0/schedules'), []);
  const people = useLoad(() => listAll<Person>('/v1.0/people'), []);
  const onCall = useLoad(
    async () =>
      new Map(
        await Promise.all(
          (schedules.value ?? []).map(async (s) => [s.schedule_id, await api<OnCall>('GET', `/v1.0/schedules/${s.schedule_id}/on-call`)] as const),
        ),
      ),
    [schedules.value],
  );
  const chosen = schedules.value?.find((s) => s.schedule_id === route.parts[1]) ?? schedules.value?.[0];
  const names = new Map((people.value ?? []).map((p) => [p.person_id, p.name]));
  const nameOf = (id: string) => names.get(id) ?? 'someone';
  const listColumns: ListColumn<Schedule>[] = [
    { label: 'Schedule', role: 'title', cell: (s) => <a href={`#/schedules/${s.schedule_id}`}>{s.name}</a> },
    {
      label: 'On call now',
      cell: (s) => {
        const now = onCall.value?.get(s.schedule_id);
        return now === undefined ? '…' : now.person ? `${now.person.name} (${now.layer === 'override' ? 'an override' : `layer ${now.layer}`})` : 'No one';
      },
    },
    { label: 'Until', cell: (s) => <Time at={onCall.value?.get(s.schedule_id)?.until} zone={s.timezone} /> },
    { label: 'Timezone', cell: (s) => s.timezone },
  ];
  return (
    <section aria-labelledby="schedules-heading">
      <h1 id="schedules-heading">On-call schedules</h1>
      {schedules.error ? <p role="alert">{errorText(schedules.error)}</p> : null}
      {schedules.value && schedules.value.length === 0 && (
        <p>No schedules yet. Create one through the API (POST /v1.0/schedules, see the docs’ “On-call schedules”).</p>
      )}
      {schedules.value && schedules.value.length > 0 && (
        <DataTable
          columns={listColumns}
          rows={schedules.value}
          rowKey={(s) => s.schedule_id}
          current={(s) => s.schedule_id === chosen?.schedule_id}
          className="schedules"
        />
      )}
      {chosen && <ScheduleDetail key={chosen.schedule_id} schedule={chosen} people={people.value ?? []} nameOf={nameOf} onChanged={onCall.reload} />}
    </section>
  );
}

function ScheduleDetail({
  schedule,
  people,
  nameOf,
  onChanged,
}: {
  schedule: Schedule;
  people: readonly Person[];
  nameOf: (id: string) => string;
  onChanged: () => void;
}): JSX.Element {
  const zone = schedule.timezone;
  const [from] = useState(() => Math.floor(Date.now() / 3_600_000) * 3_600_000);
  const to = from + 14 * DAY;
  const range = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
  const timeline = useLoad(() => api<Timeline>('GET', `/v1.0/schedules/${schedule.schedule_id}/timeline?${range}`), [schedule.schedule_id]);
  const overrides = useLoad(() => listAll<Override>(`/v1.0/schedules/${schedule.schedule_id}/overrides`), [schedule.schedule_id]);
  const [draft, setDraft] = useState({ person_id: '', starts_at: '', ends_at: '' });
  const [failure, setFailure] = useState<FormFailure>(noFailure);
  const [message, setMessage] = useState<string | null>(null);
  const feed = schedule.ical_url ?? `${location.origin}/ical/schedules/${schedule.schedule_id}.ics?token=${encodeURIComponent(schedule.ical_token)}`;
  const reload = () => {
    timeline.reload();
    overrides.reload();
    onChanged();
  };
  const addOverride = async (e: Event) => {
    e.preventDefault();
    try {
      const body = {
        person_id: draft.person_id,
        starts_at: draft.starts_at && zonedToIso(draft.starts_at, zone),
        ends_at: draft.ends_at && zonedToIso(draft.ends_at, zone),
      };
      await api('POST', `/v1.0/schedules/${schedule.schedule_id}/overrides`, body);
      setFailure(noFailure);
      setDraft({ person_id: '', starts_at: '', ends_at: '' });
      setMessage(`${nameOf(body.person_id)} is on call from ${timeIn(zone, body.starts_at)} to ${timeIn(zone, body.ends_at)}.`);
      reload();
    } catch (err) {
      setFailure(failureOf(err));
    }
  };
  const removeOverride = async (o: Override) => {
    try {
      await api('DELETE', `/v1.0/schedules/${schedule.schedule_id}/overrides/${o.override_id}`);
      setMessage('The override was removed.');
      reload();
    } catch (err) {
      setMessage(errorText(err));
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(feed);
      setMessage('The calendar link was copied.');
    } catch {
      (document.getElementById('calendar-link') as HTMLInputElement | null)?.select();
      setMessage('Select the link and copy it.');
    }
  };
  const detail = (path: string) => failure.details.find((d) => d.path === path)?.message;
  const shiftColumns: ListColumn<Shift>[] = [
    { label: 'Who is on call', role: 'title', cell: (s) => nameOf(s.person_id) },
    { label: 'From', cell: (s) => <Time at={s.starts_at} zone={zone} /> },
    { label: 'To', cell: (s) => <Time at={s.ends_at} zone={zone} /> },
    { label: 'By', cell: (s) => (s.layer === 'override' ? 'an override' : `layer ${s.layer}`) },
  ];
  const overrideColumns: ListColumn<Override>[] = [
    { label: 'Who', role: 'title', cell: (o) => nameOf(o.person_id) },
    { label: 'From', cell: (o) => <Time at={o.starts_at} zone={zone} /> },
    { label: 'To', cell: (o) => <Time at={o.ends_at} zone={zone} /> },
    {
      label: 'Actions',
      role: 'actions',
      hiddenLabel: true,
      cell: (o) => (
        <button type="button" class="danger" onClick={() => void removeOverride(o)} aria-label={`Remove the override of ${nameOf(o.person_id)}`}>
          Remove
        </button>
      ),
    },
  ];
  const rows: { label: string; shifts: Shift[]; final?: boolean }[] = timeline.value
    ? [
        ...timeline.value.layers.map((l) => ({ label: `Layer ${l.name}`, shifts: l.shifts })),
        { label: 'Overrides', shifts: timeline.value.overrides },
        { label: 'Who is on call', shifts: timeline.value.final, final: true },
      ]
    : [];
  return (
    <article class="panel schedule-detail" aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">{schedule.name}</h2>
      <ManagedNotice kind="schedules" id={schedule.schedule_id} version={schedule} />
      <p class="muted">
        Times in {zone} (the schedule’s timezone). Layers, lowest first: {schedule.layers.map((l) => `${l.name}: ${rotationText(l)}`).join(' · ')}.
      </p>
      <p role="status">{message}</p>
      <h3>The next two weeks</h3>
      {timeline.error ? <p role="alert">{errorText(timeline.error)}</p> : null}
      <div class="timeline-scroll">
        <div class="timeline" role="img" aria-label={`Timeline of ${schedule.name}, two weeks from ${timeIn(zone, new Date(from).toISOString())}`}>
          <div class="timeline-days" aria-hidden="true">
            {Array.from({ length: 14 }, (_, i) => (
              <span key={i} style={{ left: `${(i / 14) * 100}%` }}>
                {new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', day: 'numeric' }).format(new Date(from + i * DAY))}
              </span>
            ))}
          </div>
          {rows.map((row) => (
            <div class={`timeline-row${row.final ? ' final' : ''}`} key={row.label}>
              <span class="timeline-label">{row.label}</span>
              <div class="timeline-track">
                {row.shifts.map((s) => {
                  const a = Math.max(from, Date.parse(s.starts_at));
                  const b = Math.min(to, Date.parse(s.ends_at));
                  if (b <= a) return null;
                  return (
                    <span
                      class={`timeline-bar${s.layer === 'override' ? ' override' : ''}`}
                      key={s.starts_at + s.person_id}
                      style={{ left: `${((a - from) / (to - from)) * 100}%`, width: `${((b - a) / (to - from)) * 100}%` }}
                      title={`${nameOf(s.person_id)}: ${timeIn(zone, s.starts_at)} – ${timeIn(zone, s.ends_at)}`}
                    >
                      {nameOf(s.person_id)}
                    </span>
                  );
                })}
              </div>
            </div>
          ))}
        </div>
      </div>
      {timeline.value && (
        <details class="shift-details">
          <summary>The two weeks’ shifts as a list ({timeline.value.final.length})</summary>
          <DataTable columns={shiftColumns} rows={timeline.value.final} rowKey={(s) => s.starts_at + s.person_id} className="shift-list" />
        </details>
      )}
      <h3>Overrides</h3>
      {overrides.value && overrides.value.length === 0 && <p>No overrides.</p>}
      {overrides.value && overrides.value.length > 0 && (
        <DataTable columns={overrideColumns} rows={overrides.value} rowKey={(o) => o.override_id} className="overrides" />
      )}
      <form class="override-form" onSubmit={addOverride} noValidate aria-labelledby="override-heading">
        <h4 id="override-heading">Put someone on call for a while</h4>
        {failure.message && (
          <p class="field-error" role="alert">
            {failure.message}
          </p>
        )}
        <div class="field">
          <label for="override-person">Who</label>
          <select id="override-person" value={draft.person_id} onChange={(e) => setDraft({ ...draft, person_id: e.currentTarget.value })}>
            <option value="">Choose a person…</option>
            {people.map((p) => (
              <option key={p.person_id} value={p.person_id}>
                {p.name}
              </option>
            ))}
          </select>
          {detail('/person_id') && <p class="field-error">{detail('/person_id')}</p>}
        </div>
        <div class="field">
          <label for="override-from">From ({zone})</label>
          <input id="override-from" type="datetime-local" value={draft.starts_at} onInput={(e) => setDraft({ ...draft, starts_at: e.currentTarget.value })} />
          {detail('/starts_at') && <p class="field-error">{detail('/starts_at')}</p>}
        </div>
        <div class="field">
          <label for="override-to">To ({zone})</label>
          <input id="override-to" type="datetime-local" value={draft.ends_at} onInput={(e) => setDraft({ ...draft, ends_at: e.currentTarget.value })} />
          {detail('/ends_at') && <p class="field-error">{detail('/ends_at')}</p>}
        </div>
        <button class="primary" type="submit">
          Add override
        </button>
      </form>
      <h3>Calendar</h3>
      <p class="muted">Subscribe to this link in a calendar application to see the shifts of the next 60 days. Anyone with the link can read them.</p>
      <div class="copy-row">
        <label for="calendar-link" class="visually-hidden">
          Calendar link
        </label>
        <input id="calendar-link" readOnly value={feed} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy link
        </button>
      </div>
      <p>
        <button type="button" class="link" onClick={() => navigate('#/people')}>
          People…
        </button>
      </p>
    </article>
  );
}
