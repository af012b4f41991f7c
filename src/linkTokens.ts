// The secret half of a link that reads something without a workspace token: an event's
// share link, a schedule's calendar feed. Whoever holds the resource's id and this token
// reads it. Created random, compared in constant time, replaced by a rotation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Random, URL-safe, 192 bits. */
export function newLinkToken(): string {
  return randomBytes(24).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `given` is the stored token, in time that does not depend on where they differ:
 * both are hashed first, so even their lengths stay hidden. With no stored token (no such
 * resource), the same work is done against a dummy, so an unknown id takes as long as a wrong token.
 */
export function linkTokenMatches(stored: string | null, given: string): boolean {
  const same = timingSafeEqual(digest(stored ?? given), digest(given));
  return stored !== null && same;
}
