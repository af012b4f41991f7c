import type { Writable } from 'node:stream';
import winston from 'winston';
import type { LogLevel } from './config.js';
import { redactSecretShapes } from './redaction.js';

export type Logger = winston.Logger;

/** JSON lines on stdout (or `stream`). Callers never pass tokens or secrets; see src/redaction.ts. */
export function createLogger(level: LogLevel, stream?: Writable): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), errorFields(), winston.format.json()),
    defaultMeta: { service: 'alertmon' },
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
}

// An Error's message and stack are not enumerable, so JSON shows an Error field as {}. Each
// Error among a line's fields becomes its name, message, stack, code and cause, and nothing
// else: library errors carry their request options (headers, tokens) in other properties.
const errorFields = winston.format((info) => {
  for (const [key, value] of Object.entries(info)) {
    if (value instanceof Error) (info as Record<string, unknown>)[key] = describeError(value);
  }
  return info;
});

export function describeError(err: Error, depth = 0): Record<string, unknown> {
  const described: Record<string, unknown> = { name: err.name, message: redactSecretShapes(err.message) };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') described.code = code;
  if (err.stack !== undefined) described.stack = redactSecretShapes(err.stack);
  if (err.cause instanceof Error && depth < 3) described.cause = describeError(err.cause, depth + 1);
  return described;
}
