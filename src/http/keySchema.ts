// The `key` every configuration object may have (docs/as-code.md), one schema for every resource.
import { KEY_PATTERN } from '../ascode/keys.js';

export const keyProperty = {
  type: ['string', 'null'],
  pattern: KEY_PATTERN,
  description:
    'Its key in an alerting-as-code document (GET /v1.0/config): 1–64 characters of a-z, 0-9, _ and -, unique per workspace and kind (409 key_taken otherwise); null: none (an export makes one from the name).',
} as const;
