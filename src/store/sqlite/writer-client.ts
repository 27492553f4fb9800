/**
 * Group commit: writes that arrive while the writer thread is committing wait together and
 * go in the next batch, one transaction and one fsync for all. Each caller is answered only
 * after the commit that holds its write.
 */
import { Worker } from 'node:worker_threads';
import { StoreUnavailableError } from '../../errors.js';
import type { BatchReply, WriteOp, WriteResult } from './write-ops.js';

const MAX_BATCH = 512;

interface Pending {
  op: WriteOp;
  resolve: (result: WriteResult) => void;
  reject: (error: Error) => void;
}

export class WriterClient {
  private worker: Worker | undefined;
  private queue: Pending[] = [];
  private inFlight: Pending[] | undefined;
  private batchNumber = 0;
  private closing = false;
  /** Called with the size of each committed batch, for metrics. */
  onBatch: (size: number, seconds: number) => void = () => {};
  private batchStarted = 0n;

  constructor(private readonly path: string) {}

  write(op: WriteOp): Promise<WriteResult> {
    if (this.closing) return Promise.reject(new StoreUnavailableError('the store is closing'));
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (this.inFlight === undefined) this.sendNext();
    });
  }

  /** Waits for queued writes to commit, then stops the thread. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.inFlight !== undefined || this.queue.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const worker = new Worker(new URL('./writer-thread.js', import.meta.url), { workerData: { path: this.path } });
    worker.on('message', (reply: BatchReply) => this.finish(reply));
    const lost = (error: StoreUnavailableError) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.fail(error);
    };
    worker.on('error', (error) => lost(new StoreUnavailableError(`the SQLite writer failed: ${error.message}`, { cause: error })));
    worker.on('exit', () => lost(new StoreUnavailableError('the SQLite writer stopped')));
    this.worker = worker;
    return worker;
  }

  private sendNext(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue.length <= MAX_BATCH ? this.queue : this.queue.slice(0, MAX_BATCH);
    this.queue = this.queue.length <= MAX_BATCH ? [] : this.queue.slice(MAX_BATCH);
    this.inFlight = batch;
    this.batchNumber++;
    this.batchStarted = process.hrtime.bigint();
    (this.worker ?? this.start()).postMessage({ batch: this.batchNumber, ops: batch.map((pending) => pending.op) });
  }

  private finish(reply: BatchReply): void {
    const batch = this.inFlight;
    if (batch === undefined || reply.batch !== this.batchNumber) return;
    this.inFlight = undefined;
    if ('error' in reply) {
      const error = new StoreUnavailableError(`SQLite write failed (${reply.error.code ?? 'unknown'}): ${reply.error.message}`);
      for (const pending of batch) pending.reject(error);
    } else {
      this.onBatch(batch.length, Number(process.hrtime.bigint() - this.batchStarted) / 1e9);
      batch.forEach((pending, index) => pending.resolve(reply.results[index] as WriteResult));
    }
    this.sendNext();
  }

  private fail(error: Error): void {
    const batch = this.inFlight;
    this.inFlight = undefined;
    for (const pending of batch ?? []) pending.reject(error);
    if (!this.closing) this.sendNext();
  }
}
