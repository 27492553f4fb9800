import { writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import type { LogLevel } from './settings.js';

export type { Logger };

const ERROR_LEVEL = 50;

/** Where batches go: sonic-boom writing stdout, in production. */
export interface LineSink {
  write(data: string): unknown;
  flush(done?: (error?: Error) => void): void;
  /** Writes what the sink holds, except a write already under way in the thread pool. */
  flushSync(): void;
  /** Writes `data` before returning. */
  writeSync(data: string): void;
}

/**
 * A pipe takes a write of at most this many bytes whole (PIPE_BUF on Linux). With --workers all
 * processes share one stdout, and a larger write could be cut into by another process mid-line.
 */
const BATCH_BYTES = 4096;
const BATCH_MS = 250;
const STDOUT = 1;

/**
 * Lines gathered here and handed on in batches of up to 4 KB, or every 250 ms. Handing sonic-boom
 * each line costs more than formatting the line: it measures its whole pending buffer on every
 * write (bench/). Error lines (see createLogger) and whatever is held at exit are written
 * synchronously.
 */
export class LineBatches implements pino.DestinationStream {
  private lines: string[] = [];
  private bytes = 0;

  constructor(private readonly sink: LineSink) {
    setInterval(this.handOver, BATCH_MS).unref();
    // pino's own exit hook for sonic-boom may run first: hand over and write again after it.
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.bytes + bytes > BATCH_BYTES) this.handOver();
    this.lines.push(line);
    this.bytes += bytes;
  }

  flush(done?: (error?: Error) => void): void {
    this.handOver();
    this.sink.flush(done);
  }

  /** Everything held is written before this returns: handed on, it could sit in an async write. */
  flushSync(): void {
    const held = this.take();
    this.sink.flushSync();
    if (held !== undefined) this.sink.writeSync(held);
  }

  private readonly handOver = (): void => {
    const held = this.take();
    if (held !== undefined) this.sink.write(held);
  };

  private take(): string | undefined {
    if (this.lines.length === 0) return undefined;
    const held = this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    return held;
  }
}

/** Writes all of `data` to `fd`, waiting a millisecond whenever a non-blocking pipe is full. */
function writeAllSync(fd: number, data: string): void {
  let rest = Buffer.from(data);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

function bufferedStdout(): LineBatches {
  // maxWrite: batches that gather while a write is in flight are not merged past PIPE_BUF either.
  const sonic = pino.destination({ dest: STDOUT, sync: false, maxWrite: BATCH_BYTES });
  return new LineBatches({
    write: (data) => sonic.write(data),
    flush: (done) => sonic.flush(done),
    flushSync: () => sonic.flushSync(),
    writeSync: (data) => writeAllSync(STDOUT, data),
  });
}

/**
 * JSON lines on stdout. The Authorization header is redacted wherever a request's headers
 * are logged, so a token never reaches a log.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = bufferedStdout()): Logger {
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
