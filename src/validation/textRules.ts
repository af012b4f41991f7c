// Text that no store can keep as sent: strings that are not well-formed Unicode (a lone
// UTF-16 surrogate, which JSON's \ud800 escapes can carry) and strings holding a NUL
// character (Postgres refuses it in text; C-string tooling truncates at it). Every string
// and every object key of a request is checked, at any depth, by an explicit walk rather
// than recursion, so that a deeply nested value cannot overflow the stack.
import { pointerSegment, type ErrorDetail } from '../errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

type Flaw = 'nul' | 'surrogate';

function flawOf(text: string): Flaw | null {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'surrogate';
  return null;
}

const VALUE_MESSAGES: Record<Flaw, string> = {
  nul: 'must not contain NUL (\\u0000) characters',
  surrogate: 'must be well-formed Unicode (it holds a lone UTF-16 surrogate)',
};

const KEY_MESSAGES: Record<Flaw, string> = {
  nul: 'has a key that contains a NUL (\\u0000) character',
  surrogate: 'has a key that is not well-formed Unicode (a lone UTF-16 surrogate)',
};

/**
 * Problems of every string and key in `value`; paths are JSON Pointers below `basePath`.
 * A bad key is reported at its object's path (its own path would carry the bad text), and
 * what lies under it is not searched.
 */
export function textProblems(value: unknown, basePath = ''): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const pending: [unknown, string][] = [[value, basePath]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      const flaw = flawOf(current);
      if (flaw !== null) problems.push({ path, message: VALUE_MESSAGES[flaw] });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) pending.push([current[i], `${path}/${i}`]);
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const flaw = flawOf(key);
        if (flaw === null) pending.push([child, `${path}/${pointerSegment(key)}`]);
        else problems.push({ path, message: KEY_MESSAGES[flaw] });
      }
    }
  }
  return problems;
}

/**
 * Paths of numbers that are not finite. JSON has no Infinity, but `1e400` parses to it, in a
 * body (JSON.parse) and in a query string (coerced by the validator) alike, and no store
 * keeps it: Postgres refuses it as a bigint, JSON cannot show it.
 */
export function nonFiniteNumberProblems(value: unknown, basePath = ''): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const pending: [unknown, string][] = [[value, basePath]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) problems.push({ path, message: 'must be a finite number' });
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i]![1], `${path}/${pointerSegment(entries[i]![0])}`]);
    }
  }
  return problems;
}

/** How deeply arrays and objects nest in `value` (0 for a scalar), counted without recursion. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}
