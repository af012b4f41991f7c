// What a log record may be, whichever wire format it came in (a JSON batch, an OTLP point, a
// remote-write sample): the one home of the record rules and limits. The JSON batch's shape is
// the schema below (also the route's documented body); the rules JSON Schema cannot say are in
// validateLogBatch.ts, and the standard formats' points keep the same ones (pointRecords.ts).
import { PATTERNS } from '../../validation/jsonSchema.js';

/**
 * Records per request every deployment accepts (the portable limit the API documents); INGEST_MAX_BATCH_RECORDS
 * (default 1,000, never below this) may allow more.
 */
export const PORTABLE_MAX_LOGS_PER_REQUEST = 250;
/** Body bytes a log batch may take per record it may hold (INGEST_MAX_BATCH_RECORDS); never below 1 MB in all. */
export const MAX_BODY_BYTES_PER_RECORD = 2048;
export const MIN_LOG_BODY_BYTES = 1024 * 1024;

/** The body limit of POST /v1.0/logs for a batch limit: 2 KB a record, at least 1 MB. */
export const logBodyLimitBytes = (maxRecords: number) => Math.max(MIN_LOG_BODY_BYTES, maxRecords * MAX_BODY_BYTES_PER_RECORD);
export const MAX_NAME_LENGTH = 200;
export const MAX_META_BYTES = 1024;
export const MAX_META_KEYS = 10;
export const MAX_AGE_MS = 30 * 86_400_000;
export const MAX_AHEAD_MS = 1 * 86_400_000;
/**
 * Largest |value| accepted: rollups keep sums of squares, and 1e150² = 1e300 leaves room for
 * 10⁸ such records in one bucket before a sum would overflow (JSON would show it as null).
 */
export const MAX_ABS_VALUE = 1e150;

/** A log record as sent (docs/api.md, Logs). Rules JSON Schema cannot say are in validateLogBatch. */
export interface LogRecordInput {
  log_id?: string | null;
  agent?: string | null;
  event: string;
  value: number;
  occurred_at?: string | null;
  meta?: unknown;
}

export const logBatchSchema = (maxRecords: number) =>
  ({
    type: 'array',
    maxItems: maxRecords,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['event', 'value'],
      properties: {
        log_id: { type: ['string', 'null'], pattern: PATTERNS.uuidOrBlank },
        agent: { type: ['string', 'null'] },
        event: { type: 'string', pattern: PATTERNS.notBlank },
        value: { type: 'number' },
        occurred_at: { type: ['string', 'null'], format: 'date-time' },
        meta: {},
      },
    },
  }) as const;
