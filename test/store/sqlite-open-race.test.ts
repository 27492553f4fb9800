/**
 * Two instances started at once on a new SQLite file: the second one's switch to WAL meets the
 * first one's lock, and must wait for it as every other statement does rather than fail the start.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { tempDir } from '../helpers/server.js';

const CONNECTION = new URL('../../src/store/sqlite/connection.js', import.meta.url).href;

/** Holds a write lock on a new database (still in rollback-journal mode) until a line comes on stdin. */
const HOLD_LOCK = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE; CREATE TABLE held (x)');
console.log('locked');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); console.log('released'); process.exit(0); });
`;

/** Opens the database as plantstore does and says how it went. */
const OPEN = `
const { openConnection } = await import(process.argv[1]);
console.log('opening');
try {
  const db = openConnection(process.argv[2]);
  console.log(db.pragma('journal_mode', { simple: true }) + ' ' + db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'held'").pluck().get());
} catch (error) {
  console.log('failed ' + error.code);
}
`;

/** The lines a child writes, one by one; rejects if it exits before writing the next. */
function lines(child: ChildProcessWithoutNullStreams): () => Promise<string> {
  const reader = createInterface({ input: child.stdout });
  const queue: string[] = [];
  let waiter: ((line: string | undefined) => void) | undefined;
  reader.on('line', (line) => (waiter ? (waiter(line), (waiter = undefined)) : queue.push(line)));
  reader.on('close', () => waiter?.(undefined));
  return async () => {
    const line = queue.shift() ?? (await new Promise<string | undefined>((resolve) => (waiter = resolve)));
    if (line === undefined) throw new Error('the child exited before writing the line awaited');
    return line;
  };
}

test("a new database's switch to WAL waits for another process's lock instead of failing", async (t) => {
  const path = join(tempDir(t), 'plantstore.db');
  const holder = spawn(process.execPath, ['-e', HOLD_LOCK, path], { stdio: 'pipe' });
  t.after(() => holder.kill());
  const holderSays = lines(holder);
  assert.equal(await holderSays(), 'locked');

  const opener = spawn(process.execPath, ['--input-type=module', '-e', OPEN, CONNECTION, path], { stdio: 'pipe' });
  t.after(() => opener.kill());
  const openerSays = lines(opener);
  assert.equal(await openerSays(), 'opening');
  // Long enough for the opener to meet the lock; a switch that does not wait has failed by then.
  await new Promise((resolve) => setTimeout(resolve, 300));
  holder.stdin.write('release\n');
  assert.equal(await holderSays(), 'released');
  assert.equal(await openerSays(), 'wal 1', 'opened once the lock was let go, seeing what the other process committed');
  await once(opener, 'exit');
});
