// `new Date(ms).toISOString()` without a Date, for the ingest path, which formats one instant
// per record: the same text, in about a tenth of the time. Instants from 1970 to 9999 only,
// as the logs table holds.

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const DAY_MS = 86_400_000;

/** The last day formatted, as `YYYY-MM-DDT`: records of a batch mostly share their day. */
let cachedDay = Number.NaN;
let cachedDate = '';

/** The date of a day number (days since 1970-01-01), as `YYYY-MM-DDT` (H. Hinnant's civil_from_days). */
function dateOf(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T`;
}

/** `new Date(ms).toISOString()` for a whole number of ms from 1970 to 9999. */
export function isoString(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  if (days !== cachedDay) {
    cachedDate = dateOf(days);
    cachedDay = days;
  }
  let rest = ms - days * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${cachedDate}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[millis]}Z`;
}
