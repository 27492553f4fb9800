import { pino, type Logger } from 'pino';
import type { LogLevel } from './settings.js';

export type { Logger };

/**
 * JSON lines on stdout. The Authorization header is redacted wherever a request's headers
 * are logged, so a token never reaches a log.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = pino.destination({ sync: false })): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
