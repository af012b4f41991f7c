// What a decoded URL no longer shows: Node's query-string parser turns a percent escape that is
// not UTF-8 (`%FF`, an encoded lone surrogate `%ED%A0%80`) into U+FFFD, and the router keeps a
// path segment it cannot decode as sent (`%FF%FE` stays those six characters). Either way the
// handler would read a name nobody sent. These read the raw request line instead, so such a
// request is refused (400 naming the parameter) rather than read or stored under that name:
// ApiRouter checks the query of every route behind a token (refuseUnreadableQuery), before its
// schema; the public link routes answer a bad query with their one 404 and are left alone.
import type { Context } from 'koa';
import { validationFailed, type ErrorDetail } from '../errors.js';
import { textProblems } from '../validation/textRules.js';
import { queryMessage } from './validation.js';

const decodes = (text: string): boolean => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

/** A lenient name for a report: the parameter as far as it decodes. */
const nameOf = (raw: string): string => (decodes(raw) ? decodeURIComponent(raw) : raw);

/**
 * Problems of the raw query string: each parameter whose name or value is not well-formed
 * percent-encoded UTF-8, and each decoded value holding NUL (what textRules refuses in a body).
 */
function queryTextProblems(ctx: Context): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const reported = new Set<string>();
  const report = (path: string, message: string) => {
    if (!reported.has(path)) problems.push({ path, message });
    reported.add(path);
  };
  for (const pair of ctx.querystring.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = (equals < 0 ? pair : pair.slice(0, equals)).replace(/\+/g, ' ');
    const rawValue = (equals < 0 ? '' : pair.slice(equals + 1)).replace(/\+/g, ' ');
    const path = `/${nameOf(rawName)}`;
    if (!decodes(rawName) || !decodes(rawValue)) report(path, 'must be well-formed percent-encoded UTF-8');
    else if (textProblems([decodeURIComponent(rawName), decodeURIComponent(rawValue)]).length > 0) report(path, 'must not contain NUL (\\u0000) characters');
  }
  return problems;
}

/** Throws 400 validation_failed naming each parameter of the raw query that queryTextProblems finds. */
export function refuseUnreadableQuery(ctx: Context): void {
  const problems = queryTextProblems(ctx);
  if (problems.length > 0) throw validationFailed(problems, queryMessage(problems));
}

/**
 * The problem of a path segment the router could not decode (it then passes it on as sent),
 * reported at `path`; null when `segment`, as it stands in the raw path, decodes.
 */
export function pathSegmentProblem(ctx: Context, prefix: string, path: string): ErrorDetail | null {
  if (!ctx.path.startsWith(prefix)) return null;
  const raw = ctx.path.slice(prefix.length).split('/')[0] ?? '';
  return decodes(raw) ? null : { path, message: 'must be well-formed percent-encoded UTF-8' };
}
