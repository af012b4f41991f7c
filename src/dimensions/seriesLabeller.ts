// A record's series, derived once, as the writer builds the record's insert row
// (src/ingest/insertRows.ts): the value of each key declared for its event name, read from
// its meta (docs/fleets.md, Dimensions). Past DIMENSION_MAX_SERIES series of a name seen in the
// last 24 hours, a record of a further new series is counted in its agent's overflow series,
// every key "__overflow__": totals stay exact, the breakdown bounded.
//
// The declarations are read from Postgres before each block is built: cheaply (one row of
// counts) unless they changed, and at once after `invalidate()`, which a declaration made in
// this process calls, so that every block built after its answer carries its keys.
import type { RowBytes } from '../ingest/insertRows.js';
import type { BlockSeriesLabels } from '../ingest/logsBlockInsert.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Queryable } from '../stores/postgres.js';
import { OVERFLOW_VALUE, SERIES_WINDOW_MS } from './model.js';
import { markOverflowed } from './store.js';

/** A record's series under a declaration: its key among the series seen, and its row's label columns. */
interface LabelledSeries {
  readonly key: string;
  /** `,{labels},version` */
  readonly columns: string;
}

/** One name's declaration, as the writer applies it. */
interface Declared {
  /** The event name. */
  readonly name: string;
  readonly keys: readonly string[];
  readonly version: number;
  /** The label columns of the name's overflow series, every key "__overflow__". */
  readonly overflowColumns: string;
  /** series key → when last seen (ms); at most maxSeries entries seen within the window. */
  readonly seen: Map<string, number>;
  /**
   * The agent's and the meta's JSON text, as a row holds them → the record's series: records of
   * a fleet repeat their agents and metas, and deriving a series (two parses, two texts) cost
   * 7.3 µs a record, five times building the rest of its row. Emptied, with every other
   * declaration's, when they hold SERIES_CACHE_CHARS, and whenever the declarations are read anew.
   */
  readonly series: Map<string, LabelledSeries>;
}

const fieldsOf = (row: RowBytes) => JSON.parse(`${row.bytes.toString('utf8', row.start, row.end)}]`) as unknown[];

/** The characters the declarations' series caches (Declared.series) hold at most, keys and series: 8 million, 16–40 MB. */
const SERIES_CACHE_CHARS = 8_000_000;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Where the JSON string whose opening quote is at `at` ends: just after its closing quote. */
function stringEnd(bytes: Buffer, at: number, end: number): number {
  for (let i = at + 1; i < end; i++) {
    const c = bytes[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return end;
}

/**
 * The agent's and the meta's JSON text of a row in `bytes` from `start` to `end` (`[workspace,
 * event id, agent, event, log id, value, occurred_at, received_at, meta`, as the journal writes
 * it: JSON.stringify's text, no spaces), one after the other, each byte a character (latin1:
 * UTF-8's bytes of other characters are never a quote, a backslash or a comma). The same text
 * for the same agent and meta, and a different one otherwise (the agent's ends at its closing
 * quote); nothing is decoded.
 */
export function agentAndMetaText(bytes: Buffer, start: number, end: number): string {
  let at = start + 1;
  let agentStart = at;
  let agentEnd = at;
  for (let field = 0; field < 8 && at < end; field++) {
    const next = bytes[at] === QUOTE ? stringEnd(bytes, at, end) : bytes.indexOf(COMMA, at);
    const fieldEnd = next < 0 || next > end ? end : next;
    if (field === 2) [agentStart, agentEnd] = [at, fieldEnd];
    at = fieldEnd + 1;
  }
  return bytes.toString('latin1', agentStart, agentEnd) + bytes.toString('latin1', Math.min(at, end), end);
}

/** How often the writer looks for changed declarations made by other processes. */
export const DIMENSION_REFRESH_MS = 1_000;

/** The value a key's meta value gives its label (docs/fleets.md): strings as they are, numbers and booleans as JSON text, anything else ''. */
export function labelValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return '';
}

/** The labels of a record's meta (compact JSON text, or '') for the keys. */
export function labelsOf(meta: string, keys: readonly string[]): Record<string, string> {
  let parsed: unknown = null;
  if (meta !== '') {
    try {
      parsed = JSON.parse(meta);
    } catch {
      parsed = null;
    }
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  const labels: Record<string, string> = {};
  for (const key of keys) labels[key] = object !== null && Object.hasOwn(object, key) ? labelValue(object[key]) : '';
  return labels;
}

export class SeriesLabeller implements BlockSeriesLabels {
  /** workspace → event name → declaration. */
  private declared = new Map<string, Map<string, Declared>>();
  /** What the last read saw (count and latest change), to tell whether to read again. */
  private stamp = '';
  private checkedAt = 0;
  private stale = true;
  /** event id → the declaration of its name, or null (none); cleared when the declarations change. */
  private byEventId = new Map<string, Declared | null>();
  /** The characters the declarations' series caches hold (SERIES_CACHE_CHARS). */
  private cachedChars = 0;
  /** Overflowed names of the block being built: workspace → names. */
  private overflowed = new Map<string, Set<string>>();

  constructor(
    private readonly postgres: Queryable,
    private readonly maxSeries: number,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A declaration changed in this process: the next block reads them again. */
  invalidate(): void {
    this.stale = true;
  }

  /**
   * The first read of the declarations, before the writer builds its first block: it throws
   * when Postgres does not answer, so a process never starts labelling rows with none read (a
   * block built so would be stored without its series for good).
   */
  async load(): Promise<void> {
    await this.read();
    this.stale = false;
    this.checkedAt = this.now();
  }

  /**
   * Reads the declarations again if they may have changed; call before building a block. When
   * Postgres does not answer, the block is labelled by the declarations read before (logged):
   * a writer never stops for them.
   */
  async refresh(): Promise<void> {
    const now = this.now();
    if (!this.stale && now - this.checkedAt < DIMENSION_REFRESH_MS) return;
    const wasStale = this.stale;
    this.stale = false;
    this.checkedAt = now;
    try {
      await this.read();
    } catch (err) {
      this.stale = wasStale;
      this.logger.warn('dimensions: could not read the declarations; rows are labelled by those read before', { err });
    }
  }

  private async read(): Promise<void> {
    const rows = await this.postgres.query<{ n: number; latest: string | null; versions: string | null }>(
      'SELECT count(*)::int AS n, max(updated_at)::text AS latest, sum(version)::text AS versions FROM dimensions',
    );
    const stamp = JSON.stringify(rows[0] ?? null);
    if (stamp === this.stamp) return;
    const all = await this.postgres.query<{ workspace_id: string; event: string; keys: string[]; version: number }>(
      'SELECT workspace_id, event, keys, version::int AS version FROM dimensions',
    );
    const next = new Map<string, Map<string, Declared>>();
    for (const row of all) {
      let names = next.get(row.workspace_id);
      if (names === undefined) {
        names = new Map();
        next.set(row.workspace_id, names);
      }
      const before = this.declared.get(row.workspace_id)?.get(row.event);
      // The series seen so far stay counted while the keys stay the same.
      const seen = before !== undefined && before.version === row.version ? before.seen : new Map<string, number>();
      const overflowColumns = `,${JSON.stringify(Object.fromEntries(row.keys.map((k) => [k, OVERFLOW_VALUE])))},${row.version}`;
      names.set(row.event, { name: row.event, keys: row.keys, version: row.version, overflowColumns, seen, series: new Map() });
    }
    this.declared = next;
    this.cachedChars = 0;
    this.byEventId.clear();
    this.stamp = stamp;
  }

  /** Whether any record of the workspace may belong to a declared series (else no row of it is looked at). */
  covers(workspaceId: string): boolean {
    return this.declared.has(workspaceId);
  }

  /**
   * The label columns of a record's row, `,{labels},version` (JSONCompactEachRow text), or
   * null when its name has no keys declared. `row` is the record's row without its closing
   * bracket; it is parsed only when the event id is not known yet, or when its name has keys
   * and its agent and meta are not in the name's series cache.
   */
  columnsOf(workspaceId: string, eventId: string, row: RowBytes): string | null {
    let declared = this.byEventId.get(eventId);
    if (declared === undefined) {
      declared = this.declared.get(workspaceId)?.get(String(fieldsOf(row)[3])) ?? null;
      this.byEventId.set(eventId, declared);
    }
    if (declared === null) return null;
    const series = this.seriesOf(declared, row);
    if (declared.keys.length === 0 || this.admit(declared, series.key)) return series.columns;
    this.metrics.seriesOverflowRecords.inc();
    let names = this.overflowed.get(workspaceId);
    if (names === undefined) {
      names = new Set();
      this.overflowed.set(workspaceId, names);
    }
    names.add(declared.name);
    return declared.overflowColumns;
  }

  /** The series of a record's row under a declaration, from its series cache, or derived and kept there. */
  private seriesOf(declared: Declared, row: RowBytes): LabelledSeries {
    const cacheKey = agentAndMetaText(row.bytes, row.start, row.end);
    let series = declared.series.get(cacheKey);
    if (series === undefined) {
      const fields = fieldsOf(row);
      const labels = labelsOf(String(fields[8] ?? ''), declared.keys);
      series = {
        key: JSON.stringify([String(fields[2]), ...declared.keys.map((k) => labels[k])]),
        columns: `,${JSON.stringify(labels)},${declared.version}`,
      };
      const chars = cacheKey.length + series.key.length + series.columns.length;
      if (this.cachedChars + chars > SERIES_CACHE_CHARS) {
        for (const names of this.declared.values()) for (const d of names.values()) d.series.clear();
        this.cachedChars = 0;
      }
      declared.series.set(cacheKey, series);
      this.cachedChars += chars;
    }
    return series;
  }

  /** Whether the series is one of the name's bounded set (seen recently, or room for it). */
  private admit(declared: Declared, key: string): boolean {
    const now = this.now();
    const seen = declared.seen;
    const at = seen.get(key);
    if (at !== undefined) {
      // Seen again within a second, it keeps the time it has: the window is a day long.
      if (now - at >= 1_000) seen.set(key, now);
      return true;
    }
    if (seen.size >= this.maxSeries) {
      // Series not seen within the window leave it (a sweep only when full).
      for (const [k, at] of seen) if (now - at >= SERIES_WINDOW_MS) seen.delete(k);
      if (seen.size >= this.maxSeries) return false;
    }
    seen.set(key, now);
    return true;
  }

  /** After a block is built: notes the names that overflowed in it (the resource's `overflowing`). */
  blockBuilt(): void {
    if (this.overflowed.size === 0) return;
    const overflowed = this.overflowed;
    this.overflowed = new Map();
    for (const [workspaceId, names] of overflowed) {
      markOverflowed(this.postgres, workspaceId, [...names]).catch((err: unknown) => this.logger.warn('dimensions: could not note an overflow', { err }));
    }
  }
}
