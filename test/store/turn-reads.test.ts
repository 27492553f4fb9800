/**
 * The SQLite store's reads share one read transaction per turn of the event loop: what that
 * transaction sees, when it ends, and that a write's own response is never followed by a read
 * that misses it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/server.js';
import { ALL_FIELDS, plantsOfPage } from '../helpers/page.js';

const page = { limit: 10, after: undefined, tag: undefined, fields: ALL_FIELDS };
const plant = (id: bigint, name: string) => ({ id, name, tag: null });

/** Blocks the event loop: whatever another thread finishes meanwhile waits for the next poll. */
function hold(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

test("reads of one turn see one snapshot; the next turn's reads see later commits", async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  const store = SqliteStore.open(path);
  const other = openConnection(path); // another process's connection, say
  t.after(async () => {
    other.close();
    await store.close();
  });
  assert.deepEqual(plantsOfPage(store.listPlants('ann', page)), []);
  other.prepare("INSERT INTO plants (owner, id, name) VALUES ('ann', 1, 'fern')").run();
  assert.equal(store.getPlant('ann', 1n), undefined, 'the transaction opened by the first read of the turn is still the one read');
  await nextTurn();
  assert.equal(store.getPlant('ann', 1n)?.name, 'fern');
});

test("a read right after a write's response sees the write, though the turn's snapshot is older", async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  const store = SqliteStore.open(path);
  const blocker = openConnection(path);
  t.after(async () => {
    blocker.close();
    await store.close();
  });
  blocker.exec('BEGIN IMMEDIATE'); // the writer thread's commit waits for this lock
  const created = store.createPlant('ann', plant(2n, 'ivy'));
  // In the next loop's timers phase: open a read transaction, let the writer go, and hold the
  // loop until it has committed (however long a busy machine takes). Its answer then arrives in
  // the poll phase of the same loop, before the end of the turn could end that transaction.
  const committed = blocker.prepare("SELECT 1 FROM plants WHERE owner = 'ann' AND id = 2");
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      assert.equal(store.getPlant('ann', 2n), undefined);
      blocker.exec('COMMIT');
      const until = Date.now() + 10_000;
      while (committed.get() === undefined && Date.now() < until);
      assert.notEqual(committed.get(), undefined, 'the writer thread committed');
      hold(50); // the thread posts its answer right after the commit
      resolve();
    }, 0),
  );
  assert.equal((await created).outcome, 'created');
  assert.equal(store.getPlant('ann', 2n)?.name, 'ivy');
});
