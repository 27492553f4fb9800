/**
 * The event loop's side of the writer thread: batches run in the order handed over, each
 * answered by a promise. A failed statement is a failed batch, not a dead thread; a thread dies
 * of a bug, or as it opens the database (its directory gone or not writable). A dead thread is
 * started again after a pause that doubles while new threads die before they have opened the
 * database.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../../errors.js';
import type { ThreadMessage, WriterMessage } from './writer-thread.js';
import type { WriteOp, WriteResult } from './write-ops.js';

interface Waiting {
  resolve: (results: WriteResult[]) => void;
  reject: (error: Error) => void;
}

const FIRST_RESTART_MS = 100;
const LAST_RESTART_MS = 10_000;

export class Writer {
  private thread: Worker;
  /** Where the thread answers: a port of our own, so that takeAnswer can read it before its event. */
  private answers: MessagePort;
  /** The batches handed over and not yet answered, oldest first: the thread runs them in order. */
  private readonly waiting: Waiting[] = [];
  /** Why writes are refused now: the thread died and its successor has not opened the database yet, or the writer is closed. */
  private down: Error | undefined;
  private closed = false;
  /** Settles when the current thread has ended. */
  private exited: Promise<void> = Promise.resolve();
  private restartMs = FIRST_RESTART_MS;

  constructor(
    private readonly path: string,
    /** Told, for the log, that the thread died and when another starts. */
    private readonly onDied: (error: Error) => void = () => {},
  ) {
    [this.thread, this.answers] = this.start();
  }

  /** Runs one batch in one transaction, after those handed over before; resolves once it is committed and synced. */
  run(ops: WriteOp[]): Promise<WriteResult[]> {
    if (this.down !== undefined) return Promise.reject(this.down);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.thread.ref(); // a batch under way keeps the process alive until it is answered
      this.thread.postMessage(ops satisfies WriterMessage);
    });
  }

  /** Takes the thread's answer now if it has come, rather than when the event loop next polls. */
  takeAnswer(): void {
    if (this.waiting.length > 0) this.takeAnswers(this.answers);
  }

  /** Throws while the thread is down: every write would fail, so the store is not ready. */
  checkAlive(): void {
    if (this.down !== undefined) throw this.down;
  }

  /**
   * Asks the thread to end once it has run the batches handed over, and waits for it. Not
   * terminate(): better-sqlite3 aborts the whole process when a statement fails while its thread
   * is being terminated.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.down = new StoreUnavailableError('the SQLite store is closed');
    this.thread.ref();
    this.thread.postMessage('close' satisfies WriterMessage);
    await this.exited;
  }

  private start(): [Worker, MessagePort] {
    const { port1: answers, port2: threadPort } = new MessageChannel();
    const thread = new Worker(new URL('./writer-thread.js', import.meta.url), { workerData: { path: this.path, answers: threadPort }, transferList: [threadPort] });
    thread.unref(); // an idle writer does not keep a finished command alive
    answers.on('message', (outcome: ThreadMessage) => this.answered(outcome));
    answers.unref(); // the thread keeps the process alive while a batch is under way
    let failure: Error | undefined;
    thread.on('error', (error) => {
      failure = error;
    });
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    // 'exit' follows an 'error' too.
    thread.on('exit', (code) => {
      this.takeAnswers(answers); // posted before the thread ended, maybe not delivered yet
      answers.close();
      this.died(failure ?? new Error(`the SQLite writer thread exited (${code})`));
    });
    return [thread, answers];
  }

  /** Handles every answer waiting in `port`, in order. */
  private takeAnswers(port: MessagePort): void {
    for (let answer = receiveMessageOnPort(port); answer !== undefined; answer = receiveMessageOnPort(port)) {
      this.answered(answer.message as ThreadMessage);
    }
  }

  private answered(outcome: ThreadMessage): void {
    if ('ready' in outcome) {
      this.restartMs = FIRST_RESTART_MS;
      if (!this.closed) this.down = undefined;
      return;
    }
    const waiting = this.take();
    if ('results' in outcome) waiting?.resolve(outcome.results);
    else waiting?.reject(new StoreUnavailableError(`SQLite write failed (${outcome.failure.code ?? 'unknown'}): ${outcome.failure.message}`));
  }

  private take(): Waiting | undefined {
    const waiting = this.waiting.shift();
    if (this.waiting.length === 0 && !this.closed) this.thread.unref(); // closing keeps it until it ends
    return waiting;
  }

  /** A batch under way when the thread died may or may not have been committed: its caller gets the 503 that says so. */
  private died(cause: Error): void {
    if (!this.closed) this.down = new StoreUnavailableError(`SQLite writes are unavailable: ${cause.message}`, { cause });
    for (let waiting = this.take(); waiting !== undefined; waiting = this.take()) waiting.reject(this.down as Error);
    if (this.closed) return;
    const pause = this.restartMs;
    this.restartMs = Math.min(pause * 2, LAST_RESTART_MS);
    this.onDied(new Error(`the SQLite writer thread died (${cause.message}); another starts in ${pause} ms`, { cause }));
    setTimeout(() => {
      if (!this.closed) [this.thread, this.answers] = this.start();
    }, pause).unref();
  }
}
