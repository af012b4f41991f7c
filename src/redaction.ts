// The one home of secret redaction (docs/api.md, Secrets). A secret is shown as its first 4
// characters then "…". Two ways to find secrets in text: by value, when the caller knows them
// (a destination's token, an SMTP password), and by shape, as defence in depth for text we
// did not write (an error message may quote a URL or a header).

export const ABBREVIATION_MARK = '…';

/** Shows the first 4 characters of a secret and hides the rest. */
export function abbreviateSecret(secret: string): string {
  return secret.length <= 4 ? ABBREVIATION_MARK : `${secret.slice(0, 4)}${ABBREVIATION_MARK}`;
}

export function looksAbbreviated(value: string): boolean {
  return value.endsWith(ABBREVIATION_MARK);
}

/** decodeURIComponent that keeps a malformed %-sequence as it is. */
export function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The secrets in the order to replace them: longest first, so a secret that contains another is replaced whole. */
export function secretList(secrets: Iterable<string>): string[] {
  return [...new Set([...secrets].filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each known secret with its abbreviation. */
export function redactKnownSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) redacted = redacted.split(secret).join(abbreviateSecret(secret));
  return redacted;
}

const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b(chp_|alm_)[A-Za-z0-9_-]+/g, '$1…'], // workspace tokens
  [/\b(whsec_)[A-Za-z0-9+/=]+/g, '$1…'], // webhook signing secrets
  [/\b(Bearer|Basic)\s+[^\s"',]+/gi, '$1 …'], // Authorization values
  [/(\/\/[^/\s:@]*):[^/\s@]+@/g, '$1:…@'], // passwords in URLs
  [/(\/bot)[^/\s]+/g, '$1…'], // Telegram bot tokens
  [/(\/(?:services|webhooks)\/[^\s?#"']*\/)[^/\s?#"']+/g, '$1…'], // Slack and Discord webhook secrets
];

/** Replaces whatever looks like a secret (tokens, Authorization values, URL passwords, webhook tokens). */
export function redactSecretShapes(text: string): string {
  return SECRET_PATTERNS.reduce((t, [pattern, replacement]) => t.replace(pattern, replacement), text);
}
