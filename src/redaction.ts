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

/**
 * The forms a secret takes in text: as written and URL-encoded, and, for an Authorization
 * value `Basic <base64>`, also its base64 alone and decoded (`user:password`, the password).
 */
export function secretForms(secret: string): string[] {
  const basic = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(secret)?.[1];
  const decodedBasic = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
  const password = decodedBasic.includes(':') ? decodedBasic.slice(decodedBasic.indexOf(':') + 1) : '';
  return [secret, encodeURIComponent(secret), ...(basic === undefined ? [] : [...base64Forms(decodedBasic), decodedBasic, password])].filter(
    (form) => form !== '',
  );
}

/** base64 of `text` as an HTTP client writes it in `Basic …`, without its padding (so a URL-encoded `=` does not hide it), raw and URL-encoded. */
function base64Forms(text: string): string[] {
  const unpadded = Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '');
  return [unpadded, encodeURIComponent(unpadded)];
}

/**
 * The secrets of a URL's userinfo (`user:password@`) in every form text may carry them: the
 * password as written, decoded and re-encoded; `user:password`; and the base64 an HTTP client
 * sends of it as `Authorization: Basic …`. A user name alone (`https://<token>@host`) is the
 * secret; beside a password it is a name, not searched for on its own.
 */
export function userinfoSecrets(url: string | null): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url ?? '');
  } catch {
    return [];
  }
  const { username, password } = parsed;
  if (username === '' && password === '') return [];
  const pairs = new Set([`${username}:${password}`, `${decoded(username)}:${decoded(password)}`]);
  const alone = password === '' ? username : password;
  return [alone, decoded(alone), encodeURIComponent(decoded(alone)), ...pairs, ...[...pairs].flatMap(base64Forms)].filter(
    (form) => form !== '' && form !== ':',
  );
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
