// Silences: while one covers an alert's policy, the alert's notifications are recorded as
// silenced and not sent (docs/api.md, Silences). A silence covers either the whole span
// [starts_at, ends_at) or, with a recurrence, the local wall-clock windows inside it.

import type { Labels } from '../labels/labels.js';
import type { Matcher } from '../matchers/model.js';
import type { Weekday } from '../time/weekly.js';

export { WEEKDAYS, type Weekday } from '../time/weekly.js';

/** A weekly window in local time: on each listed weekday from `start` to `end` (past midnight when `end` is not after `start`). */
export interface Recurrence {
  readonly timezone: string;
  readonly days: readonly Weekday[];
  /** "HH:MM", 00:00–23:59. */
  readonly start: string;
  /** "HH:MM", 00:00–24:00. */
  readonly end: string;
}

/** What a client sets. */
export interface SilenceFields {
  /** The policies and alert sources covered; null: every one of the workspace. */
  readonly policy_ids: readonly string[] | null;
  /** All must match the alert's labels (src/matchers/alertLabels.ts); null: no condition on labels. */
  readonly matchers: readonly Matcher[] | null;
  /** Who made it (Alertmanager's createdBy); '' when not given. */
  readonly created_by: string;
  readonly starts_at: Date;
  readonly ends_at: Date;
  readonly comment: string;
  readonly recurrence: Recurrence | null;
}

export interface Silence extends SilenceFields {
  readonly silence_id: string;
  readonly workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  readonly key: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** The part of a silence that decides what it covers. */
export type SilenceRule = Pick<Silence, 'policy_ids' | 'matchers' | 'starts_at' | 'ends_at' | 'recurrence'>;

/** What a silence is checked against: the alert's policy (or alert source) and the labels it is matched on. */
export interface SilenceTarget {
  /** The alert's policy_id, or its alert_source_id. */
  readonly id: string;
  readonly labels: Labels;
}

/** Matchers of one silence, once parsed. */
export const SILENCE_MATCHERS = { min: 1, max: 20 } as const;

/** A slice of the list, newest first; a null limit lists every silence (they are capped per workspace). */
export interface SilencePage {
  readonly limit: number | null;
  readonly offset: number;
}
