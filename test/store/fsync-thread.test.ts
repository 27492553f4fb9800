/** The fdatasync thread: completion seen by poll() without the event loop, or by its message when idle. */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { nextGeneration } from '../../src/store/sqlite/fsync-control.js';
import { FsyncThread } from '../../src/store/sqlite/fsync-thread.js';
import { tempDir } from '../helpers/server.js';

function openTempFile(t: Parameters<typeof tempDir>[0]): number {
  const fd = openSync(join(tempDir(t), 'wal'), 'w+');
  t.after(() => closeSync(fd));
  writeSync(fd, 'frames');
  return fd;
}

test('a sync finished by the thread is completed by poll() before the event loop reports it', async (t) => {
  const thread = new FsyncThread();
  t.after(() => thread.close());
  const fd = openTempFile(t);
  const results: (Error | null)[] = [];
  thread.datasync(fd, (error) => results.push(error));
  // Block this thread (no event loop turn) until the worker has done the sync.
  const deadline = Date.now() + 10_000;
  while (results.length === 0 && Date.now() < deadline) thread.poll();
  assert.deepEqual(results, [null]);
  // Its message arrives later and must not complete the sync twice.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(results, [null]);
});

test('without poll() the thread\'s message completes the sync; syncs follow one another', async (t) => {
  const thread = new FsyncThread();
  t.after(() => thread.close());
  const fd = openTempFile(t);
  for (let i = 0; i < 3; i++) {
    const error = await new Promise<Error | null>((resolve) => thread.datasync(fd, resolve));
    assert.equal(error, null);
  }
});

test('a failed fdatasync is reported with its errno', async (t) => {
  const thread = new FsyncThread();
  t.after(() => thread.close());
  const notOpen = 999_999;
  const error = await new Promise<Error | null>((resolve) => thread.datasync(notOpen, resolve));
  assert.match(String(error?.message), /fdatasync failed \(errno -9\)/); // EBADF
});

test('generations stay positive int32s: the counter wraps before it would overflow the shared slot', () => {
  assert.equal(nextGeneration(0), 1);
  assert.equal(nextGeneration(41), 42);
  assert.equal(nextGeneration(0x7fffffff), 1);
});

test('closing while a sync runs reports it failed, and a closed thread takes no more syncs', async (t) => {
  const thread = new FsyncThread();
  const fd = openTempFile(t);
  const result = new Promise<Error | null>((resolve) => thread.datasync(fd, resolve));
  thread.close();
  assert.match(String((await result)?.message), /closed/);
  assert.throws(() => thread.datasync(fd, () => undefined), /closed/);
});

