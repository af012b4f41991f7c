import type { EventDefinition } from '../../events/model.js';
import type { PublicLinks } from '../../publicLinks.js';
import type { Period, RollupBucket } from '../../rollups/model.js';

/** An event definition as the API shows it: timestamps as ISO 8601 UTC with milliseconds, the share link at PUBLIC_URL. */
export function eventDefinitionJson(d: EventDefinition, links: PublicLinks) {
  return {
    event_id: d.event_id,
    user_id: d.user_id,
    event: d.event,
    agent: d.agent,
    title: d.title,
    description: d.description,
    unit: d.unit,
    timezone: d.timezone,
    public: d.public,
    share_token: d.share_token,
    share_url: links.presentedShareUrl(d),
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

/** A rollup item (docs/api.md, Event definitions). */
export function rollupItemJson(d: EventDefinition, period: Period, b: RollupBucket) {
  return {
    event_id: d.event_id,
    agent: d.agent,
    event: d.event,
    period,
    occurred_at: new Date(b.start).toISOString(),
    count: b.count,
    value: b.value,
    squares: b.squares,
    min: b.min,
    max: b.max,
  };
}
