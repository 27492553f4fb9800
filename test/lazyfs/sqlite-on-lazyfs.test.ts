/**
 * SQLite in WAL mode runs on lazyfs, its -shm index mapped shared by two processes, and a power
 * cut keeps exactly the commits SQLite synced: what the power-loss test of plantstore relies on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { LazyFs, lazyFsSkip } from '../helpers/lazyfs.js';

const skip = await lazyFsSkip();
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function open(path: string, synchronous: 'FULL' | 'OFF'): Database.Database {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  return db;
}

/** Inserts `rows` rows, one transaction each, from another process; resolves when it is done. */
async function insertFromChild(path: string, rows: number): Promise<void> {
  const script = `
    import Database from 'better-sqlite3';
    const db = new Database(process.argv[1]);
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = FULL');
    const insert = db.prepare("INSERT INTO t (who) VALUES ('child')");
    for (let i = 0; i < Number(process.argv[2]); i++) insert.run();
    db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, path, String(rows)], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, 'the child process inserted its rows');
}

test('SQLite in WAL mode keeps its synced commits through a power cut and loses the others', { skip }, async (t) => {
  const fs = await LazyFs.mount(t);
  const path = join(fs.mountpoint, 'test.db');
  const db = open(path, 'FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)');
  const insert = db.prepare("INSERT INTO t (who) VALUES ('parent')");
  // Both processes write at once: each sees the other's commits through the shared -shm mapping.
  let childDone = false;
  const child = insertFromChild(path, 300).finally(() => (childDone = true));
  let parentRows = 0;
  while (!childDone) {
    insert.run();
    // A pause now and then, so the child is not starved of the write lock.
    if (++parentRows % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await child;
  assert.deepEqual(db.prepare('SELECT count(*) AS n FROM t').get(), { n: parentRows + 300 });
  db.pragma('synchronous = OFF');
  for (let i = 0; i < 100; i++) insert.run();
  assert.deepEqual(db.prepare('SELECT count(*) AS n FROM t').get(), { n: parentRows + 400 });

  await fs.powerCut();
  db.close();
  await fs.start();

  const after = open(path, 'FULL');
  t.after(() => after.close());
  assert.equal(after.pragma('integrity_check', { simple: true }), 'ok');
  assert.deepEqual(after.prepare('SELECT who, count(*) AS n FROM t GROUP BY who ORDER BY who').all(), [
    { who: 'child', n: 300 },
    { who: 'parent', n: parentRows },
  ]);
});
