import { pino, type Logger } from 'pino';
import type { LogLevel } from './settings.js';

export type { Logger };

const ERROR_LEVEL = 50;

const BATCH_CHARS = 8192;
const BATCH_MS = 250;

/**
 * Lines gathered here and handed to sonic-boom in batches of 8 KB, or every 250 ms, which it
 * then writes at once. Handing it each line costs more than formatting the line: sonic-boom
 * measures its whole pending buffer on every write (bench/). Error lines (see createLogger)
 * and whatever is held at exit are written synchronously.
 */
class BufferedStdout implements pino.DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  private readonly sonic = pino.destination({ sync: false });

  constructor() {
    setInterval(this.handOver, BATCH_MS).unref();
    // pino's own exit hook for sonic-boom may run first: hand over and write again after it.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.handOver();
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
    this.chars = 0;
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
