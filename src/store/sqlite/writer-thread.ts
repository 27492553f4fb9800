/**
 * The SQLite store's writer: a thread with its own connection that runs each batch of writes in
 * one transaction. Its commits wait for their fsync (synchronous=FULL) here, not on the event
 * loop, and no connection sees a commit before that fsync is done.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.js';
import { DatabaseFiles } from './database-files.js';
import { prepareWriter, type WriteOp, type WriteResult } from './write-ops.js';

/** What the thread answers for each batch. */
export type BatchOutcome = { results: WriteResult[] } | { failure: { code: string | undefined; message: string } };

/** What the thread posts on its `answers` port: once `ready` when its connection is open, then one BatchOutcome per batch. */
export type ThreadMessage = { ready: true } | BatchOutcome;

if (parentPort === null) throw new Error('writer-thread.js runs only as a worker thread');
const { path, answers } = workerData as { path: string; answers: MessagePort };
const db = openConnection(path);
const runBatch = prepareWriter(db);
const files = new DatabaseFiles(path);
answers.postMessage({ ready: true } satisfies ThreadMessage);

/** What the thread is sent: a batch, or `close` once no more will come. */
export type WriterMessage = WriteOp[] | 'close';

parentPort.on('message', (ops: WriterMessage) => {
  if (ops === 'close') {
    db.close();
    process.exit(0);
  }
  let outcome: BatchOutcome;
  try {
    files.checkInPlace();
    outcome = { results: runBatch(ops) };
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    outcome = { failure: { code, message } };
  }
  answers.postMessage(outcome);
});
