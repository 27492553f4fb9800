/**
 * The SQLite writer thread: it owns the one write connection, so commits and their fsync
 * never block the event loop that serves requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openConnection } from './connection.js';
import { prepareWriter, type BatchReply, type BatchRequest } from './write-ops.js';

const port = parentPort;
if (port === null) throw new Error('writer-thread must run as a worker thread');

const db = openConnection((workerData as { path: string }).path);
const runBatch = prepareWriter(db);

port.on('message', (request: BatchRequest | 'close') => {
  if (request === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: BatchReply;
  try {
    reply = { batch: request.batch, results: runBatch(request.ops) };
  } catch (error) {
    const { message, code } = error as { message: string; code?: string };
    reply = { batch: request.batch, error: { message, code } };
  }
  port.postMessage(reply);
});
