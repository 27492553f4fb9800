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
    (ops) => {
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
    () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    },
    new EndOfTurn(),
  );
  const results = await Promise.allSettled([batcher.write(touch('a')), batcher.write(touch('b'))]);
  for (const result of results) assert.ok(result.status === 'rejected' && result.reason instanceof StoreUnavailableError);
});

test('commit() writes everything queued at once (closing does this)', async () => {
  let committed = 0;
  const batcher = new WriteBatcher((ops) => {
    committed += ops.length;
    return ops.map(() => changed);
  }, new EndOfTurn());
  const pending = [batcher.write(touch('a')), batcher.write(touch('b'))];
  batcher.commit();
  assert.equal(committed, 2);
  await Promise.all(pending);
});
