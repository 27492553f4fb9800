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
