// Local weekdays and clock times ("HH:MM"), as silences' recurring windows and on-call
// schedules' handoffs and restrictions name them.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** "HH:MM" from 00:00 to 23:59. */
export const CLOCK_TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';
/** "HH:MM" from 00:00 to 24:00 (the end of a window that runs to midnight). */
export const CLOCK_END_PATTERN = '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$';

/** Minutes after midnight of "HH:MM" (24:00 → 1440). */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** "HH:MM" of minutes after midnight (0–1439). */
export const clockTimeOf = (hour: number, minute: number): string => `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
