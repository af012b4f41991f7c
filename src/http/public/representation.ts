import type { SharedEvent } from '../../events/operations.js';
import { rollupItemJson } from '../events/representation.js';

/**
 * What a share link shows: the event's display fields and its newest rollup items. Nothing
 * else leaves through it: no workspace, no share token, no analytics, no other event.
 */
export function sharedEventJson({ definition: d, buckets }: SharedEvent) {
  return {
    event: { event_id: d.event_id, agent: d.agent, event: d.event, title: d.title, description: d.description, unit: d.unit, timezone: d.timezone },
    minute: buckets.minute.map((b) => rollupItemJson(d, 'minute', b)),
    hour: buckets.hour.map((b) => rollupItemJson(d, 'hour', b)),
    day: buckets.day.map((b) => rollupItemJson(d, 'day', b)),
  };
}

export type SharedEventJson = ReturnType<typeof sharedEventJson>;
