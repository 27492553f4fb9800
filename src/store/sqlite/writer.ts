/** The event loop's side of the writer thread: one batch at a time, answered by a promise. */
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../../errors.js';
import type { BatchOutcome } from './writer-thread.js';
import type { WriteOp, WriteResult } from './write-ops.js';

interface Waiting {
  resolve: (results: WriteResult[]) => void;
  reject: (error: Error) => void;
}

export class Writer {
  private readonly thread: Worker;
  private waiting: Waiting | undefined;
  private broken: Error | undefined;

  constructor(path: string) {
    this.thread = new Worker(new URL('./writer-thread.js', import.meta.url), { workerData: { path } });
    this.thread.unref(); // an idle writer does not keep a finished command alive
    this.thread.on('message', (outcome: BatchOutcome) => {
      const waiting = this.take();
      if ('results' in outcome) waiting?.resolve(outcome.results);
      else waiting?.reject(new StoreUnavailableError(`SQLite write failed (${outcome.failure.code ?? 'unknown'}): ${outcome.failure.message}`));
    });
    this.thread.on('error', (error) => this.fail(error));
    this.thread.on('exit', (code) => this.fail(new Error(`the SQLite writer thread exited (${code})`)));
  }

  /** Runs one batch in one transaction; resolves once it is committed and synced. One at a time. */
  run(ops: WriteOp[]): Promise<WriteResult[]> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    if (this.waiting !== undefined) return Promise.reject(new Error('Writer.run called while a batch is running'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.thread.ref(); // a batch under way keeps the process alive until it is answered
      this.thread.postMessage(ops);
    });
  }

  /** Throws once the thread has died: every write would fail, so the store is not ready. */
  checkAlive(): void {
    if (this.broken !== undefined) throw this.broken;
  }

  async close(): Promise<void> {
    this.broken ??= new Error('the SQLite store is closed');
    await this.thread.terminate();
  }

  private take(): Waiting | undefined {
    const waiting = this.waiting;
    this.waiting = undefined;
    this.thread.unref();
    return waiting;
  }

  private fail(error: Error): void {
    this.broken ??= new StoreUnavailableError(`SQLite writes are unavailable: ${error.message}`, { cause: error });
    this.take()?.reject(this.broken);
  }
}
