import { pino, type Logger } from 'pino';
import type { LogLevel } from './settings.js';

export type { Logger };

const ERROR_LEVEL = 50;

/**
 * Lines gathered over one turn of the event loop and handed to sonic-boom as one string, which
 * writes once 8 KB have gathered or every 250 ms. sonic-boom measures its whole pending buffer
 * on every write: per access line that cost more than formatting the line (bench/); per turn
 * it is paid once. Whatever is still held is written on exit.
 */
class BufferedStdout implements pino.DestinationStream {
  private lines: string[] = [];
  private readonly sonic = pino.destination({ sync: false, minLength: 8192, periodicFlush: 250 });

  constructor() {
    // pino's own exit hook for sonic-boom may run first: hand over and write again after it.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    if (this.lines.push(line) === 1) setImmediate(this.handOver);
  }

  flush(done?: (error?: Error) => void): void {
    this.handOver();
    this.sonic.flush(done);
  }

  flushSync(): void {
    this.handOver();
    this.sonic.flushSync();
  }

  private readonly handOver = (): void => {
    if (this.lines.length === 0) return;
    this.sonic.write(this.lines.join(''));
    this.lines = [];
  };
}

/**
 * JSON lines on stdout. The Authorization header is redacted wherever a request's headers
 * are logged, so a token never reaches a log.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = new BufferedStdout()): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      hooks: {
        // An error may be the last thing this process says (then a SIGKILL, say): it is written at once.
        logMethod(args, method, level) {
          method.apply(this, args);
          if (level >= ERROR_LEVEL && 'flushSync' in destination && typeof destination.flushSync === 'function') destination.flushSync();
        },
      },
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}
