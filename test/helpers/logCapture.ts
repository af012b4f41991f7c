import { Writable } from 'node:stream';
import type { LogLevel } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';

/** A logger in the service's own format whose lines are kept for assertions. */
export function capturingLogger(level: LogLevel = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(level, stream), lines };
}
