// Times for people, always with the zone they are shown in: the one way the console and the
// share page write a time. Times of an event's data (its chart, its alerts, a preview of a
// policy on it) are shown in the event's timezone, like the chart and the notifications;
// other times in the browser's zone, named as such. No DOM here: test/unit/web/ tests it.

/** The browser's zone (an IANA name), e.g. "Europe/Berlin"; "UTC" when it has none. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `zone` when it is an IANA name this browser knows, else "UTC". */
export function validZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

export interface TimeOptions {
  /** Show seconds (a delivery attempt's retries are seconds apart). */
  readonly seconds?: boolean;
  /** Leave the zone out: only where a heading right above names it (a table's column). */
  readonly withoutZone?: boolean;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${zone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en', { ...options, timeZone: zone });
    formats.set(key, f);
  }
  return f;
}

const toDate = (t: string | number | Date) => (t instanceof Date ? t : new Date(typeof t === 'number' ? t : Date.parse(t)));

/**
 * "Dec 1, 2026, 21:05 (Europe/Berlin)": a time in `zone`, which it names. No time (null, or
 * not a time) is "–".
 */
export function formatTime(time: string | number | Date | null | undefined, zone: string, options: TimeOptions = {}): string {
  if (time === null || time === undefined) return '–';
  const date = toDate(time);
  if (Number.isNaN(date.getTime())) return '–';
  const z = validZone(zone);
  const text = format(z, {
    dateStyle: 'medium',
    timeStyle: options.seconds ? 'medium' : 'short',
    hourCycle: 'h23',
  }).format(date);
  return options.withoutZone ? text : `${text} (${z})`;
}

/** A bucket's start in `zone`: the date of a day bucket, else the date and time. */
export function formatBucketStart(time: string | number | Date, period: 'minute' | 'hour' | 'day', zone: string, options: TimeOptions = {}): string {
  if (period !== 'day') return formatTime(time, zone, options);
  const z = validZone(zone);
  const text = format(z, { dateStyle: 'medium' }).format(toDate(time));
  return options.withoutZone ? text : `${text} (${z})`;
}

/**
 * A span of time for a caption: "Nov 22 – Dec 1, 2026 (Europe/Berlin)" for day buckets,
 * "Dec 1, 2026, 17:05 – 21:05 (Europe/Berlin)" within a day, else both dates and times.
 */
export function formatSpan(from: string | number | Date, to: string | number | Date, zone: string, withTimes: boolean): string {
  const z = validZone(zone);
  const [a, b] = [toDate(from), toDate(to)];
  const options: Intl.DateTimeFormatOptions = withTimes
    ? { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
    : { year: 'numeric', month: 'short', day: 'numeric' };
  // formatRange leaves out what both ends share ("Dec 1, 2026, 17:05 – 21:05").
  return `${format(z, options).formatRange(a, b)} (${z})`;
}

/** "3 hours", "9 days": how long a span of seconds is, in its largest whole unit (at least 1). */
export function formatDuration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size) {
      const n = Math.round(seconds / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${Math.max(1, Math.round(seconds))} seconds`;
}
