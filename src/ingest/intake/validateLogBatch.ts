// Turns a request body into records ready to store, or refuses the whole batch (400)
// listing every problem of every record by index.
//
// Two passes with one meaning: a quick single pass over each record builds the records of a
// valid batch, and accepts only what the thorough pass (the JSON Schema, then the rules it
// cannot say) accepts. Anything it is unsure of, it leaves to the thorough pass, which
// names every problem. A valid batch, by far the common case, is walked once.
import { validationFailed, type ErrorDetail } from '../../errors.js';
import { DEFAULT_AGENT } from '../../events/model.js';
import { newId } from '../../ids.js';
import { compileBodySchema, problemsOf } from '../../validation/jsonSchema.js';
import { nestingDepth, textProblems } from '../../validation/textRules.js';
import type { NewLogRecord } from '../journaledBatch.js';
import { logBatchSchema, MAX_ABS_VALUE, MAX_AGE_MS, MAX_AHEAD_MS, MAX_META_BYTES, MAX_META_KEYS, MAX_NAME_LENGTH, type LogRecordInput } from './recordRules.js';

const validators = new Map<number, ReturnType<typeof compileBodySchema>>();

function shapeValidator(maxRecords: number) {
  let validate = validators.get(maxRecords);
  if (!validate) {
    validate = compileBodySchema(logBatchSchema(maxRecords));
    validators.set(maxRecords, validate);
  }
  return validate;
}

/** Whether `value` holds a number JSON cannot carry (1e400 parses as Infinity and would be stored as null). */
function holdsNonFiniteNumber(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'number' && !Number.isFinite(current)) return true;
    if (typeof current === 'object' && current !== null) pending.push(...(Array.isArray(current) ? current : Object.values(current)));
  }
  return false;
}

const KNOWN_FIELDS = new Set(['log_id', 'agent', 'event', 'value', 'occurred_at', 'meta']);
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Any NUL or surrogate (even a well-formed pair): such text is left to the thorough pass. */
const SURROGATE = /[\ud800-\udfff]/;
const unusualText = (text: string) => text.includes('\u0000') || SURROGATE.test(text);
/** What JSON.stringify writes for a NUL, a lone surrogate, or a number that is not finite (null). */
const UNUSUAL_JSON = /\\u0000|\\ud[89a-f]|null/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The days of the month (1-12) in the year; undefined for a month out of range. */
function daysInMonth(year: number, month: number): number | undefined {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/** The decimal digits text[from, to) as a number; NaN when one is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * ms of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` from 1970 on, the form clients send, read without
 * a regular expression or Date.parse (they took a third of validating a record); the same
 * number as Date.parse (fractions cut to ms). NaN for any other form or a date that does
 * not exist, which the general path then decides.
 */
function utcDateTime(text: string): number {
  const length = text.length;
  if (length < 20 || length === 21 || text.charCodeAt(length - 1) !== 90 /* Z */) return Number.NaN;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) {
    return Number.NaN; // - - T : :
  }
  let millis = 0;
  if (length > 20) {
    if (text.charCodeAt(19) !== 46 /* . */ || Number.isNaN(digitsAt(text, 20, length - 1))) return Number.NaN;
    const fraction = Math.min(3, length - 21);
    millis = digitsAt(text, 20, 20 + fraction) * (fraction === 3 ? 1 : fraction === 2 ? 10 : 100);
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 7);
  const day = digitsAt(text, 8, 10);
  const hour = digitsAt(text, 11, 13);
  const minute = digitsAt(text, 14, 16);
  const second = digitsAt(text, 17, 19);
  // Comparisons with NaN are false: a non-digit fails each check.
  if (!(year >= 1970 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)) return Number.NaN;
  if (day > daysInMonth(year, month)!) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis);
}

/** ms of an RFC 3339 date-time that the schema's format accepts too; NaN when unsure. */
function quickDateTime(text: string): number {
  const utc = utcDateTime(text);
  if (!Number.isNaN(utc)) return utc;
  const m = DATE_TIME.exec(text);
  if (m === null) return NaN;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const days = daysInMonth(year, month);
  if (days === undefined || day < 1 || day > days || Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return NaN;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return NaN;
  return Date.parse(text);
}

/** The records of a valid batch, or null when the thorough pass must decide. */
function acceptQuickly(body: unknown, receivedAt: number, maxRecords: number): NewLogRecord[] | null {
  if (!Array.isArray(body) || body.length > maxRecords) return null;
  const records: NewLogRecord[] = new Array(body.length);
  for (let index = 0; index < body.length; index++) {
    const raw = body[index] as LogRecordInput;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
    for (const field in raw) if (!KNOWN_FIELDS.has(field)) return null;

    const { event: rawEvent, agent: rawAgent, value, log_id: rawLogId, occurred_at: occurred } = raw;
    if (typeof rawEvent !== 'string' || unusualText(rawEvent)) return null;
    const event = rawEvent.trim();
    if (event === '' || event.length > MAX_NAME_LENGTH) return null;
    let agent = DEFAULT_AGENT;
    if (typeof rawAgent === 'string') {
      if (unusualText(rawAgent)) return null;
      agent = rawAgent.trim() || DEFAULT_AGENT;
      if (agent.length > MAX_NAME_LENGTH) return null;
    } else if (rawAgent !== undefined && rawAgent !== null) return null;
    if (typeof value !== 'number' || !(Math.abs(value) <= MAX_ABS_VALUE)) return null;

    let logId: string | null = null;
    if (typeof rawLogId === 'string') {
      const trimmed = rawLogId.trim();
      if (trimmed !== '') {
        if (!UUID.test(rawLogId)) return null;
        logId = trimmed.toLowerCase();
      } else if (unusualText(rawLogId)) return null;
    } else if (rawLogId !== undefined && rawLogId !== null) return null;

    let occurredAt = receivedAt;
    let occurredAtText: string | undefined;
    if (typeof occurred === 'string') {
      occurredAt = quickDateTime(occurred);
      if (!(occurredAt >= receivedAt - MAX_AGE_MS && occurredAt <= receivedAt + MAX_AHEAD_MS)) return null;
      // A valid date-time of 24 characters, T and Z: YYYY-MM-DDTHH:MM:SS.mmmZ, toISOString's own text.
      if (occurred.length === 24 && occurred.charCodeAt(10) === 84 && occurred.charCodeAt(23) === 90) occurredAtText = occurred;
    } else if (occurred !== undefined && occurred !== null) return null;

    let meta = '';
    if ('meta' in raw) {
      try {
        meta = JSON.stringify(raw.meta) ?? '';
      } catch {
        return null; // nested too deeply to serialise: refused by the thorough pass
      }
      if (meta === '' || meta.length > MAX_META_BYTES || UNUSUAL_JSON.test(meta) || Buffer.byteLength(meta, 'utf8') > MAX_META_BYTES) return null;
      if (typeof raw.meta === 'object' && raw.meta !== null && !Array.isArray(raw.meta)) {
        let keys = 0;
        for (const key in raw.meta) if (++keys > MAX_META_KEYS || unusualText(key)) return null;
      }
    }
    records[index] = { logId: logId ?? newId(), clientLogId: logId !== null, agent, event, value, occurredAt, occurredAtText, meta };
  }
  return records;
}

export function validateLogBatch(body: unknown, receivedAt: number, maxRecords: number): NewLogRecord[] {
  return acceptQuickly(body, receivedAt, maxRecords) ?? validateThoroughly(body, receivedAt, maxRecords);
}

function validateThoroughly(body: unknown, receivedAt: number, maxRecords: number): NewLogRecord[] {
  const shapeProblems = problemsOf(shapeValidator(maxRecords), body);
  // Without an array of objects there is nothing more to check record by record.
  if (!Array.isArray(body) || shapeProblems.some((d) => d.path === '')) {
    throw validationFailed(shapeProblems, 'The batch was refused and nothing of it was stored; see details.');
  }

  // ajv calls Infinity (JSON's 1e400) "not a number"; the finite check below says it better.
  const notFinite = (path: string) => {
    const m = /^\/(\d+)\/value$/.exec(path);
    const value: unknown = m ? (body[Number(m[1])] as LogRecordInput | undefined)?.value : undefined;
    return typeof value === 'number' && !Number.isFinite(value);
  };
  const problems: ErrorDetail[] = [...shapeProblems.filter((d) => !notFinite(d.path)), ...textProblems(body)];
  const records: NewLogRecord[] = [];
  body.forEach((raw: LogRecordInput, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return; // reported by the schema
    const at = (field: string, message: string) => problems.push({ path: `/${index}/${field}`, message });

    const event = typeof raw.event === 'string' ? raw.event.trim() : '';
    if (event.length > MAX_NAME_LENGTH) at('event', `must be at most ${MAX_NAME_LENGTH} characters`);

    const agent = typeof raw.agent === 'string' && raw.agent.trim() !== '' ? raw.agent.trim() : DEFAULT_AGENT;
    if (agent.length > MAX_NAME_LENGTH) at('agent', `must be at most ${MAX_NAME_LENGTH} characters`);

    if (typeof raw.value === 'number' && !Number.isFinite(raw.value)) at('value', 'must be a finite number');
    else if (typeof raw.value === 'number' && Math.abs(raw.value) > MAX_ABS_VALUE) at('value', `must be between -${MAX_ABS_VALUE} and ${MAX_ABS_VALUE}`);

    let occurredAt = receivedAt;
    // A timestamp the schema refused is not checked again.
    if (typeof raw.occurred_at === 'string' && !shapeProblems.some((d) => d.path === `/${index}/occurred_at`)) {
      occurredAt = Date.parse(raw.occurred_at);
      if (!(occurredAt >= receivedAt - MAX_AGE_MS && occurredAt <= receivedAt + MAX_AHEAD_MS)) {
        at('occurred_at', 'must be within the last 30 days and at most 1 day ahead');
      }
    }

    let meta = '';
    // Each level of nesting takes at least two bytes ("[]"), so a deeper meta is over the
    // limit whatever it holds; it is refused without serialising it, which could overflow
    // the stack.
    if ('meta' in raw && nestingDepth(raw.meta) > MAX_META_BYTES / 2) {
      at('meta', `must be at most ${MAX_META_BYTES} bytes as compact JSON (it nests deeper than ${MAX_META_BYTES / 2} levels)`);
    } else if ('meta' in raw) {
      meta = JSON.stringify(raw.meta);
      // Only null in the serialisation can hide a number that was not finite.
      if (meta.includes('null') && holdsNonFiniteNumber(raw.meta)) at('meta', 'must hold only finite numbers (1e400 is not one)');
      const bytes = Buffer.byteLength(meta, 'utf8');
      if (bytes > MAX_META_BYTES) at('meta', `must be at most ${MAX_META_BYTES} bytes as compact JSON (is ${bytes})`);
      if (typeof raw.meta === 'object' && raw.meta !== null && !Array.isArray(raw.meta) && Object.keys(raw.meta).length > MAX_META_KEYS) {
        at('meta', `must have at most ${MAX_META_KEYS} top-level keys`);
      }
    }

    const clientLogId = typeof raw.log_id === 'string' && raw.log_id.trim() !== '' ? raw.log_id.trim().toLowerCase() : null;
    records.push({
      logId: clientLogId ?? newId(),
      clientLogId: clientLogId !== null,
      agent,
      event,
      value: raw.value,
      occurredAt,
      meta,
    });
  });

  if (problems.length > 0) {
    problems.sort((a, b) => indexOf(a.path) - indexOf(b.path));
    throw validationFailed(problems, 'The batch was refused and nothing of it was stored; see details.');
  }
  return records;
}

function indexOf(path: string): number {
  return Number(/^\/(\d+)/.exec(path)?.[1] ?? -1);
}
