// The shift computation: rotations, handoffs at local time across DST changes, restrictions,
// layers and overrides, and property checks over many random schedules against an
// independent per-instant reference.
import { expect } from 'chai';
import type { Layer, Restriction, RotationType, Shift } from '../../../src/oncall/model.js';
import { computeShifts, type OverrideSpan, type ScheduleRules, shiftAt } from '../../../src/oncall/shifts.js';
import { inRecurringWindow } from '../../../src/silences/coverage.js';
import { minutesOf, WEEKDAYS } from '../../../src/time/weekly.js';
import { wallTimeOf } from '../../../src/time/zonedTime.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function layer(over: Partial<Omit<Layer, 'start' | 'rotation'>> & { start: string; type?: RotationType; length?: number; handoff?: string | null }): Layer {
  const type = over.type ?? 'daily';
  return {
    name: over.name ?? 'primary',
    start: new Date(over.start),
    rotation: { type, length: over.length ?? 1, handoff: type === 'hours' ? null : (over.handoff ?? '09:00') },
    members: over.members ?? ['ada', 'bo', 'cy'],
    restrict_to: over.restrict_to ?? null,
  };
}

const rules = (timezone: string, ...layers: Layer[]): ScheduleRules => ({ timezone, layers });
const override = (person: string, from: string, to: string): OverrideSpan => ({ person_id: person, starts_at: at(from), ends_at: at(to) });
const range = (from: string, to: string) => ({ from: at(from), to: at(to) });
/** Shifts as [person, start, end] with ISO instants, for readable comparisons. */
const rows = (shifts: readonly Shift[]) => shifts.map((s) => [s.person_id, iso(s.starts_at), iso(s.ends_at), s.layer]);

describe('on-call shifts: rotations', () => {
  it('turns daily at the handoff, members in order from start', () => {
    const r = rules('UTC', layer({ start: '2027-01-04T09:00:00Z' }));
    expect(rows(computeShifts(r, [], range('2027-01-04T09:00:00Z', '2027-01-08T09:00:00Z')))).to.deep.equal([
      ['ada', '2027-01-04T09:00:00.000Z', '2027-01-05T09:00:00.000Z', 'primary'],
      ['bo', '2027-01-05T09:00:00.000Z', '2027-01-06T09:00:00.000Z', 'primary'],
      ['cy', '2027-01-06T09:00:00.000Z', '2027-01-07T09:00:00.000Z', 'primary'],
      ['ada', '2027-01-07T09:00:00.000Z', '2027-01-08T09:00:00.000Z', 'primary'],
    ]);
  });

  it('takes length days per turn, and nobody before start', () => {
    const r = rules('UTC', layer({ start: '2027-01-04T09:00:00Z', length: 2, members: ['ada', 'bo'] }));
    expect(rows(computeShifts(r, [], range('2027-01-01T00:00:00Z', '2027-01-09T00:00:00Z'))).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-01-04T09:00:00.000Z', '2027-01-06T09:00:00.000Z'],
      ['bo', '2027-01-06T09:00:00.000Z', '2027-01-08T09:00:00.000Z'],
      ['ada', '2027-01-08T09:00:00.000Z', '2027-01-10T09:00:00.000Z'],
    ]);
  });

  it('turns weekly on the weekday of start, at the handoff', () => {
    // 2027-01-04 is a Monday; handoffs every second Monday at 09:00 Berlin (08:00Z in winter).
    const r = rules('Europe/Berlin', layer({ start: '2027-01-04T08:00:00Z', type: 'weekly', length: 2, members: ['ada', 'bo'] }));
    expect(rows(computeShifts(r, [], range('2027-01-04T08:00:00Z', '2027-02-01T08:00:00Z'))).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-01-04T08:00:00.000Z', '2027-01-18T08:00:00.000Z'],
      ['bo', '2027-01-18T08:00:00.000Z', '2027-02-01T08:00:00.000Z'],
    ]);
  });

  it('turns every length hours from start in an hours rotation, whatever the local clock', () => {
    // New York springs forward on 2027-03-14: the 12-hour turns stay 12 real hours.
    const r = rules('America/New_York', layer({ start: '2027-03-13T20:00:00Z', type: 'hours', length: 12, members: ['ada', 'bo'] }));
    expect(rows(computeShifts(r, [], range('2027-03-13T20:00:00Z', '2027-03-15T20:00:00Z'))).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-03-13T20:00:00.000Z', '2027-03-14T08:00:00.000Z'],
      ['bo', '2027-03-14T08:00:00.000Z', '2027-03-14T20:00:00.000Z'],
      ['ada', '2027-03-14T20:00:00.000Z', '2027-03-15T08:00:00.000Z'],
      ['bo', '2027-03-15T08:00:00.000Z', '2027-03-15T20:00:00.000Z'],
    ]);
  });

  it('gives the first member the rest of the turn when start falls between handoffs', () => {
    const r = rules('UTC', layer({ start: '2027-01-04T00:00:00Z', handoff: '09:00', members: ['ada', 'bo'] }));
    expect(rows(computeShifts(r, [], range('2027-01-04T00:00:00Z', '2027-01-05T12:00:00Z'))).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-01-04T00:00:00.000Z', '2027-01-04T09:00:00.000Z'],
      ['bo', '2027-01-04T09:00:00.000Z', '2027-01-05T09:00:00.000Z'],
      ['ada', '2027-01-05T09:00:00.000Z', '2027-01-06T09:00:00.000Z'],
    ]);
  });

  it('shows the shifts at both ends of a range whole, the same whatever the range', () => {
    const r = rules('UTC', layer({ start: '2027-01-04T09:00:00Z', type: 'weekly' }));
    const inner = computeShifts(r, [], range('2027-01-13T00:00:00Z', '2027-01-13T01:00:00Z'));
    expect(rows(inner).map((x) => x.slice(0, 3))).to.deep.equal([['bo', '2027-01-11T09:00:00.000Z', '2027-01-18T09:00:00.000Z']]);
    const outer = computeShifts(r, [], range('2027-01-04T09:00:00Z', '2027-02-01T09:00:00Z'));
    expect(outer).to.deep.include(inner[0]);
  });
});

describe('on-call shifts: handoffs at local time across DST changes', () => {
  // [zone, a day before a change, the change, local hour of the handoff, its UTC hour before, after]
  const changes: [string, string, string, number, number][] = [
    ['America/New_York', '2027-03-10', 'spring (EST → EDT)', 14, 13],
    ['America/New_York', '2027-11-03', 'autumn (EDT → EST)', 13, 14],
    ['Europe/Berlin', '2027-03-24', 'spring (CET → CEST)', 8, 7],
    ['Europe/Berlin', '2027-10-27', 'autumn (CEST → CET)', 7, 8],
    ['Australia/Sydney', '2027-09-29', 'spring (AEST → AEDT)', 23, 22],
    ['Australia/Sydney', '2027-03-31', 'autumn (AEDT → AEST)', 22, 23],
  ];
  for (const [zone, day, change, before, after] of changes) {
    it(`hands off at 09:00 ${zone} on both sides of the ${change} change`, () => {
      // A daily rotation anchored at 09:00 local a few days before the change, over two weeks.
      const startUtc = zone === 'Australia/Sydney' ? at(`${day}T00:00:00Z`) - DAY + before * HOUR : at(`${day}T00:00:00Z`) + before * HOUR;
      const r = rules(zone, layer({ start: iso(startUtc), members: ['ada', 'bo'] }));
      const shifts = computeShifts(r, [], { from: startUtc, to: startUtc + 14 * DAY });
      expect(shifts.length).to.be.within(14, 15);
      for (const s of shifts) {
        const wall = wallTimeOf(zone, s.starts_at);
        expect([wall.hour, wall.minute], iso(s.starts_at)).to.deep.equal([9, 0]);
      }
      const hours = shifts.map((s) => (s.ends_at - s.starts_at) / HOUR);
      // Exactly one turn holds the change: 23 hours in spring, 25 in autumn.
      const odd = hours.filter((h) => h !== 24);
      expect(odd).to.deep.equal([before > after ? 23 : 25]);
      expect(new Date(shifts[0]!.starts_at).getUTCHours()).to.equal(before);
      expect(new Date(shifts[shifts.length - 1]!.starts_at).getUTCHours()).to.equal(after);
    });
  }

  it('hands off weekly at 09:00 local across the change, a turn of 167 or 169 hours', () => {
    // Mondays 09:00 New York: 2027-03-08 (EST, 14:00Z), 2027-03-15 (EDT, 13:00Z).
    const r = rules('America/New_York', layer({ start: '2027-03-08T14:00:00Z', type: 'weekly', members: ['ada', 'bo'] }));
    const spring = computeShifts(r, [], range('2027-03-08T14:00:00Z', '2027-03-22T13:00:00Z'));
    expect(rows(spring).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-03-08T14:00:00.000Z', '2027-03-15T13:00:00.000Z'],
      ['bo', '2027-03-15T13:00:00.000Z', '2027-03-22T13:00:00.000Z'],
    ]);
    const autumn = computeShifts(r, [], range('2027-11-02T00:00:00Z', '2027-11-09T00:00:00Z'));
    expect(autumn.map((s) => (s.ends_at - s.starts_at) / HOUR)).to.include(169);
  });

  it('hands off at 09:00 in a zone of a half-hour offset (Asia/Kolkata, 03:30Z)', () => {
    const r = rules('Asia/Kolkata', layer({ start: '2027-01-04T03:30:00Z', members: ['ada', 'bo'] }));
    const shifts = computeShifts(r, [], range('2027-01-04T03:30:00Z', '2027-01-07T03:30:00Z'));
    expect(shifts.map((s) => iso(s.starts_at))).to.deep.equal(['2027-01-04T03:30:00.000Z', '2027-01-05T03:30:00.000Z', '2027-01-06T03:30:00.000Z']);
  });

  it('moves a handoff in the skipped hour forward by the jump, and takes the first of a repeated hour', () => {
    // Berlin jumps 02:00 → 03:00 on 2027-03-28 and falls back 03:00 → 02:00 on 2027-10-31.
    const r = rules('Europe/Berlin', layer({ start: '2027-03-26T01:30:00Z', handoff: '02:30', members: ['ada', 'bo'] }));
    const starts = computeShifts(r, [], range('2027-03-27T12:00:00Z', '2027-03-29T12:00:00Z')).map((s) => iso(s.starts_at));
    expect(starts).to.deep.equal(['2027-03-27T01:30:00.000Z', '2027-03-28T01:30:00.000Z', '2027-03-29T00:30:00.000Z']);
    const autumn = computeShifts(r, [], range('2027-10-31T00:00:00Z', '2027-10-31T02:00:00Z')).map((s) => iso(s.starts_at));
    expect(autumn).to.deep.equal(['2027-10-30T00:30:00.000Z', '2027-10-31T00:30:00.000Z']);
  });
});

describe('on-call shifts: restrictions and layers', () => {
  const weekdays: Restriction = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' };

  it('keeps a layer restricted to weekdays 09:00–17:00 to those hours, in the schedule’s zone', () => {
    const r = rules('Europe/Berlin', layer({ start: '2027-01-04T08:00:00Z', type: 'weekly', members: ['ada'], restrict_to: weekdays }));
    const shifts = computeShifts(r, [], range('2027-01-04T00:00:00Z', '2027-01-11T00:00:00Z'));
    expect(shifts.map((s) => [iso(s.starts_at), iso(s.ends_at)])).to.deep.equal(
      [4, 5, 6, 7, 8].map((d) => [`2027-01-0${d}T08:00:00.000Z`, `2027-01-0${d}T16:00:00.000Z`]),
    );
  });

  it('runs a night restriction past midnight, split where a turn hands off inside it', () => {
    const nights: Restriction = { days: ['fri', 'sat'], start: '22:00', end: '06:00' };
    const r = rules('UTC', layer({ start: '2027-01-01T00:00:00Z', handoff: '00:00', members: ['ada', 'bo'], restrict_to: nights }));
    // 2027-01-01 is a Friday: Friday night 22:00 → Saturday 06:00, Saturday night → Sunday 06:00.
    expect(rows(computeShifts(r, [], range('2027-01-01T00:00:00Z', '2027-01-04T00:00:00Z'))).map((x) => x.slice(0, 3))).to.deep.equal([
      ['ada', '2027-01-01T22:00:00.000Z', '2027-01-02T00:00:00.000Z'],
      ['bo', '2027-01-02T00:00:00.000Z', '2027-01-02T06:00:00.000Z'],
      ['bo', '2027-01-02T22:00:00.000Z', '2027-01-03T00:00:00.000Z'],
      ['ada', '2027-01-03T00:00:00.000Z', '2027-01-03T06:00:00.000Z'],
    ]);
  });

  it('lets the later layer win where both have someone, the earlier one showing around it', () => {
    const base = layer({ name: 'base', start: '2027-01-04T09:00:00Z', type: 'weekly', members: ['ada'] });
    const day = layer({ name: 'office', start: '2027-01-04T09:00:00Z', members: ['cy'], restrict_to: { ...weekdays, days: ['mon'] } });
    expect(rows(computeShifts(rules('UTC', base, day), [], range('2027-01-04T09:00:00Z', '2027-01-05T09:00:00Z')))).to.deep.equal([
      ['cy', '2027-01-04T09:00:00.000Z', '2027-01-04T17:00:00.000Z', 'office'],
      ['ada', '2027-01-04T17:00:00.000Z', '2027-01-11T09:00:00.000Z', 'base'],
    ]);
  });

  it('leaves no one on call where no layer has someone', () => {
    const r = rules('UTC', layer({ start: '2027-01-04T09:00:00Z', restrict_to: weekdays }));
    expect(shiftAt(r, [], at('2027-01-09T12:00:00Z'))).to.equal(null);
    expect(shiftAt(r, [], at('2027-01-01T12:00:00Z'))).to.equal(null);
  });
});

describe('on-call shifts: overrides', () => {
  const r = rules('UTC', layer({ start: '2027-01-04T09:00:00Z', members: ['ada', 'bo'] }));

  it('covers part of a shift: the shift shows before and after it', () => {
    const shifts = computeShifts(r, [override('zed', '2027-01-04T12:00:00Z', '2027-01-04T15:00:00Z')], range('2027-01-04T09:00:00Z', '2027-01-05T09:00:00Z'));
    expect(rows(shifts)).to.deep.equal([
      ['ada', '2027-01-04T09:00:00.000Z', '2027-01-04T12:00:00.000Z', 'primary'],
      ['zed', '2027-01-04T12:00:00.000Z', '2027-01-04T15:00:00.000Z', 'override'],
      ['ada', '2027-01-04T15:00:00.000Z', '2027-01-05T09:00:00.000Z', 'primary'],
    ]);
  });

  it('covers a whole shift', () => {
    const shifts = computeShifts(r, [override('zed', '2027-01-05T09:00:00Z', '2027-01-06T09:00:00Z')], range('2027-01-04T09:00:00Z', '2027-01-07T09:00:00Z'));
    expect(rows(shifts).map((x) => x[0])).to.deep.equal(['ada', 'zed', 'ada']);
  });

  it('spans two shifts, and wins before the rotation starts', () => {
    const shifts = computeShifts(
      r,
      [override('zed', '2027-01-04T21:00:00Z', '2027-01-05T21:00:00Z'), override('yu', '2027-01-03T00:00:00Z', '2027-01-04T10:00:00Z')],
      range('2027-01-03T00:00:00Z', '2027-01-06T09:00:00Z'),
    );
    expect(rows(shifts)).to.deep.equal([
      ['yu', '2027-01-03T00:00:00.000Z', '2027-01-04T10:00:00.000Z', 'override'],
      ['ada', '2027-01-04T10:00:00.000Z', '2027-01-04T21:00:00.000Z', 'primary'],
      ['zed', '2027-01-04T21:00:00.000Z', '2027-01-05T21:00:00.000Z', 'override'],
      ['bo', '2027-01-05T21:00:00.000Z', '2027-01-06T09:00:00.000Z', 'primary'],
    ]);
  });

  it('answers a 90-day range with every turn, whole and back to back', () => {
    // Saturday 2027-01-02 00:00 New York, handing off weekly at midnight.
    const weekend = layer({
      name: 'weekend',
      start: '2027-01-02T05:00:00Z',
      type: 'weekly',
      handoff: '00:00',
      members: ['cy', 'dee'],
      restrict_to: { days: ['sat', 'sun'], start: '00:00', end: '24:00' },
    });
    const s = rules('America/New_York', layer({ start: '2027-01-04T14:00:00Z', type: 'weekly', members: ['ada', 'bo'] }), weekend);
    const from = at('2027-01-04T14:00:00Z');
    const shifts = computeShifts(s, [], { from, to: from + 90 * DAY });
    for (let i = 1; i < shifts.length; i++) expect(shifts[i]!.starts_at).to.equal(shifts[i - 1]!.ends_at);
    // 13 weeks: each has a weekday stretch and a weekend stretch (Saturday 00:00 to Monday 00:00 local).
    expect(shifts.filter((x) => x.layer === 'weekend')).to.have.length(13);
    for (const w of shifts.filter((x) => x.layer === 'weekend'))
      expect(wallTimeOf('America/New_York', w.starts_at)).to.include({ hour: 0, minute: 0, weekday: 6 });
  });
});

// ---- property checks over random schedules, against a per-instant reference ----

/** mulberry32: a small seeded generator, so a failing case can be run again. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Local clock times clear of every DST change of these zones (which all change between 01:00
// and 04:00), where a wall-clock reference and instants agree.
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Asia/Kolkata', 'America/Los_Angeles', 'Asia/Tokyo'];
const TIMES = ['00:00', '05:00', '06:30', '08:00', '09:00', '12:00', '17:00', '18:45', '22:00', '23:30'];

function randomSchedule(next: () => number): { rules: ScheduleRules; overrides: OverrideSpan[]; from: number; to: number } {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const people = ['ada', 'bo', 'cy', 'dee', 'eli', 'fay'];
  const base = at('2027-01-01T00:00:00Z') + Math.floor(next() * 365) * DAY;
  const layers = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, i): Layer => {
    const type = pick(['daily', 'weekly', 'hours'] as const);
    const start = base + Math.floor(next() * 30 * 24) * HOUR - 15 * DAY;
    const days = WEEKDAYS.filter(() => next() < 0.5);
    const restricted = next() < 0.5 && days.length > 0;
    const [rs, re] = [pick(TIMES), pick([...TIMES, '24:00'])];
    return {
      name: `layer ${i}`,
      start: new Date(start),
      rotation: { type, length: 1 + Math.floor(next() * (type === 'hours' ? 36 : 3)), handoff: type === 'hours' ? null : pick(TIMES) },
      members: Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(people)),
      restrict_to: restricted && rs !== re ? { days, start: rs, end: re } : null,
    };
  });
  const from = base + Math.floor(next() * 48) * HOUR;
  const to = from + (1 + Math.floor(next() * 90 * 24)) * HOUR;
  const overrides: OverrideSpan[] = [];
  let cursor = from - 2 * DAY;
  while (cursor < to && overrides.length < 40) {
    cursor += Math.floor(next() * 10 * DAY);
    const length = (1 + Math.floor(next() * 72)) * HOUR;
    overrides.push({ person_id: `sub-${overrides.length}`, starts_at: cursor, ends_at: cursor + length });
    cursor += length;
  }
  return { rules: { timezone: pick(ZONES), layers }, overrides, from, to };
}

/** Who is on call at `t`, worked out on the wall clock for this instant alone. */
function reference(s: ScheduleRules, overrides: readonly OverrideSpan[], t: number): { person: string; layer: string } | null {
  const o = overrides.findLast((x) => x.starts_at <= t && t < x.ends_at);
  if (o) return { person: o.person_id, layer: 'override' };
  for (const l of [...s.layers].reverse()) {
    const start = l.start.getTime();
    if (t < start) continue;
    if (l.restrict_to && !inRecurringWindow({ timezone: s.timezone, ...l.restrict_to }, t)) continue;
    let turn: number;
    if (l.rotation.type === 'hours') turn = Math.floor((t - start) / (l.rotation.length * HOUR));
    else {
      const step = l.rotation.length * (l.rotation.type === 'weekly' ? 7 : 1);
      const handoff = minutesOf(l.rotation.handoff!);
      const localDay = (ms: number) => {
        const w = wallTimeOf(s.timezone, ms);
        // Days since the epoch of the local date, less one before that day's handoff.
        return Date.UTC(w.year, w.month - 1, w.day) / DAY - (w.hour * 60 + w.minute < handoff ? 1 : 0);
      };
      // Turn 0 began at the handoff on start's local date, or one step earlier when start precedes it.
      const w = wallTimeOf(s.timezone, start);
      const date0 = Date.UTC(w.year, w.month - 1, w.day) / DAY;
      const anchor = w.hour * 60 + w.minute >= handoff ? date0 : date0 - step;
      turn = Math.floor((localDay(t) - anchor) / step);
    }
    return { person: l.members[turn % l.members.length]!, layer: l.name };
  }
  return null;
}

describe('on-call shifts: properties over 300 random schedules', () => {
  it('never overlap, leave no gap where an unrestricted layer has begun, let overrides win, and agree with the reference', function () {
    this.timeout(120_000);
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const { rules: s, overrides, from, to } = randomSchedule(next);
      const shifts = computeShifts(s, overrides, { from, to });
      const label = `seed ${seed}`;
      for (let i = 0; i < shifts.length; i++) {
        expect(shifts[i]!.ends_at, label).to.be.greaterThan(shifts[i]!.starts_at);
        if (i > 0) expect(shifts[i]!.starts_at, `${label}: overlap`).to.be.at.least(shifts[i - 1]!.ends_at);
      }
      for (let k = 0; k < 60; k++) {
        const t = from + Math.floor(next() * ((to - from) / 60_000)) * 60_000;
        const found = shifts.find((x) => x.starts_at <= t && t < x.ends_at) ?? null;
        const ctx = `${label} at ${iso(t)} in ${s.timezone}`;
        if (s.layers.some((l) => l.restrict_to === null && l.start.getTime() <= t)) expect(found, `${ctx}: gap`).to.not.equal(null);
        const o = overrides.find((x) => x.starts_at <= t && t < x.ends_at);
        if (o) expect(found, `${ctx}: override`).to.include({ person_id: o.person_id, layer: 'override' });
        const want = reference(s, overrides, t);
        expect(found && { person: found.person_id, layer: found.layer }, ctx).to.deep.equal(want);
      }
    }
  });
});

describe('on-call shifts: the worked example of docs/oncall.md', () => {
  it('gives the shifts the page lists', () => {
    const weekly = layer({ name: 'weekly', start: '2027-01-04T14:00:00Z', type: 'weekly', members: ['ada', 'bo', 'cy'] });
    const weekend = layer({
      name: 'weekend',
      start: '2027-01-02T05:00:00Z',
      type: 'weekly',
      handoff: '00:00',
      members: ['dee', 'eli'],
      restrict_to: { days: ['sat', 'sun'], start: '00:00', end: '24:00' },
    });
    const shifts = computeShifts(
      rules('America/New_York', weekly, weekend),
      [override('cy', '2027-01-07T18:00:00Z', '2027-01-07T23:00:00Z')],
      range('2027-01-04T14:00:00Z', '2027-01-11T15:00:00Z'),
    );
    expect(rows(shifts)).to.deep.equal([
      ['ada', '2027-01-04T14:00:00.000Z', '2027-01-07T18:00:00.000Z', 'weekly'],
      ['cy', '2027-01-07T18:00:00.000Z', '2027-01-07T23:00:00.000Z', 'override'],
      ['ada', '2027-01-07T23:00:00.000Z', '2027-01-09T05:00:00.000Z', 'weekly'],
      ['eli', '2027-01-09T05:00:00.000Z', '2027-01-11T05:00:00.000Z', 'weekend'],
      ['ada', '2027-01-11T05:00:00.000Z', '2027-01-11T14:00:00.000Z', 'weekly'],
      ['bo', '2027-01-11T14:00:00.000Z', '2027-01-16T05:00:00.000Z', 'weekly'],
    ]);
  });
});
