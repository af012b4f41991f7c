// The secret half of a share link: an event is read without a workspace token by whoever
// holds its event id and this token (public events only). Created random, compared in
// constant time, replaced by a rotation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Random, URL-safe, 192 bits. */
export function newShareToken(): string {
  return randomBytes(24).toString('base64url');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `given` is the stored token, in time that does not depend on where they differ:
 * both are hashed first, so even their lengths stay hidden. With no stored token (no such
 * event), the same work is done against a dummy, so an unknown id takes as long as a wrong token.
 */
export function shareTokenMatches(stored: string | null, given: string): boolean {
  const same = timingSafeEqual(digest(stored ?? given), digest(given));
  return stored !== null && same;
}
