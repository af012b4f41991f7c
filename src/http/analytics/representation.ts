// Window analytics as the API shows them.
import type { WindowComparison } from '../../analytics/windowComparison.js';
import type { RankedComparison } from '../../analytics/rankedComparison.js';
import type { TimeRange } from '../../time/range.js';

const rangeJson = (r: TimeRange) => ({ from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString() });

/** A window comparison as the API shows it: windows as ISO 8601 UTC ranges. */
export function windowComparisonJson(c: WindowComparison) {
  return {
    event_id: c.eventId,
    view: 'window',
    period: c.period,
    previous: c.previous,
    timezone: c.timezone,
    windows: { current: rangeJson(c.windows.current), previous: rangeJson(c.windows.previous) },
    data: c.data,
  };
}

/** A ranked comparison as the API shows it (docs/fleets.md, Ranked window comparisons). */
export function rankedComparisonJson(c: RankedComparison) {
  return {
    event: c.event,
    view: 'window',
    period: c.period,
    previous: c.previous,
    group_by: c.groupBy,
    timezone: c.timezone,
    windows: { current: rangeJson(c.windows.current), previous: rangeJson(c.windows.previous) },
    data: c.data,
    truncated: c.truncated,
  };
}
