// The rules of a schedule's and an override's fields that no JSON Schema states: each
// problem with its JSON path, so a client sees every one at once. Pure: what needs the
// store (people, destinations, other overrides) is checked by the operations. And a layer
// from what a client writes (layerOf) and back (layerAsWritten).
import type { ErrorDetail } from '../errors.js';
import { clockTimeOf } from '../time/weekly.js';
import { wallTimeOf } from '../time/zonedTime.js';
import { type Layer, ONCALL_LIMITS, OVERRIDE_LAYER, type Restriction, type RotationType } from './model.js';

/** The IANA names a schedule or a person may use. */
export interface TimezoneNames {
  has(name: string): boolean;
}

/** A layer as a client sends it: length, handoff and restrict_to may be left out. */
export interface LayerInput {
  readonly name: string;
  readonly start: Date;
  readonly rotation: { readonly type: RotationType; readonly length?: number; readonly handoff?: string | null };
  readonly members: readonly string[];
  readonly restrict_to?: Restriction | null;
}

// Instants the fields may name: within what every store keeps, and far enough apart to mean "for good".
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31);

export function instantProblem(path: string, at: Date): ErrorDetail[] {
  const ms = at.getTime();
  return ms >= EARLIEST && ms <= LATEST ? [] : [{ path, message: 'must lie between 2000-01-01 and 9999-12-31' }];
}

export function timezoneProblem(path: string, timezone: string, names: TimezoneNames): ErrorDetail[] {
  return names.has(timezone) ? [] : [{ path, message: 'must be an IANA timezone name, e.g. Europe/Berlin (exact spelling)' }];
}

/**
 * The layer with its defaults: length 1, no restriction, and for daily and weekly rotations
 * a handoff at the local time of `start` in the schedule's timezone. Member ids lower-cased.
 */
export function layerOf(input: LayerInput, timezone: string): Layer {
  const { type } = input.rotation;
  let handoff: string | null = null;
  if (type !== 'hours') {
    const wall = wallTimeOf(timezone, input.start.getTime());
    handoff = input.rotation.handoff ?? clockTimeOf(wall.hour, wall.minute);
  }
  return {
    name: input.name,
    start: input.start,
    rotation: { type, length: input.rotation.length ?? 1, handoff },
    members: input.members.map((m) => m.toLowerCase()),
    restrict_to: input.restrict_to ?? null,
  };
}

/**
 * The layer as a client writes it, defaults filled in, which layerOf reads back as it is: as
 * the API shows it (members: the people's ids) and as an exported document does (their keys).
 */
export function layerAsWritten(l: Layer, members: (ids: readonly string[]) => string[] = (ids) => [...ids]) {
  return {
    name: l.name,
    start: l.start.toISOString(),
    rotation: { type: l.rotation.type, length: l.rotation.length, handoff: l.rotation.handoff },
    members: members(l.members),
    restrict_to: l.restrict_to === null ? null : { days: [...l.restrict_to.days], start: l.restrict_to.start, end: l.restrict_to.end },
  };
}

/** Every problem of the layers as sent (before defaults), with its path. */
export function layerProblems(layers: readonly LayerInput[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const names = new Set<string>();
  layers.forEach((layer, i) => {
    const at = `/layers/${i}`;
    const name = layer.name.trim().toLowerCase();
    if (name === OVERRIDE_LAYER) problems.push({ path: `${at}/name`, message: `"${OVERRIDE_LAYER}" names the shifts of overrides; choose another name` });
    else if (names.has(name)) problems.push({ path: `${at}/name`, message: 'must differ from the names of the other layers' });
    names.add(name);
    problems.push(...instantProblem(`${at}/start`, layer.start));
    const { type, length = 1, handoff } = layer.rotation;
    const max = ONCALL_LIMITS.length[type];
    if (length > max) problems.push({ path: `${at}/rotation/length`, message: `must be at most ${max} for a ${type} rotation` });
    if (type === 'hours' && handoff !== undefined && handoff !== null) {
      problems.push({
        path: `${at}/rotation/handoff`,
        message: 'applies to daily and weekly rotations only (an hours rotation turns every length hours from start)',
      });
    }
    const r = layer.restrict_to;
    if (r && r.start === r.end) problems.push({ path: `${at}/restrict_to/end`, message: 'must differ from start (a whole day is 00:00 to 24:00)' });
  });
  return problems;
}

export function overrideSpanProblems(startsAt: Date, endsAt: Date): ErrorDetail[] {
  const problems = [...instantProblem('/starts_at', startsAt), ...instantProblem('/ends_at', endsAt)];
  if (endsAt.getTime() <= startsAt.getTime()) problems.push({ path: '/ends_at', message: 'must be after starts_at' });
  return problems;
}
