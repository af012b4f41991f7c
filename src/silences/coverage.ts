// Whether a silence covers a policy at an instant. A recurring window is compared on the
// local wall clock of its timezone, so it is always those local times whatever the UTC
// offset that day: on a spring-forward day a 01:00–03:00 window lasts one real hour (02:00–
// 03:00 does not exist), on a fall-back day it lasts three (02:00–03:00 happens twice). A
// window whose end is not after its start runs past midnight and belongs to the day it
// starts on: "fri 22:00–06:00" covers Friday night into Saturday morning.
import { minutesOf, WEEKDAYS } from '../time/weekly.js';
import { wallTimeOf } from '../time/zonedTime.js';
import { compileMatchers, type LabelPredicate } from '../matchers/match.js';
import type { Recurrence, SilenceRule, SilenceTarget } from './model.js';

/** True when the local time at `at` lies in one of the recurrence's windows. */
export function inRecurringWindow(recurrence: Recurrence, at: number): boolean {
  const wall = wallTimeOf(recurrence.timezone, at);
  const minute = wall.hour * 60 + wall.minute;
  const start = minutesOf(recurrence.start);
  const end = minutesOf(recurrence.end);
  const today = WEEKDAYS[wall.weekday - 1]!;
  if (start < end) return recurrence.days.includes(today) && minute >= start && minute < end;
  const yesterday = WEEKDAYS[(wall.weekday + 5) % 7]!;
  return (recurrence.days.includes(today) && minute >= start) || (recurrence.days.includes(yesterday) && minute < end);
}

/** True when the silence is in force at `at`, whatever the policy. */
export function silenceActiveAt(silence: SilenceRule, at: number): boolean {
  if (at < silence.starts_at.getTime() || at >= silence.ends_at.getTime()) return false;
  return silence.recurrence === null || inRecurringWindow(silence.recurrence, at);
}

/** A silence's matchers compiled once per silence object read. */
const compiled = new WeakMap<SilenceRule, LabelPredicate>();

function matchersOf(silence: SilenceRule): LabelPredicate {
  let predicate = compiled.get(silence);
  if (predicate === undefined) {
    predicate = compileMatchers(silence.matchers ?? []);
    compiled.set(silence, predicate);
  }
  return predicate;
}

/** True when the silence covers notifications of the target (its policy or source, its labels) at `at`. */
export function silenceCovers(silence: SilenceRule, target: SilenceTarget, at: number): boolean {
  if (silence.policy_ids !== null && !silence.policy_ids.includes(target.id)) return false;
  if (!silenceActiveAt(silence, at)) return false;
  return silence.matchers === null || matchersOf(silence)(target.labels);
}

/** True when any of the silences covers the target at `at`. */
export function anySilenceCovers(silences: readonly SilenceRule[], target: SilenceTarget, at: number): boolean {
  return silences.some((s) => silenceCovers(s, target, at));
}
