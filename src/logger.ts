/**
 * JSON lines on stdout through pino, written by its own destination (SonicBoom) in batches of
 * 4 KB or every 250 ms, off the event loop, and whatever is held at exit; docs/decisions.md, "Logs", says
 * what that means for a crash. The Authorization header is redacted wherever a request's headers
 * are logged, so a token never reaches a log.
 */
import { fstatSync, writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';
import sonicBoom from 'sonic-boom';
import type { LogLevel } from './settings.js';

export type { Logger };

// sonic-boom is CommonJS whose module.exports is the class; its types declare it as `default`.
const SonicBoom = sonicBoom as unknown as typeof sonicBoom.SonicBoom;

const STDOUT = 1;
/** Bytes gathered before a write. */
const BATCH_BYTES = 4096;
/** Lines wait at most this long for a batch to fill. */
const BATCH_MS = 250;
/** Lines held for a stdout that takes nothing (a stalled reader) before new ones are dropped. */
const MAX_HELD_BYTES = 1 << 20;

/**
 * stdout, written asynchronously in batches. A full pipe makes lines wait (they are retried)
 * but, at exit, is given up on rather than waited for; a closed stdout ends logging, never the
 * service.
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
  let exiting = false;
  let broken = false;
  const destination = new SonicBoom({
    fd: STDOUT,
    sync: false,
    minLength: BATCH_BYTES,
    maxLength: MAX_HELD_BYTES,
    retryEAGAIN: () => !exiting,
  });
  setInterval(() => {
    if (!broken) destination.flush();
  }, BATCH_MS).unref();
  destination.on('error', () => {
    broken = true;
    destination.destroy();
  });
  process.once('exit', () => {
    exiting = true;
    if (broken) return;
    try {
      // An empty write tells whether anyone still reads: sonic-boom's flushSync retries
      // errors other than EAGAIN forever, so it must not meet a closed pipe.
      writeSync(STDOUT, '');
      destination.flushSync();
    } catch {
      // stdout is full or gone: the process is ending either way
    }
  });
  // pino writes through this, so that nothing reaches a destination that broke and was destroyed.
  const stream: DestinationStream & { flush(done?: () => void): void } = {
    write: (line) => {
      if (!broken) destination.write(line);
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
