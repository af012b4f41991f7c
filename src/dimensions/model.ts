// Dimensions (docs/fleets.md): the meta keys an event name's records are broken down by, and
// the rules a declaration follows. `agent` is not a key: it is always part of a series.
export const MAX_DIMENSION_KEYS = 8;
export const DIMENSION_KEY_PATTERN = '^[A-Za-z0-9_.:-]{1,64}$';
const KEY = new RegExp(DIMENSION_KEY_PATTERN);
/** The value every key of an agent's overflow series has (the OpenTelemetry SDKs' convention). */
export const OVERFLOW_VALUE = '__overflow__';
/** A records' event name: at most 200 characters, as D allows. */
export const MAX_EVENT_NAME_LENGTH = 200;

export type BackfillStatus = 'running' | 'done';

/** One event name's declared dimensions, as stored. */
export interface Dimension {
  readonly workspace_id: string;
  readonly event: string;
  readonly keys: readonly string[];
  readonly version: number;
  readonly overflowed_at: Date | null;
  readonly backfill_status: BackfillStatus;
  readonly backfill_from: Date | null;
  readonly backfill_to: Date | null;
  /** Declared by OTLP or remote-write on first sight, and by no PUT or document since: outside alerting as code. */
  readonly on_first_sight: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/** Why a key cannot be declared, or null when it can. */
export function keyProblem(key: string): string | null {
  if (key === 'agent') return '"agent" is not a key: it is always part of a series';
  if (!KEY.test(key)) return 'must be 1–64 characters of A–Z, a–z, 0–9, _ . : -';
  return null;
}

/** How long an overflow keeps the resource's `overflowing` true: the series window. */
export const SERIES_WINDOW_MS = 24 * 3_600_000;
