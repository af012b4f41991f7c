// Turns a request body into records ready to store, or refuses the whole batch (400)
// listing every problem of every record by index.
import { validationFailed, type ErrorDetail } from '../../errors.js';
import { DEFAULT_AGENT } from '../../events/model.js';
import { newId } from '../../ids.js';
import type { NewLogRecord } from '../../ingest/logWriter.js';
import { nestingDepth, textProblems } from '../textRules.js';
import { compileBodySchema, problemsOf } from '../validation.js';
import { logBatchSchema, MAX_AGE_MS, MAX_AHEAD_MS, MAX_META_BYTES, MAX_META_KEYS, MAX_NAME_LENGTH, type LogRecordInput } from './schema.js';

const validateShape = compileBodySchema(logBatchSchema);

export function validateLogBatch(body: unknown, receivedAt: number): NewLogRecord[] {
  const shapeProblems = problemsOf(validateShape, body);
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
