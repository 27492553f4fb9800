/**
 * The thread that runs fdatasync for fsync-thread.ts. Control words in shared memory: the main
 * thread bumps REQUESTED and notifies; this thread syncs, records the outcome, bumps COMPLETED,
 * then posts a message in case the main thread is idle and not polling. STOP stops it.
 */
import { fdatasyncSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { COMPLETED, ERRNO, REQUESTED, STOP } from './fsync-control.js';

const { control, fd } = workerData as { control: Int32Array; fd: number };
let done = 0;
for (;;) {
  // close() sets STOP and then moves REQUESTED, so this wait cannot sleep through a stop.
  Atomics.wait(control, REQUESTED, done);
  if (Atomics.load(control, STOP) !== 0) break;
  const requested = Atomics.load(control, REQUESTED);
  let errno = 0;
  try {
    fdatasyncSync(fd);
  } catch (error) {
    errno = (error as NodeJS.ErrnoException).errno ?? -1;
  }
  Atomics.store(control, ERRNO, errno);
  Atomics.store(control, COMPLETED, requested);
  done = requested;
  parentPort?.postMessage(requested);
}
