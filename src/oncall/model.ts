// What on-call schedules are (docs/oncall.md): people with the destinations that reach them,
// and schedules of layers (rotations of people, optionally restricted to local hours) with
// overrides on top. The shifts they make are computed in shifts.ts.
import type { Weekday } from '../time/weekly.js';

/** Bounds of the fields, for the API schemas and the checks alike. */
export const ONCALL_LIMITS = {
  name: { max: 200 },
  destinationsPerPerson: { min: 1, max: 10 },
  layers: { min: 1, max: 5 },
  membersPerLayer: { min: 1, max: 50 },
  /** Rotation length by type: days, weeks or hours. */
  length: { daily: 365, weekly: 52, hours: 8760 },
  overridesPerSchedule: 5000,
  /** Longest span GET …/shifts answers, in days. */
  shiftRangeDays: 90,
  /** The calendar feed's span, in days from now. */
  feedDays: 60,
  peoplePerWorkspace: 1000,
  schedulesPerWorkspace: 1000,
} as const;

/** The `layer` of a shift that an override makes. */
export const OVERRIDE_LAYER = 'override';

export type RotationType = 'daily' | 'weekly' | 'hours';

export interface Rotation {
  readonly type: RotationType;
  /** Days, weeks or hours per turn. */
  readonly length: number;
  /** "HH:MM" local time of the handoff (daily and weekly rotations); null for `hours`. */
  readonly handoff: string | null;
}

/** Local hours a layer is on call: each listed weekday from `start` to `end` (an end not after the start runs past midnight). */
export interface Restriction {
  readonly days: readonly Weekday[];
  readonly start: string;
  readonly end: string;
}

export interface Layer {
  readonly name: string;
  /** The rotation's anchor: members take turns from here, the first one on at this instant. */
  readonly start: Date;
  readonly rotation: Rotation;
  /** Person ids, in turn order. */
  readonly members: readonly string[];
  readonly restrict_to: Restriction | null;
}

export interface PersonFields {
  readonly name: string;
  readonly timezone: string;
  readonly destination_ids: readonly string[];
}

export interface Person extends PersonFields {
  readonly person_id: string;
  readonly workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  readonly key: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface ScheduleFields {
  readonly name: string;
  readonly timezone: string;
  readonly layers: readonly Layer[];
  readonly notify_handoffs: boolean;
}

export interface Schedule extends ScheduleFields {
  readonly schedule_id: string;
  readonly workspace_id: string;
  /** Its key in an alerting-as-code document (docs/as-code.md): unique per workspace and kind; null: none yet. */
  readonly key: string | null;
  /** The calendar feed's token (random, 192 bits), replaced by POST …/ical-token. */
  readonly ical_token: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

export interface OverrideFields {
  readonly person_id: string;
  readonly starts_at: Date;
  readonly ends_at: Date;
}

export interface Override extends OverrideFields {
  readonly override_id: string;
  readonly schedule_id: string;
  readonly created_at: Date;
}

/** One stretch of the final line: who is on call from starts_at to ends_at, and by which layer (or "override"). */
export interface Shift {
  readonly person_id: string;
  readonly starts_at: number;
  readonly ends_at: number;
  readonly layer: string;
}
