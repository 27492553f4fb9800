/**
 * JSON lines on stdout through pino, written by its own destination (SonicBoom) in batches of
 * 4 KB or every 250 ms, and whatever is held at exit; docs/decisions.md, "Logs", says why the
 * writes are synchronous and what a crash loses. The Authorization header is redacted wherever
 * a request's headers are logged, so a token never reaches a log.
 */
import { fstatSync, writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import sonicBoom from 'sonic-boom';
import type { LogLevel } from './settings.js';

export type { Logger };

// sonic-boom is CommonJS whose module.exports is the class; its types declare it as `default`.
const SonicBoom = sonicBoom as unknown as typeof sonicBoom.SonicBoom;

/** A SonicBoom in contentMode 'buffer', which takes Buffers; its types know only strings. */
type BufferBoom = Omit<sonicBoom.SonicBoom, 'write'> & { write(chunk: Buffer): boolean };

const STDOUT = 1;
/** Bytes gathered before a write. */
const BATCH_BYTES = 4096;
/** Lines wait at most this long for a batch to fill. */
const BATCH_MS = 250;
/** Lines held for a stdout that takes nothing (a stalled reader) before new ones are dropped. */
const MAX_HELD_BYTES = 1 << 20;

/**
 * stdout, written in batches by synchronous writes, so that none is in flight at exit. A full
 * pipe makes lines wait for the next batch or flush (the pipe is non-blocking: a write never
 * waits for the reader); a closed stdout ends logging, never the service.
 */
function stdoutDestination(): DestinationStream {
  // A pipe or socket must be non-blocking, so that a stalled reader cannot block a write; node
  // makes stdout so when process.stdout is first touched.
  try {
    const stdout = fstatSync(STDOUT);
    if (stdout.isFIFO() || stdout.isSocket()) void process.stdout;
  } catch {
    // no stdout at all: every write fails and logging ends quietly
  }
  let broken = false;
  /** The last write found the pipe full: a batch is held in sonic-boom's write buffer. */
  let full = false;
  const destination: BufferBoom = new SonicBoom({
    fd: STDOUT,
    sync: true,
    contentMode: 'buffer',
    minLength: BATCH_BYTES,
    maxLength: MAX_HELD_BYTES,
    // A full pipe: keep the lines and try again later rather than wait for it.
    retryEAGAIN: () => false,
  }) as unknown as BufferBoom;
  setInterval(() => {
    if (!broken) destination.flush();
  }, BATCH_MS).unref();
  destination.on('write', () => {
    full = false;
  });
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EAGAIN' || error.code === 'EBUSY') {
      full = true;
      return;
    }
    broken = true;
    destination.destroy();
  });
  process.once('exit', () => {
    if (broken) return;
    try {
      // An empty write tells whether anyone still reads: sonic-boom's flushSync retries
      // errors other than EAGAIN forever, so it must not meet a closed pipe.
      writeSync(STDOUT, '');
      // flush writes a batch held since a full pipe first; flushSync would put it back out of
      // step with its length and write it garbled, so it runs only once nothing is held.
      destination.flush();
      if (!full) destination.flushSync();
    } catch {
      // stdout is full or gone: the process is ending either way
    }
  });
  // pino writes through this, so that nothing reaches a destination that broke and was destroyed.
  const stream: DestinationStream & { flush(done?: () => void): void } = {
    write: (line) => {
      if (!broken) destination.write(Buffer.from(line));
    },
    flush: (done) => {
      if (!broken) destination.flush();
      done?.();
    },
  };
  return stream;
}

export function createLogger(level: LogLevel, destination: DestinationStream = stdoutDestination()): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}

/**
 * Node's process warnings (a dependency's deprecation notice, say) as log lines: node would print
 * them to stderr as lines of text among the JSON ones, where a log shipper cannot read them.
 */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning'); // node's own listener, the one that prints to stderr
  process.on('warning', (warning) => logger.warn({ warning: { name: warning.name, code: (warning as NodeJS.ErrnoException).code } }, warning.message));
}
