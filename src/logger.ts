import { fstatSync, writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import type { LogLevel } from './settings.js';

export type { Logger };

const ERROR_LEVEL = pino.levels.values.error as number;
const INFO_LEVEL = pino.levels.values.info as number;

/** Writes some of `data` and returns how many bytes; throws an errno error (EAGAIN when a pipe is full). */
export type WriteSome = (data: Buffer) => number;

/**
 * A pipe takes a write of at most this many bytes whole (PIPE_BUF on Linux). With --workers all
 * processes share one stdout, and a larger write could be cut into by another process mid-line.
 */
const PIPE_BATCH_BYTES = 4096;
/** On Linux a regular file takes each write() whole, at one offset even when processes share it: larger batches, fewer calls. */
const FILE_BATCH_BYTES = 65_536;
const BATCH_MS = 250;
/** Lines held while stdout takes nothing (a stalled reader) before the oldest are dropped. */
const MAX_HELD_BYTES = 1 << 20;
/** How long exit, or an error line while stdout is keeping up, waits for a full pipe. */
const SYNC_WAIT_MS = 1000;
const STDOUT = 1;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

/**
 * Log lines written to stdout in batches of up to 4 KB (64 KB to a file), or every 250 ms: one
 * write() for dozens of access lines, made on the event loop and in order. (pino's sonic-boom
 * measured its whole pending buffer on every line, and its writes in the thread pool could be
 * overtaken by a synchronous flush.) flushSync() writes everything held at once: for every error
 * line (pino tells a destination that asks for metadata each line's level) and on exit. A pipe
 * that stays full makes lines wait and, past 1 MB, drops the oldest; once a wait for it has
 * timed out, error lines stop waiting until it takes data again. A closed stdout (EPIPE) ends
 * logging quietly, never the process.
 */
export class LineBatches implements pino.DestinationStream {
  /** Asks pino to set lastLevel before each write: cheaper than a logMethod hook on every call. */
  readonly [pino.symbols.needsMetadataGsym] = true;
  lastLevel = 0;
  private lines: string[] = [];
  private bytes = 0;
  /** Bytes of batches already formed that stdout has not taken yet. */
  private unwritten: Buffer[] = [];
  private closed = false;
  /** A wait for a full stdout timed out and nothing was written since. */
  private stalled = false;

  constructor(
    private readonly writeSome: WriteSome = (data) => writeSync(STDOUT, data),
    private readonly batchBytes = PIPE_BATCH_BYTES,
  ) {
    setInterval(this.writeHeld, BATCH_MS).unref();
    process.once('exit', () => this.flushSync(SYNC_WAIT_MS));
  }

  /** pino's entry: the line's level is in lastLevel. */
  write(line: string): void {
    this.writeLine(line, this.lastLevel);
  }

  writeLine(line: string, level: number): void {
    if (this.closed) return;
    const bytes = Buffer.byteLength(line);
    if (this.bytes + bytes > this.batchBytes) this.writeHeld();
    this.lines.push(line);
    this.bytes += bytes;
    // An error may be the last thing this process says (then a SIGKILL, say): it is written at once.
    if (level >= ERROR_LEVEL) this.flushSync();
  }

  flush(done?: (error?: Error) => void): void {
    this.writeHeld();
    done?.();
  }

  /** Writes everything held; waits up to `waitMs` for a full pipe (none while it is stalled). */
  flushSync(waitMs = this.stalled ? 0 : SYNC_WAIT_MS): void {
    this.writeHeld();
    const deadline = performance.now() + waitMs;
    while (this.unwritten.length > 0 && !this.closed && performance.now() < deadline) {
      pause(1);
      this.writeOut();
    }
    if (this.unwritten.length > 0) this.stalled = true;
  }

  private readonly writeHeld = (): void => {
    if (this.closed) {
      this.lines = [];
      return;
    }
    if (this.lines.length > 0) {
      this.unwritten.push(Buffer.from(this.lines.join('')));
      this.lines = [];
      this.bytes = 0;
    }
    this.writeOut();
    let held = 0;
    for (const batch of this.unwritten) held += batch.length;
    // The first batch may be half written: drop the ones after it, so no line is cut.
    while (held > MAX_HELD_BYTES && this.unwritten.length > 1) held -= (this.unwritten.splice(1, 1)[0] as Buffer).length;
  };

  /** Writes formed batches until stdout is full or they are all out. */
  private writeOut(): void {
    while (this.unwritten.length > 0 && !this.closed) {
      const batch = this.unwritten[0] as Buffer;
      let written: number;
      try {
        written = this.writeSome(batch);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return;
        this.closed = true; // EPIPE, EBADF…: nobody is reading; logging stops, the service goes on
        this.unwritten = [];
        this.lines = [];
        return;
      }
      if (written <= 0) return; // took nothing: as good as full
      this.stalled = false;
      if (written >= batch.length) this.unwritten.shift();
      else this.unwritten[0] = batch.subarray(written);
    }
  }
}

/**
 * LineBatches on stdout. When stdout is a pipe or socket it must be non-blocking, so a log reader
 * that stalls makes writes fail with EAGAIN (lines wait, then drop) instead of freezing the
 * event loop; Node makes it so when process.stdout is first touched. A regular file gets larger batches.
 */
function stdoutLines(): LineBatches {
  try {
    const stdout = fstatSync(STDOUT);
    if (stdout.isFIFO() || stdout.isSocket()) void process.stdout;
    if (stdout.isFile()) return new LineBatches(undefined, FILE_BATCH_BYTES);
  } catch {
    // no stdout at all: every write fails and logging ends quietly
  }
  return new LineBatches();
}

/**
 * JSON lines on stdout. The Authorization header is redacted wherever a request's headers
 * are logged, so a token never reaches a log.
 */
export function createLogger(level: LogLevel, destination: pino.DestinationStream = stdoutLines()): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.authorization'], censor: '[redacted]' },
    },
    destination,
  );
}

/** Writes one access line: the request's id, method, route template, status and milliseconds. */
export type AccessLog = (reqId: string, method: string, route: string, status: number, ms: number) => void;

/**
 * The access line, one per request and so the busiest line there is. On LineBatches it is built
 * by a template, not pino's generic serializer, which measured over a tenth of a cached GET's
 * CPU: the same fields in pino's order (level, time, the logger's bindings, fields, msg), to the
 * same destination, only while the logger's level lets info through. On any other destination
 * it is pino's own info().
 */
export function accessLog(logger: Logger): AccessLog {
  const destination = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!(destination instanceof LineBatches)) {
    return (reqId, method, route, status, ms) => logger.info({ reqId, method, route, status, ms }, 'request');
  }
  const bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  return (reqId, method, route, status, ms) => {
    if (logger.levelVal > INFO_LEVEL) return;
    destination.writeLine(
      `{"level":${INFO_LEVEL},"time":${Date.now()}${bindings},"reqId":${JSON.stringify(reqId)},"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":${status},"ms":${ms},"msg":"request"}\n`,
      INFO_LEVEL,
    );
  };
}
