/**
 * fdatasync on a thread of our own, whose completion the event loop can see at once. A sync run
 * in libuv's pool is reported through the event loop: under load its callback waits behind a
 * whole turn of requests, and every write in the batch waits with it. Here the worker marks
 * completion in shared memory and poll(), called on every request, finishes the sync as soon
 * as it is done; the worker's message wakes an idle loop.
 */
import { Worker } from 'node:worker_threads';
import { COMPLETED, CONTROL_SLOTS, ERRNO, REQUESTED, STOP, nextGeneration } from './fsync-control.js';

export class FsyncThread {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  private worker: Worker | undefined;
  private generation = 0;
  private pending: ((error: Error | null) => void) | undefined;
  private closed = false;

  /** Starts an fdatasync of `fd`; `done` is called once, from poll() or the worker's message. */
  datasync(fd: number, done: (error: Error | null) => void): void {
    if (this.pending !== undefined) throw new Error('FsyncThread runs one sync at a time');
    if (this.closed) throw new Error('the fsync thread was closed');
    const worker = this.workerFor(fd);
    this.pending = done;
    worker.ref(); // an otherwise idle process (a CLI command) must stay up until the sync is done
    this.generation = nextGeneration(this.generation);
    Atomics.store(this.control, REQUESTED, this.generation);
    Atomics.notify(this.control, REQUESTED);
  }

  /** Finishes the running sync if the worker has completed it. */
  poll(): void {
    if (this.pending === undefined || Atomics.load(this.control, COMPLETED) !== this.generation) return;
    const errno = Atomics.load(this.control, ERRNO);
    this.finish(errno === 0 ? null : Object.assign(new Error(`fdatasync failed (errno ${errno})`), { errno }));
  }

  /** Stops the thread for good; a sync still running is reported failed. */
  close(): void {
    this.poll(); // a sync the worker has finished is reported done, not failed
    this.closed = true;
    if (this.worker !== undefined) {
      Atomics.store(this.control, STOP, 1);
      // Also move REQUESTED: a worker busy in fdatasync misses the notify, and its next wait
      // must see a changed value and return at once.
      Atomics.store(this.control, REQUESTED, nextGeneration(this.generation));
      Atomics.notify(this.control, REQUESTED);
      this.worker.unref();
      this.worker = undefined;
    }
    this.finish(new Error('the fsync thread was closed'));
  }

  private finish(error: Error | null): void {
    const done = this.pending;
    this.pending = undefined;
    this.worker?.unref();
    done?.(error);
  }

  private workerFor(fd: number): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(new URL('./fsync-worker.js', import.meta.url), { workerData: { control: this.control, fd } });
    worker.unref();
    worker.on('message', () => this.poll());
    // A thread that dies cannot promise anything more: the running sync (and with it the store) fails.
    worker.on('error', (error) => this.finish(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) {
        this.worker = undefined;
        this.poll(); // it may have finished the sync before it stopped
        this.finish(new Error(`the fsync thread stopped (exit code ${code})`));
      }
    });
    this.worker = worker;
    return worker;
  }
}
