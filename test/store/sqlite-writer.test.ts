/** The SQLite writer thread's side on the event loop: a thread that dies fails writes and readiness. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { StoreUnavailableError } from '../../src/errors.js';
import { Writer } from '../../src/store/sqlite/writer.js';
import { tempDir } from '../helpers/server.js';

test('a writer thread that dies refuses every later write and fails checkAlive', async (t) => {
  // A database path under a regular file cannot be opened: the thread throws as it starts.
  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, '');
  const writer = new Writer(join(file, 'plantstore.db'));
  writer.checkAlive();
  await assert.rejects(writer.run([{ kind: 'touchToken', id: 'tok_x', at: 0 }]), StoreUnavailableError);
  assert.throws(() => writer.checkAlive(), StoreUnavailableError);
  await assert.rejects(writer.run([{ kind: 'touchToken', id: 'tok_x', at: 0 }]), StoreUnavailableError);
  await writer.close();
});
