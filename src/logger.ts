import type { Writable } from 'node:stream';
import winston from 'winston';
import type { LogLevel } from './config.js';

export type Logger = winston.Logger;

/** JSON lines on stdout (or `stream`). Callers never pass tokens or secrets; see abbreviateSecret. */
export function createLogger(level: LogLevel, stream?: Writable): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    defaultMeta: { service: 'alertmon' },
    transports: [stream ? new winston.transports.Stream({ stream }) : new winston.transports.Console()],
  });
}

/** Shows the first 4 characters of a secret and hides the rest. */
export function abbreviateSecret(secret: string): string {
  return secret.length <= 4 ? '…' : `${secret.slice(0, 4)}…`;
}
