/** Group commit's promise: a write is answered only after an fsync that started after its commit. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WalSync, type SyncFiles } from '../../src/store/sqlite/wal-sync.js';
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js';
import type { WriteOp, WriteResult } from '../../src/store/sqlite/write-ops.js';

/** Fake files whose datasyncs finish only when the test says so. */
function controlledFiles() {
  const pending: ((error: Error | null) => void)[] = [];
  const files: SyncFiles & { directorySyncs: string[] } = {
    directorySyncs: [],
    open: () => 7,
    syncDirectory: (path) => void files.directorySyncs.push(path),
    datasync: (_fd, done) => void pending.push(done),
    poll: () => undefined,
    close: () => undefined,
  };
  return {
    files,
    syncsStarted: () => pending.length,
    finishSync: (index: number, error: Error | null = null) => (pending[index] as (error: Error | null) => void)(error),
  };
}

function track(promise: Promise<unknown>): { settled: () => string } {
  let state = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  return { settled: () => state };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WalSync', () => {
  test('a commit made while a sync runs waits for the next sync, which covers it', async () => {
    const fake = controlledFiles();
    const wal = new WalSync('/data/db.sqlite-wal', fake.files);
    const first = track(wal.durable());
    assert.equal(fake.syncsStarted(), 1);
    const second = track(wal.durable());
    const third = track(wal.durable());
    assert.equal(fake.syncsStarted(), 1, 'later commits do not start a sync of their own while one runs');

    fake.finishSync(0);
    await tick();
    assert.equal(first.settled(), 'resolved');
    assert.equal(second.settled(), 'pending', 'the sync that was running started before this commit');
    assert.equal(fake.syncsStarted(), 2, 'one more sync covers every commit that waited');

    fake.finishSync(1);
    await tick();
    assert.deepEqual([second.settled(), third.settled()], ['resolved', 'resolved']);
  });

  test('the directory holding the WAL is synced once, with the first sync', async () => {
    const fake = controlledFiles();
    const wal = new WalSync('/data/db.sqlite-wal', fake.files);
    const first = wal.durable();
    fake.finishSync(0);
    await first;
    const second = wal.durable();
    fake.finishSync(1);
    await second;
    assert.deepEqual(fake.files.directorySyncs, ['/data']);
  });

  test('after a failed sync nothing is durable any more: waiting and later commits fail, the store reports it', async () => {
    const fake = controlledFiles();
    const wal = new WalSync('/data/db.sqlite-wal', fake.files);
    const first = track(wal.durable());
    const waiting = track(wal.durable());
    fake.finishSync(0, new Error('EIO: i/o error, fdatasync'));
    await tick();
    assert.deepEqual([first.settled(), waiting.settled()], ['rejected', 'rejected']);
    await assert.rejects(wal.durable(), /EIO/);
    assert.match(wal.failed?.message ?? '', /EIO/);
    assert.equal(fake.syncsStarted(), 1, 'no later sync pretends to cover what was lost');
  });

  test('a sync that cannot even start (no thread) fails the store instead of leaving writers waiting', async () => {
    const fake = controlledFiles();
    fake.files.datasync = () => {
      throw new Error('ERR_WORKER_INIT_FAILED');
    };
    const wal = new WalSync('/data/db.sqlite-wal', fake.files);
    await assert.rejects(wal.durable(), /ERR_WORKER_INIT_FAILED/);
    await assert.rejects(wal.durable(), /ERR_WORKER_INIT_FAILED/);
    assert.match(wal.failed?.message ?? '', /ERR_WORKER_INIT_FAILED/);
  });
});

describe('WriteBatcher', () => {
  test('writes of one turn share one commit and are answered only after its sync', async () => {
    const fake = controlledFiles();
    const commits: WriteOp[][] = [];
    const batcher = new WriteBatcher((ops) => {
      commits.push(ops);
      return ops.map((): WriteResult => ({ kind: 'changed', changed: true }));
    }, new WalSync('/data/db.sqlite-wal', fake.files));
    const op: WriteOp = { kind: 'deletePlant', owner: 'alice', id: 1n };
    const answers = [track(batcher.write(op)), track(batcher.write(op)), track(batcher.write(op))];
    await tick();
    assert.equal(commits.length, 1, 'one transaction for the three writes');
    assert.equal(commits[0]?.length, 3);
    assert.deepEqual(answers.map((answer) => answer.settled()), ['pending', 'pending', 'pending'], 'committed is not yet durable');
    fake.finishSync(0);
    await tick();
    assert.deepEqual(answers.map((answer) => answer.settled()), ['resolved', 'resolved', 'resolved']);
  });

  test('once a sync has failed, later writes are refused without reaching the database', async () => {
    const fake = controlledFiles();
    let commits = 0;
    const batcher = new WriteBatcher((ops) => {
      commits++;
      return ops.map((): WriteResult => ({ kind: 'changed', changed: true }));
    }, new WalSync('/data/db.sqlite-wal', fake.files));
    const first = track(batcher.write({ kind: 'deletePlant', owner: 'alice', id: 1n }));
    await tick();
    fake.finishSync(0, new Error('EIO'));
    await tick();
    const later = track(batcher.write({ kind: 'deletePlant', owner: 'alice', id: 2n }));
    await tick();
    assert.deepEqual([first.settled(), later.settled()], ['rejected', 'rejected']);
    assert.equal(commits, 1, 'only the write made before the failure reached the database');
    await batcher.drain();
  });

  test('drain (used on close) resolves only once every accepted write is durable', async () => {
    const fake = controlledFiles();
    const batcher = new WriteBatcher((ops) => ops.map((): WriteResult => ({ kind: 'changed', changed: true })), new WalSync('/data/db.sqlite-wal', fake.files));
    const write = track(batcher.write({ kind: 'deletePlant', owner: 'alice', id: 1n }));
    const drained = track(batcher.drain());
    await tick();
    assert.equal(drained.settled(), 'pending', 'the commit still waits for its sync');
    fake.finishSync(0);
    await tick();
    assert.deepEqual([write.settled(), drained.settled()], ['resolved', 'resolved']);
    await batcher.drain(); // idle: at once
  });
});
