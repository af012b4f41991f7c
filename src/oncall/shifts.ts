// The final line of a schedule: who is on call when. Pure (no store, no clock), so the API,
// the calendar feed and the workers that page the on-call compute it alike.
//
// Each layer gives its members' turns, cut to its restriction's local windows when it has
// one. Where several layers have someone, the later layer (higher in the list) wins; an
// override wins over every layer. A shift is one unbroken stretch of one turn (or one
// override) that nothing above it covers: a member who is on again in the next turn gets
// a new shift, so a shift's bounds never depend on the range asked for.
import type { TimeRange } from '../time/range.js';
import { OVERRIDE_LAYER, type Layer, type Shift } from './model.js';
import { restrictionWindows, turnAround, turnsOverlapping } from './rotation.js';

/** What the computation reads of a schedule. */
export interface ScheduleRules {
  readonly timezone: string;
  readonly layers: readonly Layer[];
}

/** What it reads of an override (an instant is ms since the epoch). */
export interface OverrideSpan {
  readonly person_id: string;
  readonly starts_at: number;
  readonly ends_at: number;
}

interface Segment extends TimeRange {
  readonly person: string;
  readonly layer: string;
  /** Higher wins: layers by their index, overrides above them all (later ones above earlier ones). */
  readonly rank: number;
}

/**
 * The span to compute over for shifts overlapping `range`, and so the overrides to read: it
 * reaches back to the start of each layer's turn at `range.from` and on to the end of each
 * layer's turn at `range.to`, so that the shifts at both ends are whole.
 */
export function computationSpan(rules: ScheduleRules, range: TimeRange): TimeRange {
  let { from, to } = range;
  for (const layer of rules.layers) {
    from = Math.min(from, turnAround(layer, rules.timezone, range.from).from);
    to = Math.max(to, turnAround(layer, rules.timezone, range.to - 1).to);
  }
  return { from, to };
}

/** The pieces of a layer's turns inside its restriction's windows, over `span`. */
function layerSegments(layer: Layer, rank: number, timezone: string, span: TimeRange): Segment[] {
  const turns = turnsOverlapping(layer, timezone, span);
  const segment = (t: TimeRange & { member: number }, from: number, to: number): Segment => ({
    from,
    to,
    person: layer.members[t.member]!,
    layer: layer.name,
    rank,
  });
  if (layer.restrict_to === null || turns.length === 0) return turns.map((t) => segment(t, t.from, t.to));
  const windows = restrictionWindows(layer.restrict_to, timezone, { from: turns[0]!.from, to: turns[turns.length - 1]!.to });
  const segments: Segment[] = [];
  let w = 0;
  for (const t of turns) {
    while (w < windows.length && windows[w]!.to <= t.from) w++;
    for (let i = w; i < windows.length && windows[i]!.from < t.to; i++) {
      const from = Math.max(t.from, windows[i]!.from);
      const to = Math.min(t.to, windows[i]!.to);
      if (to > from) segments.push(segment(t, from, to));
    }
  }
  return segments;
}

/**
 * Every shift that overlaps `range`, whole (one that began before `range.from` or ends
 * after `range.to` keeps its own bounds), oldest first. `overrides` must hold every
 * override of the schedule that overlaps computationSpan(rules, range); more do no harm.
 */
export function computeShifts(rules: ScheduleRules, overrides: readonly OverrideSpan[], range: TimeRange): Shift[] {
  if (range.to <= range.from) return [];
  const span = computationSpan(rules, range);
  const segments: Segment[] = rules.layers.flatMap((layer, i) => layerSegments(layer, i, rules.timezone, span));
  const top = rules.layers.length;
  overrides.forEach((o, i) => {
    if (o.ends_at > span.from && o.starts_at < span.to) {
      segments.push({ from: o.starts_at, to: o.ends_at, person: o.person_id, layer: OVERRIDE_LAYER, rank: top + i });
    }
  });
  return sweep(segments).filter((s) => s.ends_at > range.from && s.starts_at < range.to);
}

/** The stretches where each segment is the highest one, joined where one segment goes on unbroken. */
function sweep(segments: readonly Segment[]): Shift[] {
  const edges: { at: number; segment: Segment; opens: boolean }[] = [];
  for (const s of segments) edges.push({ at: s.from, segment: s, opens: true }, { at: s.to, segment: s, opens: false });
  edges.sort((a, b) => a.at - b.at);
  const open = new Set<Segment>();
  const shifts: { person_id: string; starts_at: number; ends_at: number; layer: string; segment: Segment }[] = [];
  for (let i = 0; i < edges.length; ) {
    const at = edges[i]!.at;
    for (; i < edges.length && edges[i]!.at === at; i++) {
      const e = edges[i]!;
      if (e.opens) open.add(e.segment);
      else open.delete(e.segment);
    }
    if (i === edges.length) break;
    let winner: Segment | null = null;
    for (const s of open) if (winner === null || s.rank > winner.rank) winner = s;
    if (winner === null) continue;
    const next = edges[i]!.at;
    const last = shifts[shifts.length - 1];
    if (last && last.segment === winner && last.ends_at === at) last.ends_at = next;
    else shifts.push({ person_id: winner.person, starts_at: at, ends_at: next, layer: winner.layer, segment: winner });
  }
  return shifts.map(({ segment: _, ...shift }) => shift);
}

/** The shift at `at`, or null when no one is on call then. */
export function shiftAt(rules: ScheduleRules, overrides: readonly OverrideSpan[], at: number): Shift | null {
  return computeShifts(rules, overrides, { from: at, to: at + 1 }).find((s) => s.starts_at <= at && at < s.ends_at) ?? null;
}
