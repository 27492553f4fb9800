/**
 * Two instances started at once on a new SQLite file: the second one's switch to WAL meets the
 * first one's lock, and must wait for it as every other statement does rather than fail the start.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { openConnection } from '../../src/store/sqlite/connection.js';
import { tempDir } from '../helpers/server.js';

/** Another process holding a write lock on a new database (still in rollback-journal mode) for `ms`. */
const HOLD_LOCK = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE; CREATE TABLE held (x)');
console.log('locked');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));
`;

test("a new database's switch to WAL waits for another process's lock instead of failing", async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  const holder = spawn(process.execPath, ['-e', HOLD_LOCK, path, '400'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(holder.stdout, 'data')) as [Buffer];
  assert.equal(line.toString().trim(), 'locked');

  const started = Date.now();
  const db = openConnection(path);
  try {
    assert.ok(Date.now() - started >= 200, 'opened only once the lock was let go');
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'held'").pluck().get(), 1n);
  } finally {
    db.close();
    await once(holder, 'exit');
  }
});
