/** CreateBatcher, PostgreSQL's group commit for creates, with a recording batch writer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CreateBatcher, type PendingCreate } from '../../src/store/postgres/create-batcher.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';

/** The end of turn runs in two immediates: two more have passed once it has. */
const endOfTurnPassed = async () => {
  for (let i = 0; i < 2; i++) await new Promise((done) => setImmediate(done));
};

test('the creates of one turn go as one batch; a few batches are written at once, the rest wait', async () => {
  const batches: bigint[][] = [];
  const finish: (() => void)[] = [];
  const endOfTurn = new EndOfTurn();
  const batcher = new CreateBatcher(
    (batch: PendingCreate[]) =>
      new Promise<void>((done) => {
        batches.push(batch.map((item) => item.plant.id));
        finish.push(() => {
          for (const item of batch) item.resolve({ outcome: 'created', stored: item.plant });
          done();
        });
      }),
    endOfTurn.schedule,
  );
  endOfTurn.set('sendQueries', () => batcher.send());
  const create = (id: number) => batcher.create('ana', { id: BigInt(id), name: 'x', tag: null });
  const turn = async (ids: number[]) => {
    const answers = ids.map(create);
    await endOfTurnPassed();
    return answers;
  };

  const first = await turn([1, 2, 3]);
  assert.deepEqual(batches, [[1n, 2n, 3n]], 'one turn, one batch');
  await turn([4]);
  await turn([5, 6]);
  assert.deepEqual(batches.length, 3, 'three batches in flight at once');
  const waiting = await turn([7, 8]);
  await turn([9]);
  assert.equal(batches.length, 3, 'a fourth waits for one to finish');

  finish[0]?.();
  assert.deepEqual(await Promise.all(first), [1, 2, 3].map((id) => ({ outcome: 'created', stored: { id: BigInt(id), name: 'x', tag: null } })));
  await endOfTurnPassed();
  assert.deepEqual(batches[3], [7n, 8n, 9n], 'what waited goes as one batch');
  for (const done of finish.slice(1)) done();
  await Promise.all(waiting);
});
