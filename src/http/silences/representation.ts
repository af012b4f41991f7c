import { matcherText } from '../../matchers/parse.js';
import { silenceActiveAt } from '../../silences/coverage.js';
import type { Silence } from '../../silences/model.js';

/** A silence as the API shows it, with whether it is in force at `now`. */
export function silenceJson(s: Silence, now = Date.now()) {
  return {
    silence_id: s.silence_id,
    key: s.key,
    policy_ids: s.policy_ids,
    matchers: s.matchers === null ? null : s.matchers.map(matcherText),
    created_by: s.created_by,
    starts_at: s.starts_at.toISOString(),
    ends_at: s.ends_at.toISOString(),
    comment: s.comment,
    recurrence: s.recurrence === null ? null : { timezone: s.recurrence.timezone, days: s.recurrence.days, start: s.recurrence.start, end: s.recurrence.end },
    active: silenceActiveAt(s, now),
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}
