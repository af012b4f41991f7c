// Silences: while one covers an alert's policy, the alert's notifications are recorded as
// silenced and not sent (docs/api.md, Silences). A silence covers either the whole span
// [starts_at, ends_at) or, with a recurrence, the local wall-clock windows inside it.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

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
  /** null: every policy of the workspace. */
  readonly policy_ids: readonly string[] | null;
  readonly starts_at: Date;
  readonly ends_at: Date;
  readonly comment: string;
  readonly recurrence: Recurrence | null;
}

export interface Silence extends SilenceFields {
  readonly silence_id: string;
  readonly workspace_id: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** The part of a silence that decides what it covers. */
export type SilenceRule = Pick<Silence, 'policy_ids' | 'starts_at' | 'ends_at' | 'recurrence'>;

/** A slice of the list, newest first; a null limit lists every silence (they are capped per workspace). */
export interface SilencePage {
  readonly limit: number | null;
  readonly offset: number;
}

/** Silences one workspace may keep, unless configured otherwise (WORKSPACE_MAX_SILENCES). */
export const DEFAULT_MAX_SILENCES_PER_WORKSPACE = 1000;
