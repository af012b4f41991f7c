// Numbers as the text of journal lines, the same text as String(n) in less time: the parser
// thread writes a record's value and its occurred_at (ms) into its line, and V8's general
// double-to-text conversion of the two took about a third of building the line (1.8 us a
// record for bench:ingest's values, such as 57.123456).

const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const ZERO = 48;

/**
 * String(value), faster for values below 1e9 in magnitude with at most six decimals, which
 * is what metrics mostly are. Such a value is an integer count of millionths, and its
 * shortest round-trip text is that count's digits with the point put back and trailing zeros
 * dropped: at 15 significant digits or fewer no shorter decimal reads as the same double.
 */
export function decimalText(value: number): string {
  const magnitude = value < 0 ? -value : value;
  if (!(magnitude < 1e9)) return String(value);
  const millionths = Math.round(magnitude * 1e6);
  // Not exactly a count of millionths: the general conversion.
  if (millionths / 1e6 !== magnitude) return String(value);
  const sign = value < 0 ? '-' : '';
  const whole = Math.floor(millionths / 1e6);
  const fraction = millionths - whole * 1e6;
  if (fraction === 0) return `${sign}${whole}`;
  const high = Math.floor(fraction / 1000);
  const digits = `${THREE_DIGITS[high]}${THREE_DIGITS[fraction - high * 1000]}`;
  let end = 6;
  while (digits.charCodeAt(end - 1) === ZERO) end--;
  return `${sign}${whole}.${digits.slice(0, end)}`;
}

/** String(ms) for a whole, non-negative ms count below 1e15 (instants up to the year 9999 and beyond). */
export function integerText(ms: number): string {
  if (ms < 1e6) return String(ms);
  // Two small integers convert faster than one beyond 2^31.
  const high = Math.floor(ms / 1e6);
  const low = ms - high * 1e6;
  const middle = Math.floor(low / 1000);
  return `${high}${THREE_DIGITS[middle]}${THREE_DIGITS[low - middle * 1000]}`;
}
