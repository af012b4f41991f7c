// Messages cut to a provider's limit (docs/api.md, Message limits) at a safe boundary: never
// inside a user-perceived character (an emoji of several code points, a surrogate pair), an
// escape or an entity of the channel's markup, with "…" marking the cut. The headline, the only
// marked-up part, is cut inside its markup, so the markup stays balanced. Lengths are counted
// in UTF-16 code units, which is never fewer than any provider counts.

export const CUT_MARK = '…';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** The text as units that must stay whole: the matches of `atom` (escapes, entities) and grapheme clusters between them. */
function unitsOf(text: string, atom: RegExp | null): string[] {
  const units: string[] = [];
  const pushGraphemes = (part: string) => {
    for (const { segment } of graphemes.segment(part)) units.push(segment);
  };
  if (atom === null) {
    pushGraphemes(text);
    return units;
  }
  let at = 0;
  for (const match of text.matchAll(new RegExp(atom.source, 'g'))) {
    pushGraphemes(text.slice(at, match.index));
    units.push(match[0]);
    at = match.index + match[0].length;
  }
  pushGraphemes(text.slice(at));
  return units;
}

/** `text` itself when it fits in `max`, else its longest start of whole units that fits with "…" after it. */
export function clipText(text: string, max: number, atom: RegExp | null = null): string {
  if (text.length <= max) return text;
  let clipped = '';
  for (const unit of unitsOf(text, atom)) {
    if (clipped.length + unit.length + CUT_MARK.length > max) break;
    clipped += unit;
  }
  return clipped + CUT_MARK;
}

export interface MessageMarkup {
  /** Escapes a piece of plain text for the channel's markup. */
  readonly escape: (text: string) => string;
  /** What surrounds the headline (bold). */
  readonly open: string;
  readonly close: string;
  /** One escape, entity or tag that must not be cut. */
  readonly atom: RegExp | null;
  /** Whether a tag left open by a cut is closed after it (HTML, where an unclosed tag is refused). */
  readonly closesTags?: boolean;
}

/** The headline's share of a message that does not fit: a long title leaves room for the facts below it. */
const HEADLINE_SHARE = 0.25;

const TAG = /<(\/?)([a-zA-Z][\w-]*)[^<>]*>/g;

/** The closing tags of the tags `text` leaves open, innermost first. */
function closersOf(text: string): string {
  const open: string[] = [];
  for (const [, closing, name] of text.matchAll(TAG)) {
    if (closing === '') open.push(name!.toLowerCase());
    else if (open.at(-1) === name!.toLowerCase()) open.pop();
  }
  return open
    .reverse()
    .map((name) => `</${name}>`)
    .join('');
}

/** clipText, and for markup that needs it the tags a cut left open closed, all within `max`. */
function clipMarkedUp(text: string, max: number, markup: MessageMarkup): string {
  const clipped = clipText(text, max, markup.atom);
  if (!markup.closesTags || clipped === text) return clipped;
  const closers = closersOf(clipped);
  if (clipped.length + closers.length <= max) return clipped + closers;
  const shorter = clipText(text, Math.max(0, max - closers.length), markup.atom);
  return shorter + closersOf(shorter);
}

/**
 * Lines as one marked-up message of at most `max` characters: the headline (first line) in
 * bold, escaped, and cut first (to a quarter of the limit) when the whole does not fit; then the
 * rest is cut where it overflows.
 */
export function clippedMessage(lines: readonly string[], max: number, markup: MessageMarkup): string {
  const [headline = '', ...rest] = lines;
  return clippedParts(markup.escape(headline), rest.map(markup.escape).join('\n'), max, markup);
}

/**
 * A headline and a body already in the channel's markup (escaped, or rendered from a template
 * whose values were escaped) as one message of at most `max` characters, cut as clippedMessage
 * cuts: never inside an escape, entity or tag, tags left open closed where the markup needs it.
 */
export function clippedParts(headline: string, body: string, max: number, markup: MessageMarkup): string {
  const wrap = (text: string) => `${markup.open}${text}${markup.close}`;
  const whole = [wrap(headline), body].join('\n');
  if (whole.length <= max) return whole;
  const headlineRoom = Math.max(Math.floor(max * HEADLINE_SHARE), max - body.length - 1) - markup.open.length - markup.close.length;
  const head = wrap(clipMarkedUp(headline, headlineRoom, markup));
  return body === '' ? head : `${head}\n${clipMarkedUp(body, max - head.length - 1, markup)}`;
}
