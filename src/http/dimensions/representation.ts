import type { DimensionView } from '../../dimensions/operations.js';

/** A declaration as the API shows it. */
export function dimensionJson({ dimension: d, overflowing }: DimensionView) {
  return {
    event: d.event,
    keys: d.keys,
    overflowing,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
    backfill: { status: d.backfill_status, from: d.backfill_from?.toISOString() ?? null, to: d.backfill_to?.toISOString() ?? null },
  };
}
