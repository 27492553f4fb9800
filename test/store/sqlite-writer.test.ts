/** The SQLite writer thread's side on the event loop: a thread that dies fails writes and readiness until it runs again. */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from '../../src/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { Writer } from '../../src/store/sqlite/writer.js';
import { tempDir } from '../helpers/server.js';

const touch = [{ kind: 'touchToken', id: 'tok_x', at: 0 }] as const;

test('a writer thread that dies refuses the write under way and fails checkAlive', async (t) => {
  // A database path under a regular file cannot be opened: the thread throws as it starts.
  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, '');
  const writer = new Writer(join(file, 'plantstore.db'));
  t.after(() => writer.close());
  writer.checkAlive();
  await assert.rejects(writer.run([...touch]), StoreUnavailableError);
  assert.throws(() => writer.checkAlive(), StoreUnavailableError);
  await assert.rejects(writer.run([...touch]), StoreUnavailableError);
});

test('while new threads die as they open the database, the writer stays down and says so each time', async (t) => {
  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, '');
  const deaths: string[] = [];
  const writer = new Writer(join(file, 'plantstore.db'), (error) => deaths.push(error.message));
  t.after(() => writer.close());
  await assert.rejects(writer.run([...touch]), StoreUnavailableError);
  // Three deaths take 0.3 s of pauses plus three thread starts, which a loaded machine slows.
  const deadline = Date.now() + 10_000;
  while (deaths.length < 3 && Date.now() < deadline) {
    assert.throws(() => writer.checkAlive(), StoreUnavailableError, 'a thread that has not opened the database is not ready');
    await sleep(2);
  }
  assert.ok(deaths.length >= 3, `deaths reported: ${deaths.length}`);
  assert.match(deaths[0] as string, /writer thread died .*another starts in 100 ms/);
  assert.match(deaths[1] as string, /another starts in 200 ms/);
});

test('closing the writer lets the batches handed over finish, answered, before its thread ends', async (t) => {
  const dir = tempDir(t);
  await (await SqliteStore.open(join(dir, 'plantstore.db'))).close();
  const writer = new Writer(join(dir, 'plantstore.db'));
  await writer.run([...touch]);
  const pending = writer.run([...touch]);
  await writer.close();
  assert.equal((await pending).length, touch.length);
  await assert.rejects(writer.run([...touch]), StoreUnavailableError);
});

test('a writer closed at once, before its thread has opened the database, closes cleanly, time after time', async (t) => {
  const dir = tempDir(t);
  await (await SqliteStore.open(join(dir, 'plantstore.db'))).close();
  for (let i = 0; i < 20; i++) await new Writer(join(dir, 'plantstore.db')).close();
});

test('a writer thread that died is started again, and writes succeed once its cause is gone', async (t) => {
  const dir = join(tempDir(t), 'db');
  writeFileSync(dir, ''); // in the way of the database's directory: the first threads die
  const writer = new Writer(join(dir, 'plantstore.db'));
  t.after(() => writer.close());
  await assert.rejects(writer.run([...touch]), StoreUnavailableError);
  assert.throws(() => writer.checkAlive(), StoreUnavailableError);

  rmSync(dir);
  mkdirSync(dir);
  await (await SqliteStore.open(join(dir, 'plantstore.db'))).close(); // the tables a write needs
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      writer.checkAlive();
      assert.deepEqual(await writer.run([...touch]), [{ kind: 'changed', changed: false }]);
      break;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
  writer.checkAlive();
});

test('a closed writer stays closed: its thread is not started again', async (t) => {
  const writer = new Writer(join(tempDir(t), 'plantstore.db'));
  await writer.close();
  await sleep(300);
  assert.throws(() => writer.checkAlive(), /closed/);
});

test('takeAnswer hands over an answer that has come, without waiting for the event loop to poll', async (t) => {
  const dir = tempDir(t);
  await (await SqliteStore.open(join(dir, 'plantstore.db'))).close();
  const writer = new Writer(join(dir, 'plantstore.db'));
  t.after(() => writer.close());
  await writer.run([...touch]); // the thread has started and opened the database
  let answered = false;
  const batch = writer.run([...touch]).then(() => {
    answered = true;
  });
  // Only promise callbacks run in this loop, never a turn of the event loop, which would
  // deliver the answer by itself: an answer seen here was handed over by takeAnswer.
  const deadline = Date.now() + 10_000;
  while (!answered && Date.now() < deadline) {
    const until = Date.now() + 20;
    while (Date.now() < until);
    writer.takeAnswer();
    for (let tick = 0; tick < 3; tick++) await Promise.resolve();
  }
  assert.ok(answered, 'the batch was answered within the same turn');
  await batch;
});

test('batches handed over before the first is answered run after it, in order', async (t) => {
  const dir = tempDir(t);
  await (await SqliteStore.open(join(dir, 'plantstore.db'))).close();
  const writer = new Writer(join(dir, 'plantstore.db'));
  t.after(() => writer.close());
  const answered: number[] = [];
  const creates = [1, 2, 3].map((n) =>
    writer.run([{ kind: 'createPlant', owner: 'ann', id: 7n, name: `plant ${n}`, tag: null }]).then((results) => {
      answered.push(n);
      return results[0];
    }),
  );
  const [first, second, third] = await Promise.all(creates);
  assert.deepEqual(answered, [1, 2, 3]);
  assert.equal(first?.kind === 'createPlant' && first.outcome, 'created');
  assert.equal(second?.kind === 'createPlant' && second.outcome, 'conflict', 'the second ran after the first was committed');
  assert.equal(third?.kind === 'createPlant' && third.outcome, 'conflict');
});
