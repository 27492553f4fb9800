/** WriteBatcher: the group commit of the SQLite store, with a recording batch runner. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailableError } from '../../src/errors.js';
import { WriteBatcher } from '../../src/store/sqlite/write-batcher.js';
import type { WriteOp, WriteResult } from '../../src/store/sqlite/write-ops.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';

const touch = (id: string): WriteOp => ({ kind: 'touchToken', id, at: 0 });
const changed: WriteResult = { kind: 'changed', changed: true };

test('the writes of one turn share one commit at its end, and each is answered after it', async () => {
  const batches: string[][] = [];
  const sizes: number[] = [];
  const batcher = new WriteBatcher(
    async (ops) => {
      batches.push(ops.map((op) => (op.kind === 'touchToken' ? op.id : op.kind)));
      return ops.map(() => changed);
    },
    new EndOfTurn(),
    (size) => sizes.push(size),
  );
  const answered: string[] = [];
  const writes = ['a', 'b', 'c'].map((id) => batcher.write(touch(id)).then(() => answered.push(id)));
  assert.deepEqual(batches, [], 'nothing is committed before the turn ends');
  await Promise.all(writes);
  assert.deepEqual(batches, [['a', 'b', 'c']]);
  assert.deepEqual(answered, ['a', 'b', 'c']);
  assert.deepEqual(sizes, [3]);
  await batcher.write(touch('d'));
  assert.deepEqual(batches, [['a', 'b', 'c'], ['d']], 'a later turn commits its own batch');
});

test('a commit that fails refuses every write of its batch as unavailable', async () => {
  const batcher = new WriteBatcher(
    async () => {
      throw new StoreUnavailableError('SQLite write failed (SQLITE_IOERR): disk I/O error');
    },
    new EndOfTurn(),
  );
  const results = await Promise.allSettled([batcher.write(touch('a')), batcher.write(touch('b'))]);
  for (const result of results) assert.ok(result.status === 'rejected' && result.reason instanceof StoreUnavailableError);
});

/** A batcher whose commits each wait until the test calls its `finish`; `batches` has their sizes. */
function heldBatcher() {
  const batches: number[] = [];
  const finish: (() => void)[] = [];
  const batcher = new WriteBatcher(async (ops) => {
    batches.push(ops.length);
    await new Promise<void>((resolve) => finish.push(resolve));
    return ops.map(() => changed);
  }, new EndOfTurn());
  return { batcher, batches, finish };
}

test('up to two batches are out at once; writes that arrive meanwhile go together as the next; drain waits for all', async () => {
  const { batcher, batches, finish } = heldBatcher();
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const first = batcher.write(touch('a'));
  await turn();
  const second = [1, 2].map((n) => batcher.write(touch(`b${n}`)));
  await turn();
  assert.deepEqual(batches, [1, 2], 'a second batch goes while the first commits');
  const third = [1, 2, 3].map((n) => batcher.write(touch(`c${n}`)));
  await turn();
  assert.deepEqual(batches, [1, 2], 'a third waits while two are out');
  let drained = false;
  const drain = batcher.drain().then(() => (drained = true));
  (finish[0] as () => void)();
  await first;
  await turn();
  assert.deepEqual(batches, [1, 2, 3], 'the end of one sends the next');
  (finish[1] as () => void)();
  await Promise.all(second);
  await turn();
  assert.equal(drained, false, 'drain waits for the last batch out');
  (finish[2] as () => void)();
  await Promise.all([...third, drain]);
  assert.ok(drained);
});

test('a turn with more writes than one batch holds sends the rest as a second batch at once', async () => {
  const { batcher, batches, finish } = heldBatcher();
  const writes = Array.from({ length: 1500 }, (_, n) => batcher.write(touch(`t${n}`)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(batches, [1024, 476]);
  for (const done of finish) done();
  await Promise.all(writes);
});

test('drain with nothing queued but a batch out waits for that commit', async () => {
  let commit: () => void = () => {};
  const batcher = new WriteBatcher(
    (ops) =>
      new Promise<WriteResult[]>((resolve) => {
        commit = () => resolve(ops.map(() => changed));
      }),
    new EndOfTurn(),
  );
  const written = batcher.write(touch('a'));
  await new Promise((resolve) => setImmediate(resolve)); // the turn ends: the batch is out, the queue empty
  let drained = false;
  const draining = batcher.drain().then(() => (drained = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(drained, false, 'the commit has not answered');
  commit();
  await Promise.all([written, draining]);
  assert.equal(drained, true);
});
